package io.sluice.wire;

import java.util.Objects;
import java.util.UUID;

/**
 * Reads one attribute of a segment. Wire type 34.
 *
 * <pre>
 * requestId i64 | segmentName UTF | attributeId UUID | delegationToken UTF
 * </pre>
 * Answered by {@link SegmentAttribute}. A writer's last event number is the attribute keyed by its writer id.
 *
 * @param requestId echoed in the reply
 * @param segmentName the qualified segment name
 * @param attributeId the attribute
 * @param delegationToken the controller's token ("" when auth is off)
 */
public record GetSegmentAttribute(long requestId, String segmentName, UUID attributeId, String delegationToken)
        implements Request {

    /** Checks the fields: name and attribute are required; a null token is sent as "". */
    public GetSegmentAttribute {
        Objects.requireNonNull(segmentName, "segmentName");
        Objects.requireNonNull(attributeId, "attributeId");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.GET_SEGMENT_ATTRIBUTE;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segmentName);
        out.writeUuid(attributeId);
        out.writeUtf(delegationToken);
    }

    static GetSegmentAttribute readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segmentName = in.readUtf("segmentName");
        UUID attributeId = in.readUuid("attributeId");
        String token = in.readUtf("delegationToken");
        return new GetSegmentAttribute(requestId, segmentName, attributeId, token);
    }

    @Override
    public String toString() {
        return "GetSegmentAttribute[requestId=" + requestId + ", segmentName=" + segmentName + ", attributeId="
                + attributeId + "]";
    }
}
