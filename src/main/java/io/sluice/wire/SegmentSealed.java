package io.sluice.wire;

import java.util.Objects;

/**
 * The segment is now sealed, reply to {@link SealSegment}. Wire type 29.
 *
 * <pre>
 * requestId i64 | segment UTF
 * </pre>
 *
 * @param requestId the request's id
 * @param segment the sealed segment
 */
public record SegmentSealed(long requestId, String segment) implements Reply {

    /** Checks that the name is present. */
    public SegmentSealed {
        Objects.requireNonNull(segment, "segment");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.SEGMENT_SEALED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
    }

    static SegmentSealed readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        return new SegmentSealed(requestId, segment);
    }
}
