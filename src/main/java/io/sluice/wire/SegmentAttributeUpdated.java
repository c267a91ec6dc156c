package io.sluice.wire;

/**
 * Outcome of an attribute compare-and-set, reply to {@link UpdateSegmentAttribute}. Wire type 37.
 *
 * <pre>
 * requestId i64 | success bool
 * </pre>
 *
 * @param requestId the request's id
 * @param success true if the value was stored, false if the attribute did not have the expected value
 */
public record SegmentAttributeUpdated(long requestId, boolean success) implements Reply {

    @Override
    public WireCommandType type() {
        return WireCommandType.SEGMENT_ATTRIBUTE_UPDATED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeBoolean(success);
    }

    static SegmentAttributeUpdated readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        boolean success = in.readBoolean("success");
        return new SegmentAttributeUpdated(requestId, success);
    }
}
