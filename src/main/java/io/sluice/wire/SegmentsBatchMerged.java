package io.sluice.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The source segments were merged into the target, reply to {@link MergeSegmentsBatch}. Wire type 91.
 *
 * <pre>
 * requestId i64 | target UTF | count i32 | (source UTF | newTargetWriteOffset i64) × count
 * </pre>
 *
 * @param requestId the request's id
 * @param target the segment that received the data
 * @param sources the merged segments
 * @param newTargetWriteOffset for each source (same index), an offset of the target at or after the end of that
 *     source's data
 */
public record SegmentsBatchMerged(long requestId, String target, List<String> sources, List<Long> newTargetWriteOffset)
        implements Reply {

    /** Checks the fields: both lists are required, copied, and must have the same size. */
    public SegmentsBatchMerged {
        Objects.requireNonNull(target, "target");
        sources = List.copyOf(Objects.requireNonNull(sources, "sources"));
        newTargetWriteOffset = List.copyOf(Objects.requireNonNull(newTargetWriteOffset, "newTargetWriteOffset"));
        if (sources.size() != newTargetWriteOffset.size()) {
            throw new IllegalArgumentException("SegmentsBatchMerged needs one offset per source: " + sources.size()
                    + " sources but " + newTargetWriteOffset.size() + " offsets");
        }
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.SEGMENTS_BATCH_MERGED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(target);
        out.writeInt(sources.size());
        for (int i = 0; i < sources.size(); i++) {
            out.writeUtf(sources.get(i));
            out.writeLong(newTargetWriteOffset.get(i));
        }
    }

    static SegmentsBatchMerged readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String target = in.readUtf("target");
        int count = in.readCount("sources.count", 2 + Long.BYTES);
        List<String> sources = new ArrayList<>(count);
        List<Long> offsets = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            sources.add(in.readUtf("sources"));
            offsets.add(in.readLong("newTargetWriteOffset"));
        }
        return new SegmentsBatchMerged(requestId, target, sources, offsets);
    }
}
