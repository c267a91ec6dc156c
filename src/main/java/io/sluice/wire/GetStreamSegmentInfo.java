package io.sluice.wire;

import java.util.Objects;

/**
 * Asks for a segment's metadata. Wire type 11.
 *
 * <pre>
 * requestId i64 | segmentName UTF | delegationToken UTF
 * </pre>
 * Answered by {@link StreamSegmentInfo}, or {@link NoSuchSegment} for a missing segment.
 *
 * @param requestId echoed in the reply
 * @param segmentName the qualified segment name
 * @param delegationToken the controller's token ("" when auth is off)
 */
public record GetStreamSegmentInfo(long requestId, String segmentName, String delegationToken) implements Request {

    /** Checks the fields: the name is required; a null token is sent as "". */
    public GetStreamSegmentInfo {
        Objects.requireNonNull(segmentName, "segmentName");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.GET_STREAM_SEGMENT_INFO;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segmentName);
        out.writeUtf(delegationToken);
    }

    static GetStreamSegmentInfo readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segmentName = in.readUtf("segmentName");
        String token = in.readUtf("delegationToken");
        return new GetStreamSegmentInfo(requestId, segmentName, token);
    }

    @Override
    public String toString() {
        return "GetStreamSegmentInfo[requestId=" + requestId + ", segmentName=" + segmentName + "]";
    }
}
