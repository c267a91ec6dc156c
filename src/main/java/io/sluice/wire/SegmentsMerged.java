package io.sluice.wire;

import java.util.Objects;

/**
 * The source segment was merged into the target, reply to {@link MergeSegments}. Wire type 59.
 *
 * <pre>
 * requestId i64 | target UTF | source UTF | newTargetWriteOffset i64 (opt, −1)
 * </pre>
 * As in Pravega, the offset counts as absent only when no byte follows the source; 1–7 trailing bytes are a
 * truncated field.
 *
 * @param requestId the request's id
 * @param target the segment that received the data
 * @param source the merged segment
 * @param newTargetWriteOffset the target's length after the merge, −1 if unknown
 */
public record SegmentsMerged(long requestId, String target, String source, long newTargetWriteOffset)
        implements Reply {

    /** Checks that the names are present. */
    public SegmentsMerged {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(source, "source");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.SEGMENTS_MERGED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(target);
        out.writeUtf(source);
        out.writeLong(newTargetWriteOffset);
    }

    static SegmentsMerged readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String target = in.readUtf("target");
        String source = in.readUtf("source");
        long offset = in.has(1) ? in.readLong("newTargetWriteOffset") : -1L;
        return new SegmentsMerged(requestId, target, source, offset);
    }
}
