package io.sluice.wire;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;

/**
 * Writes batches of events for one writer session straight into a {@link WireOutput}, without building
 * intermediate command objects. Two encodings, both accepted by every Pravega server:
 * <ul>
 *   <li>{@link #writeBlock}: {@code AppendBlock(writerId, events...)} + {@code AppendBlockEnd(sizeOfWholeEvents,
 *       no data)} — what the Java client sends for a batch it has in hand;</li>
 *   <li>{@link #writeBlockEndOnly}: one {@code AppendBlockEnd} whose data holds the framed events — what the
 *       Rust client sends.</li>
 * </ul>
 * Both produce the same appended bytes: each event as {@code [i32 0][i32 n][n bytes]}. Stateless.
 */
public final class AppendEncoder {
    /** Bytes an AppendBlock frame adds besides its data: header + writerId. */
    public static final int APPEND_BLOCK_OVERHEAD = WireProtocol.HEADER_SIZE + 16;
    /** Bytes an AppendBlockEnd frame adds besides its data. */
    public static final int APPEND_BLOCK_END_OVERHEAD = WireProtocol.HEADER_SIZE + 16 + 4 + 4 + 4 + 8 + 8;

    private AppendEncoder() {
    }

    /**
     * Writes {@code AppendBlock} + {@code AppendBlockEnd} carrying {@code events}.
     *
     * @param events the events' bytes, each from position to limit (positions do not move); at least one
     * @param lastEventNumber the event number of the last event
     * @param requestId the request id the acknowledgement will carry
     * @return the number of event bytes appended to the segment (framing included)
     * @throws IllegalArgumentException if there are no events or the block would exceed the frame limit
     */
    public static int writeBlock(WireOutput out, UUID writerId, List<ByteBuffer> events, long lastEventNumber,
                                 long requestId) {
        int framed = framedSize(events);
        if ((long) framed + APPEND_BLOCK_OVERHEAD > WireProtocol.MAX_WIRECOMMAND_SIZE) {
            throw new IllegalArgumentException("append block of " + framed + " bytes exceeds the frame limit");
        }
        out.ensure(APPEND_BLOCK_OVERHEAD + framed + APPEND_BLOCK_END_OVERHEAD);
        out.writeInt(WireCommandType.APPEND_BLOCK.code());
        out.writeInt(16 + framed);
        out.writeUuid(writerId);
        out.writeEventFrames(events, framed);
        writeBlockEndHeader(out, writerId, framed, 0);
        out.writeInt(events.size());
        out.writeLong(lastEventNumber);
        out.writeLong(requestId);
        return framed;
    }

    /**
     * Writes one {@code AppendBlockEnd} whose data holds {@code events}, framed.
     *
     * @return the number of event bytes appended to the segment (framing included)
     * @throws IllegalArgumentException if there are no events or the frame would exceed the limit
     */
    public static int writeBlockEndOnly(WireOutput out, UUID writerId, List<ByteBuffer> events, long lastEventNumber,
                                        long requestId) {
        int framed = framedSize(events);
        if ((long) framed + APPEND_BLOCK_END_OVERHEAD > WireProtocol.MAX_WIRECOMMAND_SIZE) {
            throw new IllegalArgumentException("append of " + framed + " bytes exceeds the frame limit");
        }
        out.ensure(framed + APPEND_BLOCK_END_OVERHEAD);
        writeBlockEndHeader(out, writerId, framed, framed);
        out.writeEventFrames(events, framed);
        out.writeInt(events.size());
        out.writeLong(lastEventNumber);
        out.writeLong(requestId);
        return framed;
    }

    private static int framedSize(List<ByteBuffer> events) {
        if (events.isEmpty()) {
            throw new IllegalArgumentException("an append needs at least one event");
        }
        long framed = 0;
        for (ByteBuffer e : events) {
            framed += Event.HEADER_SIZE + e.remaining();
        }
        if (framed > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("append of " + framed + " bytes exceeds the frame limit");
        }
        return (int) framed;
    }

    /** Writes AppendBlockEnd's header through the data length field; the caller writes data and the tail. */
    private static void writeBlockEndHeader(WireOutput out, UUID writerId, int sizeOfWholeEvents, int dataLength) {
        out.writeInt(WireCommandType.APPEND_BLOCK_END.code());
        out.writeInt(APPEND_BLOCK_END_OVERHEAD - WireProtocol.HEADER_SIZE + dataLength);
        out.writeUuid(writerId);
        out.writeInt(sizeOfWholeEvents);
        out.writeInt(dataLength);
    }
}
