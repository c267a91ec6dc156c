package io.sluice.wire;

/**
 * An attribute's value, reply to {@link GetSegmentAttribute}. Wire type 35.
 *
 * <pre>
 * requestId i64 | value i64
 * </pre>
 *
 * @param requestId the request's id
 * @param value the attribute's value; {@link WireProtocol#NULL_ATTRIBUTE_VALUE} ({@code Long.MIN_VALUE}) if unset
 */
public record SegmentAttribute(long requestId, long value) implements Reply {

    @Override
    public WireCommandType type() {
        return WireCommandType.SEGMENT_ATTRIBUTE;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeLong(value);
    }

    static SegmentAttribute readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        long value = in.readLong("value");
        return new SegmentAttribute(requestId, value);
    }
}
