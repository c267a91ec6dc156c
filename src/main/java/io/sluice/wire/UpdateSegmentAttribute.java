package io.sluice.wire;

import java.util.Objects;
import java.util.UUID;

/**
 * Compare-and-sets one attribute of a segment. Wire type 36.
 *
 * <pre>
 * requestId i64 | segmentName UTF | attributeId UUID | newValue i64 | expectedValue i64 | delegationToken UTF
 * </pre>
 * Answered by {@link SegmentAttributeUpdated}, whose {@code success} tells whether the expected value matched.
 *
 * @param requestId echoed in the reply
 * @param segmentName the qualified segment name
 * @param attributeId the attribute
 * @param newValue the value to store
 * @param expectedValue the value the attribute must have now; {@link WireProtocol#NULL_ATTRIBUTE_VALUE} = must be unset
 * @param delegationToken the controller's token ("" when auth is off)
 */
public record UpdateSegmentAttribute(long requestId, String segmentName, UUID attributeId, long newValue,
                                     long expectedValue, String delegationToken) implements Request {

    /** Checks the fields: name and attribute are required; a null token is sent as "". */
    public UpdateSegmentAttribute {
        Objects.requireNonNull(segmentName, "segmentName");
        Objects.requireNonNull(attributeId, "attributeId");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.UPDATE_SEGMENT_ATTRIBUTE;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segmentName);
        out.writeUuid(attributeId);
        out.writeLong(newValue);
        out.writeLong(expectedValue);
        out.writeUtf(delegationToken);
    }

    static UpdateSegmentAttribute readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segmentName = in.readUtf("segmentName");
        UUID attributeId = in.readUuid("attributeId");
        long newValue = in.readLong("newValue");
        long expectedValue = in.readLong("expectedValue");
        String token = in.readUtf("delegationToken");
        return new UpdateSegmentAttribute(requestId, segmentName, attributeId, newValue, expectedValue, token);
    }

    @Override
    public String toString() {
        return "UpdateSegmentAttribute[requestId=" + requestId + ", segmentName=" + segmentName + ", attributeId="
                + attributeId + ", newValue=" + newValue + ", expectedValue=" + expectedValue + "]";
    }
}
