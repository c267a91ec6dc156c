package io.sluice.wire;

import java.util.Objects;

/**
 * The event boundary found for a {@link LocateOffset} (since wire version 17). Wire type 42.
 *
 * <pre>
 * requestId i64 | segment UTF | offset i64
 * </pre>
 *
 * @param requestId the request's id
 * @param segment the segment
 * @param offset the nearest event boundary at or after the target offset (the segment's length if there is none)
 */
public record OffsetLocated(long requestId, String segment, long offset) implements Reply {

    /** Checks that the name is present. */
    public OffsetLocated {
        Objects.requireNonNull(segment, "segment");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.OFFSET_LOCATED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeLong(offset);
    }

    static OffsetLocated readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        long offset = in.readLong("offset");
        return new OffsetLocated(requestId, segment, offset);
    }
}
