package io.sluice.wire;

import java.util.Objects;

/**
 * The segment is not owned by the segment store that was asked: look its endpoint up again and reconnect.
 * Wire type 50.
 *
 * <pre>
 * requestId i64 | segment UTF | correctHost UTF | serverStackTrace UTF (opt, "")
 * </pre>
 * A real server always sends {@code correctHost = ""}; the client asks the controller instead.
 *
 * @param requestId the failed request's id
 * @param segment the segment that was asked for
 * @param correctHost the owner's address if the server knew it ("" in practice)
 * @param serverStackTrace the server's explanation
 */
public record WrongHost(long requestId, String segment, String correctHost, String serverStackTrace)
        implements ErrorReply {

    /** Checks that the names are present; a null stack trace becomes "". */
    public WrongHost {
        Objects.requireNonNull(segment, "segment");
        Objects.requireNonNull(correctHost, "correctHost");
        serverStackTrace = serverStackTrace == null ? "" : serverStackTrace;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.WRONG_HOST;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeUtf(correctHost);
        out.writeUtf(serverStackTrace);
    }

    static WrongHost readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        String correctHost = in.readUtf("correctHost");
        String trace = in.readUtfOr("serverStackTrace", "");
        return new WrongHost(requestId, segment, correctHost, trace);
    }
}
