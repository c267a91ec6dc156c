package io.sluice.wire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * A growable big-endian output buffer that commands write their fields into. Meant to be reused: a
 * connection keeps one, {@link #clear()}s it, encodes a batch of frames and writes {@link #buffer()} to the
 * socket in one call. Not thread-safe.
 */
public final class WireOutput {
    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private ByteBuffer buf;
    /** Where large headerless payloads go past the buffer, or null: see {@link #spillLargePayloadsTo}. */
    private Spill spill;

    /** A payload without headers at least this large goes straight to the {@link Spill}, if there is one. */
    public static final int SPILL_BYTES = 64 * 1024;

    /** The stream the buffer is written to, for payloads too large to be worth copying into the buffer first. */
    @FunctionalInterface
    public interface Spill {
        /**
         * Writes bytes out, in order after everything written to it before.
         *
         * @throws java.io.UncheckedIOException if the write failed
         */
        void write(byte[] bytes, int offset, int length);
    }

    /** Creates an output with a 4 KiB initial capacity. */
    public WireOutput() {
        this(4096);
    }

    /**
     * @param initialCapacity bytes to allocate up front
     */
    public WireOutput(int initialCapacity) {
        this.buf = ByteBuffer.allocate(Math.max(16, initialCapacity));
    }

    /**
     * Lets {@link #writeEventGroups} write a headerless payload of at least {@link #SPILL_BYTES} bytes straight to
     * {@code spill} instead of copying it into the buffer: it first writes what the buffer holds to {@code spill}
     * and clears it, then the payload. So the owner writes the buffer to the same stream, after the spilled bytes,
     * and must not rely on {@link #position()} across such a call.
     *
     * @param spill the stream the buffer is written to, or null to copy every payload
     */
    public void spillLargePayloadsTo(Spill spill) {
        this.spill = spill;
    }

    /** Forgets everything written; keeps the capacity. */
    public void clear() {
        buf.clear();
    }

    /** Moves the write position back to {@code position}, dropping what was written after it. */
    public void reset(int position) {
        buf.position(position);
    }

    /** @return the number of bytes written since the last {@link #clear()} */
    public int position() {
        return buf.position();
    }

    /**
     * @return a read-only view of the bytes written so far (position 0, limit = bytes written); valid until the
     *     next write or clear
     */
    public ByteBuffer buffer() {
        return buf.asReadOnlyBuffer().flip();
    }

    /** @return a copy of the bytes written so far */
    public byte[] toByteArray() {
        byte[] out = new byte[buf.position()];
        buf.get(0, out);
        return out;
    }

    /**
     * @return the bytes written so far without a copy when they fill the backing array exactly (size the output with
     *     {@link #WireOutput(int)} and {@link #utfBytes}), else a copy; the output must not be written to afterwards
     */
    public byte[] detach() {
        return buf.position() == buf.capacity() ? buf.array() : toByteArray();
    }

    /** @return the bytes {@link #writeUtf} writes for {@code s}: its length field and its modified UTF-8 */
    public static int utfBytes(String s) {
        return 2 + ModifiedUtf8.encodedLength(s == null ? "" : s);
    }

    /** @return the backing array (bytes 0 to {@link #position()} are valid) */
    public byte[] array() {
        return buf.array();
    }

    /** Makes room for {@code n} more bytes. */
    public void ensure(int n) {
        if (buf.remaining() < n) {
            long needed = (long) buf.position() + n;
            long grown = Math.max(needed, (long) buf.capacity() * 2);
            if (needed > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("wire output cannot grow beyond 2 GiB (asked for " + needed + " bytes)");
            }
            ByteBuffer bigger = ByteBuffer.allocate((int) Math.min(grown, Integer.MAX_VALUE - 16));
            buf.flip();
            bigger.put(buf);
            buf = bigger;
        }
    }

    /** Writes one byte. */
    public void writeByte(int v) {
        ensure(1);
        buf.put((byte) v);
    }

    /** Writes a boolean as one byte, 1 or 0. */
    public void writeBoolean(boolean v) {
        ensure(1);
        buf.put(v ? (byte) 1 : (byte) 0);
    }

    /** Writes a big-endian int32. */
    public void writeInt(int v) {
        ensure(Integer.BYTES);
        buf.putInt(v);
    }

    /** Overwrites the int32 at {@code index} (used to patch a length written before the body). */
    public void putInt(int index, int v) {
        buf.putInt(index, v);
    }

    /** Writes a big-endian int64. */
    public void writeLong(long v) {
        ensure(Long.BYTES);
        buf.putLong(v);
    }

    /** Writes a UUID as most- then least-significant int64. */
    public void writeUuid(UUID v) {
        ensure(2 * Long.BYTES);
        buf.putLong(v.getMostSignificantBits());
        buf.putLong(v.getLeastSignificantBits());
    }

    /** The longest string {@link #writeUtf} encodes, in bytes of modified UTF-8. */
    public static final int MAX_UTF_LENGTH = ModifiedUtf8.MAX_ENCODED_LENGTH;

    /** @return the bytes {@link #writeUtf} needs for {@code s} without its length prefix ({@code null} as "") */
    public static int utfLength(String s) {
        return s == null ? 0 : ModifiedUtf8.encodedLength(s);
    }

    /**
     * Writes a string as {@code DataOutput.writeUTF} does; {@code null} is written as the empty string, as
     * Pravega does for tokens and stack traces.
     *
     * @throws IllegalArgumentException if the encoded string is longer than 65535 bytes
     */
    public void writeUtf(String s) {
        String v = s == null ? "" : s;
        int len = ModifiedUtf8.encodedLength(v);
        if (len > ModifiedUtf8.MAX_ENCODED_LENGTH) {
            throw new IllegalArgumentException("string of " + len + " bytes is too long for the wire (max 65535): "
                    + v.substring(0, Math.min(40, v.length())) + "...");
        }
        ensure(2 + len);
        buf.putShort((short) len);
        ModifiedUtf8.encode(v, buf);
    }

    /** Writes the remaining bytes of {@code src} without a length (does not move {@code src}'s position). */
    public void writeBytes(ByteBuffer src) {
        int n = src.remaining();
        ensure(n);
        copy(src, n);
    }

    /** Copies {@code n} bytes of {@code src} at its position; room is already ensured. */
    private void copy(ByteBuffer src, int n) {
        int at = buf.position();
        if (src.hasArray()) {
            // arraycopy beats the bulk ByteBuffer copy for the small payloads most events are
            System.arraycopy(src.array(), src.arrayOffset() + src.position(), buf.array(), buf.arrayOffset() + at, n);
        } else {
            buf.put(at, src, src.position(), n);
        }
        buf.position(at + n);
    }

    /**
     * Writes one event frame {@code [i32 0][i32 n][n bytes]} — the hot path of every append, so it writes the header
     * straight into the backing array.
     */
    public void writeEventFrame(ByteBuffer payload) {
        int n = payload.remaining();
        ensure(8 + n);
        putEventFrame(buf.array(), buf.arrayOffset() + buf.position(), payload, n);
        buf.position(buf.position() + 8 + n);
    }

    /** Puts {@code [i32 0][i32 n][payload]} at {@code a[p]}; the payload's position does not move. */
    private static void putEventFrame(byte[] a, int p, ByteBuffer payload, int n) {
        INT_BE.set(a, p, 0);
        INT_BE.set(a, p + 4, n);
        if (payload.hasArray()) {
            System.arraycopy(payload.array(), payload.arrayOffset() + payload.position(), a, p + 8, n);
        } else {
            payload.get(payload.position(), a, p + 8, n);
        }
    }

    /**
     * Writes an event frame for each buffer of {@code payloads}, in order: the same bytes as
     * {@link #writeEventFrame} called for each, with one capacity check and one position update for the lot (an
     * append block's events are written in one pass over the backing array).
     *
     * @param payloads the events' bytes, each from position to limit (positions do not move)
     * @param framedBytes the bytes the frames take: the sum of {@code 8 + remaining()} over {@code payloads}
     * @throws IllegalArgumentException if {@code framedBytes} is not that sum
     */
    public void writeEventFrames(List<ByteBuffer> payloads, int framedBytes) {
        ensure(framedBytes);
        int base = buf.arrayOffset();
        int start = base + buf.position();
        int p = putEventFrames(buf.array(), start, start + framedBytes, payloads, framedBytes);
        buf.position(checkFramed(start, p, framedBytes) - base);
    }

    /**
     * Writes an event frame for every payload of every group, in order: {@link #writeEventFrames} over all the
     * groups in one pass, with one capacity check and one position update for the lot (a segment writer's block is
     * mostly groups of one event, so a pass per group would cost more than the copying).
     *
     * @param framedBytes the bytes the frames take: the sum of the groups' {@link AppendEncoder.EventGroup#framedSize}
     * @throws IllegalArgumentException if the payloads take another number of bytes; nothing is written then
     */
    public void writeEventGroups(List<? extends AppendEncoder.EventGroup> groups, int framedBytes) {
        if (spill != null && framedBytes >= SPILL_BYTES && spillsAny(groups)) {
            writeEventGroupsSpilling(groups, framedBytes);
            return;
        }
        ensure(framedBytes);
        byte[] a = buf.array();
        int base = buf.arrayOffset();
        int start = base + buf.position();
        int end = start + framedBytes;
        int p = start;
        for (int g = 0, groupCount = groups.size(); g < groupCount; g++) {
            AppendEncoder.EventGroup group = groups.get(g);
            p = group.headerless() ? putRaw(a, p, end, group.payloads(), framedBytes)
                    : putEventFrames(a, p, end, group.payloads(), framedBytes);
        }
        buf.position(checkFramed(start, p, framedBytes) - base);
    }

    private static boolean spillsAny(List<? extends AppendEncoder.EventGroup> groups) {
        for (AppendEncoder.EventGroup g : groups) {
            if (g.headerless()) {
                for (ByteBuffer p : g.payloads()) {
                    if (p.remaining() >= SPILL_BYTES && p.hasArray()) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** {@link #writeEventGroups} with the large headerless payloads written straight to the spill. */
    private void writeEventGroupsSpilling(List<? extends AppendEncoder.EventGroup> groups, int framedBytes) {
        long sum = 0;
        for (AppendEncoder.EventGroup g : groups) {
            for (ByteBuffer p : g.payloads()) {
                sum += (g.headerless() ? 0 : 8) + p.remaining();
            }
        }
        if (sum != framedBytes) { // checked first: nothing is written then
            throw new IllegalArgumentException("event frames take " + sum + " bytes, not the " + framedBytes
                    + " announced");
        }
        for (AppendEncoder.EventGroup g : groups) {
            for (ByteBuffer p : g.payloads()) {
                if (!g.headerless()) {
                    writeEventFrame(p);
                } else if (p.remaining() >= SPILL_BYTES && p.hasArray()) {
                    spill.write(buf.array(), buf.arrayOffset(), buf.position());
                    buf.clear();
                    spill.write(p.array(), p.arrayOffset() + p.position(), p.remaining());
                } else {
                    writeBytes(p);
                }
            }
        }
    }

    /** Puts the frames of {@code payloads} at {@code a[p]}, no further than {@code end}; returns where they end. */
    private static int putEventFrames(byte[] a, int p, int end, List<ByteBuffer> payloads, int framedBytes) {
        for (int i = 0, count = payloads.size(); i < count; i++) {
            ByteBuffer payload = payloads.get(i);
            int n = payload.remaining();
            if (n > end - p - 8) {
                throw new IllegalArgumentException("event frames take more than the " + framedBytes
                        + " bytes announced");
            }
            putEventFrame(a, p, payload, n);
            p += 8 + n;
        }
        return p;
    }

    /** Puts the bytes of {@code payloads} at {@code a[p]} without headers, no further than {@code end}. */
    private static int putRaw(byte[] a, int p, int end, List<ByteBuffer> payloads, int framedBytes) {
        for (int i = 0, count = payloads.size(); i < count; i++) {
            ByteBuffer payload = payloads.get(i);
            int n = payload.remaining();
            if (n > end - p) {
                throw new IllegalArgumentException("data takes more than the " + framedBytes + " bytes announced");
            }
            payload.get(payload.position(), a, p, n);
            p += n;
        }
        return p;
    }

    private static int checkFramed(int start, int p, int framedBytes) {
        if (p != start + framedBytes) {
            throw new IllegalArgumentException("event frames take " + (p - start) + " bytes, not the " + framedBytes
                    + " announced");
        }
        return p;
    }

    /** Writes {@code len} bytes of {@code src} starting at {@code off}. */
    public void writeBytes(byte[] src, int off, int len) {
        ensure(len);
        buf.put(src, off, len);
    }

    /** Writes an int32 length and then the remaining bytes of {@code src}. */
    public void writeBlob(ByteBuffer src) {
        int n = src.remaining();
        ensure(Integer.BYTES + n);
        buf.putInt(n);
        copy(src, n);
    }

    /** Writes {@code n} zero bytes. */
    public void writeZeros(int n) {
        ensure(n);
        int end = buf.position() + n;
        Arrays.fill(buf.array(), buf.arrayOffset() + buf.position(), buf.arrayOffset() + end, (byte) 0);
        buf.position(end);
    }
}
