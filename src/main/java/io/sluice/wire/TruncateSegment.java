package io.sluice.wire;

import java.util.Objects;

/**
 * Discards a segment's data before an offset. Wire type 38.
 *
 * <pre>
 * requestId i64 | segment UTF | truncationOffset i64 | delegationToken UTF
 * </pre>
 * Answered by {@link SegmentTruncated}, or {@link SegmentIsTruncated} for an offset below the current start or
 * beyond the length.
 *
 * @param requestId echoed in the reply
 * @param segment the qualified segment name
 * @param truncationOffset the new start offset of the segment
 * @param delegationToken the controller's token ("" when auth is off)
 */
public record TruncateSegment(long requestId, String segment, long truncationOffset, String delegationToken)
        implements Request {

    /** Checks the fields: the name is required; a null token is sent as "". */
    public TruncateSegment {
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.TRUNCATE_SEGMENT;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeLong(truncationOffset);
        out.writeUtf(delegationToken);
    }

    static TruncateSegment readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        long truncationOffset = in.readLong("truncationOffset");
        String token = in.readUtf("delegationToken");
        return new TruncateSegment(requestId, segment, truncationOffset, token);
    }

    @Override
    public String toString() {
        return "TruncateSegment[requestId=" + requestId + ", segment=" + segment + ", truncationOffset="
                + truncationOffset + "]";
    }
}
