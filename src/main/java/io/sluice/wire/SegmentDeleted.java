package io.sluice.wire;

import java.util.Objects;

/**
 * The segment was deleted, reply to {@link DeleteSegment} and {@link DeleteTableSegment}. Wire type 31.
 *
 * <pre>
 * requestId i64 | segment UTF
 * </pre>
 *
 * @param requestId the request's id
 * @param segment the deleted segment
 */
public record SegmentDeleted(long requestId, String segment) implements Reply {

    /** Checks that the name is present. */
    public SegmentDeleted {
        Objects.requireNonNull(segment, "segment");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.SEGMENT_DELETED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
    }

    static SegmentDeleted readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        return new SegmentDeleted(requestId, segment);
    }
}
