package io.sluice.wire;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;

/**
 * Writes batches of events for one writer session straight into a {@link WireOutput}, without building
 * intermediate command objects. Two encodings, both accepted by every Pravega server:
 * <ul>
 *   <li>{@link #writeGroups} and {@link #writeBlock}: {@code AppendBlock(writerId, events...)} +
 *       {@code AppendBlockEnd(sizeOfWholeEvents, no data)} — what the Java client sends for a batch it has in hand,
 *       and what Sluice's segment writer sends;</li>
 *   <li>{@link #writeBlockEndOnly}: one {@code AppendBlockEnd} whose data holds the framed events — what the
 *       Rust client sends.</li>
 * </ul>
 * Both produce the same appended bytes: each event as {@code [i32 0][i32 n][n bytes]}. Payload bytes are copied once,
 * from the caller's buffers into the output. Stateless and thread-safe (a {@link WireOutput} is not).
 */
public final class AppendEncoder {
    /** Bytes an AppendBlock frame adds besides its data: header + writerId. */
    public static final int APPEND_BLOCK_OVERHEAD = WireProtocol.HEADER_SIZE + 16;
    /** Bytes an AppendBlockEnd frame adds besides its data. */
    public static final int APPEND_BLOCK_END_OVERHEAD = WireProtocol.HEADER_SIZE + 16 + 4 + 4 + 4 + 8 + 8;

    /**
     * Events a writer appends together, in order: one event, or several that must land atomically. The encoder reads
     * the payloads from position to limit without moving them; both methods must keep answering the same while the
     * group is being encoded.
     */
    public interface EventGroup {
        /** @return the events' bytes, each from position to limit; at least one */
        List<ByteBuffer> payloads();

        /**
         * @return the bytes the events take in the segment: the sum of {@code 8 + remaining()} over
         *     {@link #payloads()}, or of {@code remaining()} alone when {@link #headerless()}
         */
        int framedSize();

        /**
         * @return true if the payloads are appended as they are, without event headers (a byte stream's data, as
         *     Pravega's {@code PendingEvent.withoutHeader}); false (the default) for events
         */
        default boolean headerless() {
            return false;
        }
    }

    private AppendEncoder() {
    }

    /**
     * The size of the {@code AppendBlock} + {@code AppendBlockEnd} that {@link #writeGroups} and {@link #writeBlock}
     * write for events taking {@code framedEventBytes} framed.
     *
     * @param framedEventBytes the events' bytes with their 8-byte headers (e.g. {@link EventGroup#framedSize()})
     * @return the bytes of both frames, headers included
     * @throws IllegalArgumentException if {@code framedEventBytes} is negative
     */
    public static int blockSize(int framedEventBytes) {
        if (framedEventBytes < 0) {
            throw new IllegalArgumentException("framedEventBytes must not be negative: " + framedEventBytes);
        }
        return APPEND_BLOCK_OVERHEAD + framedEventBytes + APPEND_BLOCK_END_OVERHEAD;
    }

    /**
     * Writes {@code AppendBlock} + {@code AppendBlockEnd} carrying every event of {@code groups}, in order: the
     * encoding of a segment writer's block. {@code AppendBlockEnd.numEvents} counts events, not groups. If it throws,
     * nothing is left written in {@code out}.
     *
     * @param groups the groups, in order; at least one event in all
     * @param lastEventNumber the event number of the last event
     * @param requestId the request id the acknowledgement will carry
     * @return the number of event bytes appended to the segment (framing included)
     * @throws IllegalArgumentException if there are no events, the block would exceed the frame limit, or a group's
     *     {@link EventGroup#framedSize()}s do not add up to what the payloads take
     */
    public static int writeGroups(WireOutput out, UUID writerId, List<? extends EventGroup> groups,
                                  long lastEventNumber, long requestId) {
        long framedSum = 0;
        int count = 0;
        for (int i = 0, n = groups.size(); i < n; i++) {
            EventGroup g = groups.get(i);
            framedSum += g.framedSize();
            count += g.payloads().size();
        }
        if (count == 0) {
            throw new IllegalArgumentException("an append needs at least one event");
        }
        int framed = checkBlock(framedSum);
        int start = out.position();
        try {
            out.ensure(blockSize(framed));
            writeBlockHeader(out, writerId, framed);
            out.writeEventGroups(groups, framed);
            writeBlockEnd(out, writerId, framed, count, lastEventNumber, requestId);
        } catch (IllegalArgumentException e) {
            out.reset(start);
            throw e;
        }
        return framed;
    }

    /**
     * Writes {@code AppendBlock} + {@code AppendBlockEnd} carrying {@code events}: {@link #writeGroups} with the
     * events as one group.
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
        return writeGroups(out, writerId, List.of(new Group(events, framed)), lastEventNumber, requestId);
    }

    /**
     * Writes one {@code AppendBlockEnd} whose data holds {@code events}, framed.
     *
     * @param events the events' bytes, each from position to limit (positions do not move); at least one
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
        writeBlockEndTail(out, events.size(), lastEventNumber, requestId);
        return framed;
    }

    /** The events of {@link #writeBlock}, with their framed size computed once. */
    private record Group(List<ByteBuffer> payloads, int framedSize) implements EventGroup {
    }

    private static int framedSize(List<ByteBuffer> events) {
        if (events.isEmpty()) {
            throw new IllegalArgumentException("an append needs at least one event");
        }
        long framed = 0;
        for (ByteBuffer e : events) {
            framed += EventFrames.framedSize(e.remaining());
        }
        if (framed > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("append of " + framed + " bytes exceeds the frame limit");
        }
        return (int) framed;
    }

    /** @return {@code framed} as an int, if an AppendBlock can carry that many event bytes */
    private static int checkBlock(long framed) {
        if (framed < 0 || framed + APPEND_BLOCK_OVERHEAD > WireProtocol.MAX_WIRECOMMAND_SIZE) {
            throw new IllegalArgumentException("append block of " + framed + " bytes exceeds the frame limit");
        }
        return (int) framed;
    }

    /** Writes AppendBlock's header and writer id; its data, the framed events, follows. */
    private static void writeBlockHeader(WireOutput out, UUID writerId, int framed) {
        out.writeInt(WireCommandType.APPEND_BLOCK.code());
        out.writeInt(APPEND_BLOCK_OVERHEAD - WireProtocol.HEADER_SIZE + framed);
        out.writeUuid(writerId);
    }

    /** Writes the AppendBlockEnd that closes a block of {@code framed} event bytes; it carries no data. */
    private static void writeBlockEnd(WireOutput out, UUID writerId, int framed, int count, long lastEventNumber,
                                      long requestId) {
        writeBlockEndHeader(out, writerId, framed, 0);
        writeBlockEndTail(out, count, lastEventNumber, requestId);
    }

    /** Writes AppendBlockEnd's header through the data length field; the caller writes data and the tail. */
    private static void writeBlockEndHeader(WireOutput out, UUID writerId, int sizeOfWholeEvents, int dataLength) {
        out.writeInt(WireCommandType.APPEND_BLOCK_END.code());
        out.writeInt(APPEND_BLOCK_END_OVERHEAD - WireProtocol.HEADER_SIZE + dataLength);
        out.writeUuid(writerId);
        out.writeInt(sizeOfWholeEvents);
        out.writeInt(dataLength);
    }

    /** Writes AppendBlockEnd's fields after its data. */
    private static void writeBlockEndTail(WireOutput out, int count, long lastEventNumber, long requestId) {
        out.writeInt(count);
        out.writeLong(lastEventNumber);
        out.writeLong(requestId);
    }
}
