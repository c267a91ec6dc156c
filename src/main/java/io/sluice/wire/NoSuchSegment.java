package io.sluice.wire;

import java.util.Objects;

/**
 * The segment does not exist (never created, deleted, or merged away). Wire type 53.
 *
 * <pre>
 * requestId i64 | segment UTF | serverStackTrace UTF (opt, "") | offset i64 (opt, −1)
 * </pre>
 *
 * @param requestId the failed request's id
 * @param segment the missing segment
 * @param serverStackTrace the server's explanation
 * @param offset the offset the request was about, −1 if none
 */
public record NoSuchSegment(long requestId, String segment, String serverStackTrace, long offset) implements ErrorReply {

    /** Null texts become "". */
    public NoSuchSegment {
        Objects.requireNonNull(segment, "segment");
        serverStackTrace = serverStackTrace == null ? "" : serverStackTrace;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.NO_SUCH_SEGMENT;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeUtf(serverStackTrace);
        out.writeLong(offset);
    }

    static NoSuchSegment readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        String trace = in.readUtfOr("serverStackTrace", "");
        long offset = in.readLongOr("offset", -1L);
        return new NoSuchSegment(requestId, segment, trace, offset);
    }
}
