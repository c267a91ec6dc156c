package io.sluice.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import io.sluice.wire.InvalidWireCommandException.Problem;

/**
 * Turns the append commands of one connection into whole appends, exactly as a Pravega segment store does
 * (docs/protocol.md §5). Feed it every request of the connection, in order:
 * <ul>
 *   <li>{@link SetupAppend} registers the writer on this connection (the caller still answers it);</li>
 *   <li>{@link AppendBlock} opens a block, which only the same writer's {@link AppendBlockEnd} may close;</li>
 *   <li>{@link AppendBlockEnd}, {@link ConditionalAppend} and {@link ConditionalBlockEnd} complete an {@link Append};</li>
 *   <li>a top-level {@link Padding} is skipped; any other command is not an append and yields {@code null}.</li>
 * </ul>
 * The bytes of an append are {@code block[0, sizeOfWholeEvents) ++ partialEvent ++ blockEnd.data}, or just
 * {@code blockEnd.data} without a block; they are views of the commands' buffers unless a split event has to be
 * joined. Event framing inside the data is never parsed: the server appends opaque bytes.
 *
 * <p>Protocol violations raise {@link InvalidWireCommandException} ({@link Problem#INVALID_APPEND}); the
 * connection must then be closed. One instance per connection; not thread-safe.
 */
public final class AppendStreamDecoder {

    /**
     * One append, ready to be written to its segment.
     *
     * @param segment the segment the writer set up on this connection
     * @param writerId the writer
     * @param eventNumber the event number of the append's last event
     * @param eventCount how many events the append holds
     * @param data the bytes to append (read-only)
     * @param expectedOffset for a conditional append, the segment length it requires; {@link #UNCONDITIONAL} otherwise
     * @param requestId the request id to echo in the acknowledgement
     */
    public record Append(String segment, UUID writerId, long eventNumber, int eventCount, ByteBuffer data,
                         long expectedOffset, long requestId) {
        /** {@code expectedOffset} of an append that has no condition. */
        public static final long UNCONDITIONAL = Long.MIN_VALUE;

        /** @param data not copied */
        public Append {
            Objects.requireNonNull(segment, "segment");
            Objects.requireNonNull(writerId, "writerId");
            data = Bytes.view(data, "data");
        }

        @Override
        public ByteBuffer data() {
            return data.duplicate();
        }

        /** @return true if the append only applies at {@link #expectedOffset()} */
        public boolean conditional() {
            return expectedOffset != UNCONDITIONAL;
        }

        @Override
        public String toString() {
            return "Append[segment=" + segment + ", writerId=" + writerId + ", eventNumber=" + eventNumber
                    + ", eventCount=" + eventCount + ", data=" + Bytes.describe(data) + ", expectedOffset="
                    + expectedOffset + ", requestId=" + requestId + "]";
        }
    }

    private static final class Session {
        final String segment;
        long lastEventNumber = Long.MIN_VALUE;

        Session(String segment) {
            this.segment = segment;
        }
    }

    private final Map<UUID, Session> sessions = new HashMap<>();
    private AppendBlock openBlock;

    /** @return true while an {@link AppendBlock} waits for its {@link AppendBlockEnd} */
    public boolean blockOpen() {
        return openBlock != null;
    }

    /**
     * @return the segment the writer set up on this connection, or {@code null}
     */
    public String segmentOf(UUID writerId) {
        Session s = sessions.get(writerId);
        return s == null ? null : s.segment;
    }

    /**
     * Forgets a writer (for instance after its segment was sealed), so its next append is rejected until it
     * sets up again.
     */
    public void forget(UUID writerId) {
        sessions.remove(writerId);
    }

    /**
     * Feeds the next request of the connection.
     *
     * @return the append the request completes, or {@code null} (a non-append request, a SetupAppend, an opened
     *     block or a skipped padding)
     * @throws InvalidWireCommandException if the request breaks the append-stream rules
     */
    public Append accept(Request request) {
        if (openBlock != null && !(request instanceof AppendBlockEnd) && isAppendCommand(request)) {
            UUID blockWriter = openBlock.writerId();
            openBlock = null;
            throw violation(request.type() + " arrived while the AppendBlock of writer " + blockWriter
                    + " was still open");
        }
        return switch (request) {
            case SetupAppend s -> {
                sessions.put(s.writerId(), new Session(s.segment()));
                yield null;
            }
            case Padding p -> null;
            case PartialEvent p -> throw violation("PARTIAL_EVENT is only valid inside an AppendBlock");
            case AppendBlock b -> {
                session(b.writerId(), b.type());
                openBlock = b;
                yield null;
            }
            case AppendBlockEnd e -> blockEnd(e);
            case ConditionalAppend c -> {
                Session s = advance(c.writerId(), c.eventNumber(), c.type());
                ByteBuffer framed = framed(c.event());
                yield new Append(s.segment, c.writerId(), c.eventNumber(), 1, framed, c.expectedOffset(), c.requestId());
            }
            case ConditionalBlockEnd c -> {
                Session s = advance(c.writerId(), c.eventNumber(), c.type());
                yield new Append(s.segment, c.writerId(), c.eventNumber(), 1, c.data(), c.expectedOffset(), c.requestId());
            }
            default -> null;
        };
    }

    private static boolean isAppendCommand(Request r) {
        return r instanceof SetupAppend || r instanceof Padding || r instanceof PartialEvent || r instanceof AppendBlock
                || r instanceof ConditionalAppend || r instanceof ConditionalBlockEnd;
    }

    private Append blockEnd(AppendBlockEnd end) {
        AppendBlock block = openBlock;
        openBlock = null;
        if (end.numEvents() <= 0) {
            throw violation("AppendBlockEnd of writer " + end.writerId() + " has numEvents " + end.numEvents());
        }
        Session s = advance(end.writerId(), end.lastEventNumber(), end.type());
        ByteBuffer data;
        if (block == null) {
            data = end.data();
        } else {
            if (!block.writerId().equals(end.writerId())) {
                throw violation("AppendBlockEnd of writer " + end.writerId() + " closes the block of writer "
                        + block.writerId());
            }
            data = joinBlock(block.data(), end);
        }
        return new Append(s.segment, end.writerId(), end.lastEventNumber(), end.numEvents(), data,
                Append.UNCONDITIONAL, end.requestId());
    }

    private static ByteBuffer joinBlock(ByteBuffer block, AppendBlockEnd end) {
        int whole = end.sizeOfWholeEvents();
        int blockLength = block.remaining();
        if (whole < 0 || whole > blockLength) {
            throw violation("sizeOfWholeEvents " + whole + " is outside the block of " + blockLength + " bytes");
        }
        ByteBuffer wholeEvents = block.slice(0, whole);
        int rest = blockLength - whole;
        if (rest == 0) {
            return concat(wholeEvents, Bytes.EMPTY, end.data());
        }
        if (rest < WireProtocol.HEADER_SIZE) {
            throw violation(rest + " stray bytes follow the whole events of the block");
        }
        ByteBuffer tail = block.slice(whole, rest).order(ByteOrder.BIG_ENDIAN);
        int type = tail.getInt(0);
        int length = tail.getInt(Integer.BYTES);
        if (length != rest - WireProtocol.HEADER_SIZE) {
            throw violation("the frame ending the block declares " + length + " bytes but " + (rest - WireProtocol.HEADER_SIZE)
                    + " remain");
        }
        if (type == WireCommandType.PADDING.code()) {
            if (end.data().hasRemaining()) {
                throw violation("AppendBlockEnd carries data after a block that ended with padding");
            }
            return wholeEvents;
        }
        if (type == WireCommandType.PARTIAL_EVENT.code()) {
            return concat(wholeEvents, tail.slice(WireProtocol.HEADER_SIZE, length), end.data());
        }
        throw violation("the block ends with type code " + type + " where PADDING or PARTIAL_EVENT was expected");
    }

    private static ByteBuffer concat(ByteBuffer a, ByteBuffer b, ByteBuffer c) {
        if (!b.hasRemaining() && !c.hasRemaining()) {
            return a;
        }
        if (!a.hasRemaining() && !b.hasRemaining()) {
            return c;
        }
        ByteBuffer joined = ByteBuffer.allocate(a.remaining() + b.remaining() + c.remaining());
        joined.put(a.duplicate()).put(b.duplicate()).put(c.duplicate());
        return joined.flip();
    }

    private static ByteBuffer framed(Event event) {
        ByteBuffer data = event.data();
        ByteBuffer framed = ByteBuffer.allocate(Event.HEADER_SIZE + data.remaining());
        framed.putInt(WireCommandType.EVENT.code()).putInt(data.remaining()).put(data);
        return framed.flip();
    }

    private Session session(UUID writerId, WireCommandType what) {
        Session s = sessions.get(writerId);
        if (s == null) {
            throw violation(what + " for writer " + writerId + " that did not send SetupAppend on this connection");
        }
        return s;
    }

    private Session advance(UUID writerId, long eventNumber, WireCommandType what) {
        Session s = session(writerId, what);
        if (eventNumber < s.lastEventNumber) {
            throw violation(what + " of writer " + writerId + " on " + s.segment + ": event number went backwards from "
                    + s.lastEventNumber + " to " + eventNumber);
        }
        s.lastEventNumber = eventNumber;
        return s;
    }

    private static InvalidWireCommandException violation(String message) {
        return new InvalidWireCommandException(Problem.INVALID_APPEND, message);
    }
}
