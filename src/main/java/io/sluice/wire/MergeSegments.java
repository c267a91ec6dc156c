package io.sluice.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Appends all of a source segment to a target segment and removes the source. Wire type 58.
 *
 * <pre>
 * requestId i64 | target UTF | source UTF | delegationToken UTF | count i32 (opt, absent = no updates)
 *               | ConditionalAttributeUpdate × count (33 bytes each)
 * </pre>
 * The count is always written, 0 for no updates; a payload that ends after the token (older clients) reads as an
 * empty list. The attribute updates apply to the target atomically with the merge. Answered by
 * {@link SegmentsMerged}, or {@link NoSuchSegment} if the source is gone (callers treat that as success).
 *
 * @param requestId echoed in the reply
 * @param target the segment that receives the data
 * @param source the segment merged into the target
 * @param delegationToken the controller's token ("" when auth is off)
 * @param attributeUpdates the attribute updates applied to the target with the merge (possibly empty)
 */
public record MergeSegments(long requestId, String target, String source, String delegationToken,
                            List<ConditionalAttributeUpdate> attributeUpdates) implements Request {

    /** Checks the fields: names and list are required; a null token is sent as ""; the list is copied. */
    public MergeSegments {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(source, "source");
        delegationToken = delegationToken == null ? "" : delegationToken;
        attributeUpdates = List.copyOf(Objects.requireNonNull(attributeUpdates, "attributeUpdates"));
    }

    /**
     * A merge without attribute updates.
     *
     * @param requestId echoed in the reply
     * @param target the segment that receives the data
     * @param source the segment merged into the target
     * @param delegationToken the controller's token ("" when auth is off)
     */
    public MergeSegments(long requestId, String target, String source, String delegationToken) {
        this(requestId, target, source, delegationToken, List.of());
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.MERGE_SEGMENTS;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(target);
        out.writeUtf(source);
        out.writeUtf(delegationToken);
        out.writeInt(attributeUpdates.size());
        for (ConditionalAttributeUpdate update : attributeUpdates) {
            update.writeFields(out);
        }
    }

    static MergeSegments readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String target = in.readUtf("target");
        String source = in.readUtf("source");
        String token = in.readUtf("delegationToken");
        if (!in.has(1)) {
            return new MergeSegments(requestId, target, source, token, List.of());
        }
        int count = in.readCount("attributeUpdates.count", ConditionalAttributeUpdate.LENGTH);
        List<ConditionalAttributeUpdate> updates = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            updates.add(ConditionalAttributeUpdate.readFrom(in));
        }
        return new MergeSegments(requestId, target, source, token, updates);
    }

    @Override
    public String toString() {
        return "MergeSegments[requestId=" + requestId + ", target=" + target + ", source=" + source
                + ", attributeUpdates=" + attributeUpdates + "]";
    }
}
