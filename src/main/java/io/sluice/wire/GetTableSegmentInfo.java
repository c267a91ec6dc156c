package io.sluice.wire;

import java.util.Objects;

/**
 * Asks for a table segment's size and entry count. Wire type 68.
 *
 * <pre>
 * requestId i64 | segmentName UTF | delegationToken UTF
 * </pre>
 * Answered by {@link TableSegmentInfo}, or {@link NoSuchSegment}.
 *
 * @param requestId echoed in the reply
 * @param segmentName the table segment
 * @param delegationToken the controller's token ("" when auth is off)
 */
public record GetTableSegmentInfo(long requestId, String segmentName, String delegationToken) implements Request {

    /** Checks that the name is present; a null token is sent as "". */
    public GetTableSegmentInfo {
        Objects.requireNonNull(segmentName, "segmentName");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.GET_TABLE_SEGMENT_INFO;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segmentName);
        out.writeUtf(delegationToken);
    }

    static GetTableSegmentInfo readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segmentName = in.readUtf("segmentName");
        String token = in.readUtf("delegationToken");
        return new GetTableSegmentInfo(requestId, segmentName, token);
    }

    @Override
    public String toString() {
        return "GetTableSegmentInfo[requestId=" + requestId + ", segmentName=" + segmentName + "]";
    }
}
