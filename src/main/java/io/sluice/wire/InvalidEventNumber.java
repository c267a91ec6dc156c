package io.sluice.wire;

import java.util.Objects;
import java.util.UUID;

/**
 * An append's event number did not follow the writer's last stored one (the append-path compare-and-set failed);
 * the server closes the connection after sending it. Wire type 55.
 *
 * <p>The layout changed incompatibly at wire version 16:
 * <pre>
 * v16 and later: writerId UUID | requestId i64 | serverStackTrace UTF (opt, "") | eventNumber i64 (opt, −1)
 * v15 and older: writerId UUID | eventNumber i64 | serverStackTrace UTF
 * </pre>
 * Pravega 0.13 sends v16; Pravega 0.12 and older and pravega-client-rust 0.3.7 send (and expect) v15.
 * {@link #writeFields} writes v16, or v15 when {@code legacyLayout} is set (the requestId is then not sent).
 *
 * <p>Nothing in the payload names its layout, so the reader tells them apart by shape. After the UUID and the
 * first i64:
 * <ul>
 *   <li>payload ends: v16 with defaults (the i64 is the requestId, trace "", eventNumber −1) — v15 writers always
 *       sent the trace, so only a v16 writer omitting its optional fields produces this;</li>
 *   <li>otherwise a UTF is read; then if at least 8 bytes remain it is v16 (the first i64 was the requestId, the
 *       next i64 is the eventNumber, anything after it is ignored);</li>
 *   <li>if fewer than 8 bytes remain it is v15: the first i64 was the eventNumber, {@code requestId = −1},
 *       {@code legacyLayout = true}.</li>
 * </ul>
 * The rule misreads two shapes no known peer sends: a v16 payload with a trace but without its eventNumber (read as
 * v15), and a v15 payload followed by 8 or more unknown trailing bytes (read as v16).
 *
 * @param writerId the writer whose append was rejected
 * @param requestId the request id of the rejected append; −1 in the v15 layout, which does not carry it
 * @param serverStackTrace the server's explanation
 * @param eventNumber the rejected event number; −1 if a v16 sender left it out
 * @param legacyLayout true to write (and true when read from) the v15 layout
 */
public record InvalidEventNumber(UUID writerId, long requestId, String serverStackTrace, long eventNumber,
                                 boolean legacyLayout) implements ErrorReply {

    /**
     * Checks the writer id; a null stack trace becomes "".
     *
     * @throws IllegalArgumentException if {@code legacyLayout} is set with a requestId other than −1 (the v15
     *     layout cannot carry it)
     */
    public InvalidEventNumber {
        Objects.requireNonNull(writerId, "writerId");
        serverStackTrace = serverStackTrace == null ? "" : serverStackTrace;
        if (legacyLayout && requestId != -1L) {
            throw new IllegalArgumentException("the v15 layout of InvalidEventNumber has no requestId, got "
                    + requestId);
        }
    }

    /**
     * @param writerId the writer whose append was rejected
     * @param eventNumber the rejected event number
     * @param serverStackTrace the server's explanation
     * @return a reply in the v15 layout (for peers of wire version 15 or older), with requestId −1
     */
    public static InvalidEventNumber legacy(UUID writerId, long eventNumber, String serverStackTrace) {
        return new InvalidEventNumber(writerId, -1L, serverStackTrace, eventNumber, true);
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.INVALID_EVENT_NUMBER;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeUuid(writerId);
        if (legacyLayout) {
            out.writeLong(eventNumber);
            out.writeUtf(serverStackTrace);
        } else {
            out.writeLong(requestId);
            out.writeUtf(serverStackTrace);
            out.writeLong(eventNumber);
        }
    }

    static InvalidEventNumber readFrom(WireInput in) {
        UUID writerId = in.readUuid("writerId");
        long first = in.readLong("requestId");
        if (!in.has(1)) {
            return new InvalidEventNumber(writerId, first, "", -1L, false);
        }
        String trace = in.readUtf("serverStackTrace");
        if (in.has(Long.BYTES)) {
            long eventNumber = in.readLong("eventNumber");
            return new InvalidEventNumber(writerId, first, trace, eventNumber, false);
        }
        return legacy(writerId, first, trace);
    }
}
