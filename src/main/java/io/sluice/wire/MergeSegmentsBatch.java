package io.sluice.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Merges several source segments, in order, into one target segment. Wire type 90.
 *
 * <pre>
 * requestId i64 | targetSegmentId UTF | count i32 | source UTF × count | delegationToken UTF
 * </pre>
 * Note the token comes after the list. Answered by {@link SegmentsBatchMerged}.
 *
 * @param requestId echoed in the reply
 * @param targetSegmentId the segment that receives the data
 * @param sourceSegmentIds the segments merged into the target, in merge order
 * @param delegationToken the controller's token ("" when auth is off)
 */
public record MergeSegmentsBatch(long requestId, String targetSegmentId, List<String> sourceSegmentIds,
                                 String delegationToken) implements Request {

    /** Checks the fields: names and list are required; a null token is sent as ""; the list is copied. */
    public MergeSegmentsBatch {
        Objects.requireNonNull(targetSegmentId, "targetSegmentId");
        sourceSegmentIds = List.copyOf(Objects.requireNonNull(sourceSegmentIds, "sourceSegmentIds"));
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.MERGE_SEGMENTS_BATCH;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(targetSegmentId);
        out.writeInt(sourceSegmentIds.size());
        for (String source : sourceSegmentIds) {
            out.writeUtf(source);
        }
        out.writeUtf(delegationToken);
    }

    static MergeSegmentsBatch readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String target = in.readUtf("targetSegmentId");
        int count = in.readCount("sourceSegmentIds.count", 2);
        List<String> sources = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            sources.add(in.readUtf("sourceSegmentIds"));
        }
        String token = in.readUtf("delegationToken");
        return new MergeSegmentsBatch(requestId, target, sources, token);
    }

    @Override
    public String toString() {
        return "MergeSegmentsBatch[requestId=" + requestId + ", targetSegmentId=" + targetSegmentId
                + ", sourceSegmentIds=" + sourceSegmentIds + "]";
    }
}
