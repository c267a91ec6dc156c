package io.sluice.wire;

import java.util.Objects;

/**
 * The segment is sealed: nothing more can be appended to it, and a parked tail read will get no more data.
 * Wire type 51.
 *
 * <pre>
 * requestId i64 | segment UTF | serverStackTrace UTF (opt, "") | offset i64 (opt, −1)
 * </pre>
 * On the append path {@code offset} carries the rejected append's event number; on the read path, the read offset.
 *
 * @param requestId the failed request's id
 * @param segment the sealed segment
 * @param serverStackTrace the server's explanation
 * @param offset the read offset, or the event number of the rejected append; −1 if none
 */
public record SegmentIsSealed(long requestId, String segment, String serverStackTrace, long offset)
        implements ErrorReply {

    /** Checks that the name is present; a null stack trace becomes "". */
    public SegmentIsSealed {
        Objects.requireNonNull(segment, "segment");
        serverStackTrace = serverStackTrace == null ? "" : serverStackTrace;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.SEGMENT_IS_SEALED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeUtf(serverStackTrace);
        out.writeLong(offset);
    }

    static SegmentIsSealed readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        String trace = in.readUtfOr("serverStackTrace", "");
        long offset = in.readLongOr("offset", -1L);
        return new SegmentIsSealed(requestId, segment, trace, offset);
    }
}
