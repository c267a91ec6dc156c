package io.sluice.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.function.Consumer;

import io.sluice.wire.InvalidWireCommandException.Problem;

/**
 * Events as they are stored in a segment and carried in append data: {@code [i32 0][i32 n][n bytes]} each.
 * The static methods are stateless and thread-safe; a {@link Reassembler} (what segment readers parse with) is
 * neither.
 */
public final class EventFrames {

    private EventFrames() {
    }

    /** @return the framed size of an event of {@code n} bytes */
    public static int framedSize(int n) {
        return Event.HEADER_SIZE + n;
    }

    /**
     * Hands every complete event in {@code data} to {@code sink}, in order, without copying or allocating per event:
     * the sink receives one reused read-only view whose position and limit frame the current event. The view is
     * valid only during the call; use {@code slice()} (no copy) or copy the bytes to keep an event.
     * A trailing incomplete event is left alone: the return value says where it starts.
     *
     * @param data segment bytes starting at an event boundary (its position does not move)
     * @param sink receives each event's bytes
     * @return the number of bytes of {@code data} consumed by complete events
     * @throws InvalidWireCommandException if a frame header is not an EVENT header or has a negative length
     */
    public static int forEach(ByteBuffer data, Consumer<ByteBuffer> sink) {
        return scan(data, sink, true);
    }

    /**
     * Like {@link #forEach} (same reused view), but stops quietly at the first frame that is not an EVENT (e.g. the PADDING or
     * PARTIAL_EVENT that ends an append block) instead of rejecting it.
     *
     * @return the number of bytes consumed by the leading complete events
     * @throws InvalidWireCommandException if an EVENT header has a negative length
     */
    public static int forEachLeading(ByteBuffer data, Consumer<ByteBuffer> sink) {
        return scan(data, sink, false);
    }

    private static int scan(ByteBuffer data, Consumer<ByteBuffer> sink, boolean strict) {
        ByteBuffer b = data.duplicate().order(ByteOrder.BIG_ENDIAN);
        ByteBuffer view = data.isReadOnly() ? data.duplicate() : data.asReadOnlyBuffer();
        int start = b.position();
        int p = start;
        int end = b.limit();
        while (end - p >= Event.HEADER_SIZE) {
            int type = b.getInt(p);
            int len = b.getInt(p + Integer.BYTES);
            if (type != WireCommandType.EVENT.code()) {
                if (!strict) {
                    break;
                }
                throw new InvalidWireCommandException(Problem.INVALID_FIELD, "expected an EVENT frame at byte "
                        + (p - start) + " but found type code " + type);
            }
            if (len < 0) {
                throw new InvalidWireCommandException(Problem.NEGATIVE_LENGTH, "EVENT frame at byte " + (p - start)
                        + " has negative length " + len);
            }
            if ((long) end - p - Event.HEADER_SIZE < len) {
                break;
            }
            view.limit(p + Event.HEADER_SIZE + len).position(p + Event.HEADER_SIZE);
            sink.accept(view);
            p += Event.HEADER_SIZE + len;
        }
        return p - start;
    }

    /**
     * Counts the complete events in {@code data}.
     *
     * @return the number of complete events
     */
    public static int count(ByteBuffer data) {
        int[] n = new int[1];
        forEach(data, e -> n[0]++);
        return n[0];
    }

    /**
     * Takes whole events out of segment data that arrives in pieces — the data of successive reads, added in segment
     * order — and joins an event split between pieces. Every event a segment reader hands out comes out of
     * {@link #take()}. Each event is checked before its bytes are awaited: its header must be an EVENT header with a
     * length from 0 to the reassembler's maximum, so bytes that hold no event are reported as soon as their header is
     * here rather than waited on. An event whose bytes come in several pieces is joined into an array of its own as
     * they arrive (each piece copied once and let go), so an event larger than a read costs about its own size.
     *
     * <pre>{@code
     * Reassembler events = new Reassembler(startOffset, maxEventBytes);
     * events.add(read.data());                 // for each read, in order
     * for (ByteBuffer e; (e = events.take()) != null; ) { ... }
     * }</pre>
     *
     * <p>Not thread-safe: its owner guards it (a segment reader, under its lock). Never blocks, does no I/O.
     */
    public static final class Reassembler {
        /** Data added and not yet taken, in order; none is empty. */
        private final ArrayDeque<ByteBuffer> chunks = new ArrayDeque<>();
        private final int maxEventBytes;
        /** Segment offset of the next event's first byte (its header). */
        private long offset;
        /** Bytes added and not taken: in {@link #chunks}, plus the header and the assembled bytes of an assembly. */
        private int buffered;
        /**
         * The body of the next event while it is being joined from pieces (its header already taken out of
         * {@link #chunks}); {@code null} if none. Pieces added meanwhile are copied in and let go, so an event larger
         * than one piece costs its own size and not twice that. Bytes past it stay in {@link #chunks}.
         */
        private byte[] assembly;
        /** How many bytes of {@link #assembly} are filled. */
        private int assembled;

        /**
         * @param offset the segment offset of the first byte that will be added (an event boundary)
         * @param maxEventBytes the largest event body accepted; a longer length in a header is not an event's
         * @throws IllegalArgumentException if {@code offset} or {@code maxEventBytes} is negative
         */
        public Reassembler(long offset, int maxEventBytes) {
            if (offset < 0 || maxEventBytes < 0) {
                throw new IllegalArgumentException("offset and maxEventBytes must not be negative: " + offset + ", "
                        + maxEventBytes);
            }
            this.offset = offset;
            this.maxEventBytes = maxEventBytes;
        }

        /**
         * Adds the next piece of data: the bytes from its position to its limit, which follow the ones added before.
         * Not copied: the caller must not change them; its position and limit do not move.
         *
         * @throws IllegalStateException if more than 2 GiB would be buffered
         */
        public void add(ByteBuffer data) {
            int n = data.remaining();
            if (n == 0) {
                return;
            }
            if (n > Integer.MAX_VALUE - buffered) {
                throw new IllegalStateException("cannot buffer " + n + " more bytes after " + buffered);
            }
            ByteBuffer view = data.isReadOnly() ? data.duplicate() : data.asReadOnlyBuffer();
            buffered += n;
            if (assembly != null && assembled < assembly.length) {
                int k = Math.min(n, assembly.length - assembled);
                view.get(view.position(), assembly, assembled, k);
                assembled += k;
                if (k == n) {
                    return;
                }
                view.position(view.position() + k);
            }
            chunks.add(view.order(ByteOrder.BIG_ENDIAN));
            if (assembly == null) {
                startAssembly();
            }
        }

        /**
         * If the next event is not complete and its bytes are spread over more than one piece, starts joining them
         * into one array now: the pieces are copied in and dropped, and later ones are copied as they come.
         */
        private void startAssembly() {
            if (chunks.size() < 2 || buffered < Event.HEADER_SIZE) {
                return;
            }
            int type = headerInt(0);
            int length = headerInt(Integer.BYTES);
            if (!isEventHeader(type, length) || buffered - Event.HEADER_SIZE >= length) {
                return; // not an event (take() reports it), or complete (take() joins it)
            }
            byte[] body = new byte[length];
            dropFront(Event.HEADER_SIZE);
            int filled = 0;
            while (!chunks.isEmpty()) {
                ByteBuffer c = chunks.poll();
                int k = c.remaining();
                c.get(c.position(), body, filled, k);
                filled += k;
            }
            assembly = body;
            assembled = filled;
        }

        /** @return the segment offset of the next event to be taken (of the first byte not taken) */
        public long offset() {
            return offset;
        }

        /** @return the bytes added and not taken yet */
        public int buffered() {
            return buffered;
        }

        /**
         * @return true if {@link #take()} would return an event or throw (the next header is here and is not an
         *     event's), false if it would return {@code null}
         */
        public boolean ready() {
            if (assembly != null) {
                return assembled == assembly.length;
            }
            if (buffered < Event.HEADER_SIZE) {
                return false;
            }
            int length = headerInt(Integer.BYTES);
            return !isEventHeader(headerInt(0), length) || buffered - Event.HEADER_SIZE >= length;
        }

        /**
         * @return how many more bytes the next event needs to be complete: 0 if it is, or its header is not here
         *     yet, or the header is not an event's
         */
        public int missing() {
            if (assembly != null) {
                return assembly.length - assembled;
            }
            if (buffered < Event.HEADER_SIZE) {
                return 0;
            }
            int length = headerInt(Integer.BYTES);
            if (!isEventHeader(headerInt(0), length)) {
                return 0;
            }
            return (int) Math.max(0, Event.HEADER_SIZE + (long) length - buffered);
        }

        /**
         * Takes the next event if all of it is here. Its bytes are a read-only slice of the data added (not copied),
         * or, for an event split between pieces, a read-only buffer of its own.
         *
         * @return the event's body, or {@code null} if it is not complete yet
         * @throws InvalidWireCommandException if the next header is not an EVENT header with a length from 0 to the
         *     maximum (nothing is taken: {@link #clear()} to go on)
         */
        public ByteBuffer take() {
            if (assembly != null) {
                if (assembled < assembly.length) {
                    return null;
                }
                ByteBuffer body = ByteBuffer.wrap(assembly).asReadOnlyBuffer();
                int framed = Event.HEADER_SIZE + assembly.length;
                assembly = null;
                assembled = 0;
                buffered -= framed;
                offset += framed;
                return body;
            }
            if (buffered < Event.HEADER_SIZE) {
                return null;
            }
            int type = headerInt(0);
            int length = headerInt(Integer.BYTES);
            if (!isEventHeader(type, length)) {
                throw notAnEvent(type, length);
            }
            if (buffered - Event.HEADER_SIZE < length) {
                return null;
            }
            ByteBuffer head = chunks.peek();
            if (head.remaining() - Event.HEADER_SIZE >= length) {
                // the usual case: the whole event lies in one piece
                int at = head.position() + Event.HEADER_SIZE;
                ByteBuffer body = head.slice(at, length);
                head.position(at + length);
                if (!head.hasRemaining()) {
                    chunks.poll();
                }
                buffered -= Event.HEADER_SIZE + length;
                offset += Event.HEADER_SIZE + length;
                startAssembly();
                return body;
            }
            skip(Event.HEADER_SIZE);
            byte[] joined = new byte[length];
            int done = 0;
            while (done < length) {
                ByteBuffer c = chunks.peek();
                int n = Math.min(c.remaining(), length - done);
                c.get(c.position(), joined, done, n);
                done += n;
                skip(n);
            }
            startAssembly();
            return ByteBuffer.wrap(joined).asReadOnlyBuffer();
        }

        /** Drops everything buffered, e.g. after {@link #take()} found no event; the offset stays where it is. */
        public void clear() {
            chunks.clear();
            assembly = null;
            assembled = 0;
            buffered = 0;
        }

        private boolean isEventHeader(int type, int length) {
            return type == WireCommandType.EVENT.code() && length >= 0 && length <= maxEventBytes;
        }

        private InvalidWireCommandException notAnEvent(int type, int length) {
            String found = "type code " + type + ", length " + length;
            if (type != WireCommandType.EVENT.code()) {
                return new InvalidWireCommandException(Problem.INVALID_FIELD, "expected an EVENT header at offset "
                        + offset + " but found " + found);
            }
            if (length < 0) {
                return new InvalidWireCommandException(Problem.NEGATIVE_LENGTH, "EVENT header at offset " + offset
                        + " has negative length " + length);
            }
            return new InvalidWireCommandException(Problem.OVERSIZED_LENGTH, "EVENT header at offset " + offset
                    + " announces " + length + " bytes, more than the largest event (" + maxEventBytes + " bytes)");
        }

        /**
         * With at least {@code at + 4} bytes buffered: the big-endian int {@code at} bytes into the buffered data.
         * Headers almost always lie in the first piece; only one split between pieces walks them.
         */
        private int headerInt(int at) {
            ByteBuffer first = chunks.peek();
            if (first.remaining() - Integer.BYTES >= at) {
                return first.getInt(first.position() + at);
            }
            int v = 0;
            int got = 0;
            int skip = at;
            for (ByteBuffer c : chunks) {
                int n = c.remaining();
                while (got < Integer.BYTES && skip < n) {
                    v = (v << 8) | (c.get(c.position() + skip) & 0xFF);
                    skip++;
                    got++;
                }
                if (got == Integer.BYTES) {
                    return v;
                }
                skip = Math.max(0, skip - n);
            }
            throw new IllegalStateException("header read past the buffered data");
        }

        /** Drops {@code n} bytes from the front of {@link #chunks}, leaving the counts alone. */
        private void dropFront(int n) {
            int left = n;
            while (left > 0) {
                ByteBuffer c = chunks.peek();
                int take = Math.min(left, c.remaining());
                c.position(c.position() + take);
                if (!c.hasRemaining()) {
                    chunks.poll();
                }
                left -= take;
            }
        }

        /** Drops {@code n} buffered bytes from the front. */
        private void skip(int n) {
            dropFront(n);
            buffered -= n;
            offset += n;
        }
    }
}
