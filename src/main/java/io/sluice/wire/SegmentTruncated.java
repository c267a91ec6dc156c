package io.sluice.wire;

import java.util.Objects;

/**
 * The segment was truncated, reply to {@link TruncateSegment}. Wire type 39.
 *
 * <pre>
 * requestId i64 | segment UTF
 * </pre>
 *
 * @param requestId the request's id
 * @param segment the truncated segment
 */
public record SegmentTruncated(long requestId, String segment) implements Reply {

    /** Checks that the name is present. */
    public SegmentTruncated {
        Objects.requireNonNull(segment, "segment");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.SEGMENT_TRUNCATED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
    }

    static SegmentTruncated readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        return new SegmentTruncated(requestId, segment);
    }
}
