package io.sluice.wire;

import java.util.Objects;

/**
 * The segment's scaling policy was changed, reply to {@link UpdateSegmentPolicy}. Wire type 33.
 *
 * <pre>
 * requestId i64 | segment UTF
 * </pre>
 *
 * @param requestId the request's id
 * @param segment the segment
 */
public record SegmentPolicyUpdated(long requestId, String segment) implements Reply {

    /** Checks that the name is present. */
    public SegmentPolicyUpdated {
        Objects.requireNonNull(segment, "segment");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.SEGMENT_POLICY_UPDATED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
    }

    static SegmentPolicyUpdated readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        return new SegmentPolicyUpdated(requestId, segment);
    }
}
