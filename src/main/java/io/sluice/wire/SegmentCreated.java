package io.sluice.wire;

import java.util.Objects;

/**
 * The segment was created: reply to {@link CreateSegment}, {@link CreateTableSegment} and
 * {@link CreateTransientSegment}. Wire type 21.
 *
 * <pre>
 * requestId i64 | segment UTF
 * </pre>
 *
 * @param requestId the request's id
 * @param segment the created segment (for a transient segment, the name the server generated)
 */
public record SegmentCreated(long requestId, String segment) implements Reply {

    /** Checks that the name is present. */
    public SegmentCreated {
        Objects.requireNonNull(segment, "segment");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.SEGMENT_CREATED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
    }

    static SegmentCreated readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        return new SegmentCreated(requestId, segment);
    }
}
