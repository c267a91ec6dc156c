package io.sluice.wire;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * The framed bytes of one or more events ({@code [i32 0][i32 n][n bytes]} each, concatenated) cut into pieces of at
 * most {@link #PIECE_BYTES}, each sent as one {@link ConditionalBlockEnd} — how a large event travels to its
 * transient segment (wire-protocol.md §5.6). The events are not copied here: each piece is encoded straight from
 * the payloads into the output, so the only copy of a piece is the one in the connection's buffer.
 *
 * <p>Immutable; the payloads must not change while pieces are written. Thread-safe.
 */
public final class LargeEventPieces {
    /** The most data one piece carries: 8 MiB, as Pravega's Java client cuts a large event. */
    public static final int PIECE_BYTES = 8 * 1024 * 1024;
    /** Frame bytes of a {@code ConditionalBlockEnd} around its data: header, writer id, numbers, length, request id. */
    public static final int OVERHEAD = WireProtocol.HEADER_SIZE + 16 + 8 + 8 + 4 + 8;

    private final List<ByteBuffer> payloads;
    private final long framedBytes;

    /**
     * @param payloads the events, in order (not copied; their positions and limits frame them)
     * @throws IllegalArgumentException if there is none
     */
    public LargeEventPieces(List<ByteBuffer> payloads) {
        Objects.requireNonNull(payloads, "payloads");
        if (payloads.isEmpty()) {
            throw new IllegalArgumentException("a large write needs at least one event");
        }
        this.payloads = payloads.stream().map(ByteBuffer::asReadOnlyBuffer).toList();
        long total = 0;
        for (ByteBuffer p : this.payloads) {
            total += Event.HEADER_SIZE + (long) p.remaining();
        }
        this.framedBytes = total;
    }

    /** @return the framed size of all the events: what the segment grows by */
    public long framedBytes() {
        return framedBytes;
    }

    /** @return how many pieces the events take */
    public int count() {
        return (int) ((framedBytes + PIECE_BYTES - 1) / PIECE_BYTES);
    }

    /** @return the offset of piece {@code i} in the framed bytes (its {@code expectedOffset} on a fresh segment) */
    public long offsetOf(int i) {
        return (long) i * PIECE_BYTES;
    }

    /** @return the number of data bytes piece {@code i} carries */
    public int lengthOf(int i) {
        checkIndex(i);
        return (int) Math.min(PIECE_BYTES, framedBytes - offsetOf(i));
    }

    /**
     * Writes piece {@code i} as one whole {@code ConditionalBlockEnd} frame: event number {@code i}, expected offset
     * {@link #offsetOf(int) offsetOf(i)}.
     *
     * @param out where the frame goes
     * @param writerId the writer set up on the transient segment
     * @param i the piece, from 0
     * @param requestId the frame's request id
     */
    public void writePiece(WireOutput out, UUID writerId, int i, long requestId) {
        int length = lengthOf(i);
        out.ensure(OVERHEAD + length);
        out.writeInt(WireCommandType.CONDITIONAL_BLOCK_END.code());
        out.writeInt(OVERHEAD - WireProtocol.HEADER_SIZE + length);
        out.writeUuid(writerId);
        out.writeLong(i);
        out.writeLong(offsetOf(i));
        out.writeInt(length);
        writeRange(out, offsetOf(i), length);
        out.writeLong(requestId);
    }

    /** @return piece {@code i} as a request (its data copied once): for tests and tools, not the write path */
    public ConditionalBlockEnd piece(UUID writerId, int i, long requestId) {
        WireOutput data = new WireOutput(lengthOf(i));
        writeRange(data, offsetOf(i), lengthOf(i));
        return new ConditionalBlockEnd(writerId, i, offsetOf(i), data.buffer(), requestId);
    }

    /** Writes the framed bytes {@code [from, from + length)}. */
    private void writeRange(WireOutput out, long from, int length) {
        long start = 0;
        long end = from + length;
        byte[] header = new byte[Event.HEADER_SIZE];
        for (ByteBuffer p : payloads) {
            if (start >= end) {
                return;
            }
            long bodyStart = start + Event.HEADER_SIZE;
            long frameEnd = bodyStart + p.remaining();
            if (frameEnd > from) {
                if (bodyStart > from) {
                    // some of the header lies in the range
                    ByteBuffer.wrap(header).putInt(0, WireCommandType.EVENT.code()).putInt(4, p.remaining());
                    int a = (int) Math.max(0, from - start);
                    int b = (int) Math.min(Event.HEADER_SIZE, end - start);
                    out.writeBytes(header, a, b - a);
                }
                long a = Math.max(from, bodyStart) - bodyStart;
                long b = Math.min(end, frameEnd) - bodyStart;
                if (b > a) {
                    out.writeBytes(p.slice(p.position() + (int) a, (int) (b - a)));
                }
            }
            start = frameEnd;
        }
    }

    private void checkIndex(int i) {
        if (i < 0 || i >= count()) {
            throw new IndexOutOfBoundsException("piece " + i + " of " + count());
        }
    }
}
