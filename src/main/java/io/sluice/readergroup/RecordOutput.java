package io.sluice.readergroup;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A growable big-endian byte buffer that {@link GroupStateCodec} writes its records into: the primitives of
 * {@code java.io.DataOutput} it needs (same bytes), plus unsigned LEB128 varints. Not thread-safe.
 */
final class RecordOutput {
    /** The longest string {@link #writeUtf} encodes, in bytes of modified UTF-8. */
    static final int MAX_UTF_BYTES = 0xFFFF;

    private byte[] bytes;
    private int size;

    /** @param initialCapacity bytes to allocate up front */
    RecordOutput(int initialCapacity) {
        this.bytes = new byte[Math.max(16, initialCapacity)];
    }

    /** @return the number of bytes written */
    int size() {
        return size;
    }

    private void ensure(int n) {
        if (bytes.length - size < n) {
            long needed = (long) size + n;
            if (needed > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("a reader group record cannot grow beyond 2 GiB (asked for "
                        + needed + " bytes)");
            }
            bytes = Arrays.copyOf(bytes, (int) Math.min(Math.max(needed, 2L * bytes.length), Integer.MAX_VALUE - 16));
        }
    }

    /** Writes the low eight bits of {@code v}. */
    void writeByte(int v) {
        ensure(1);
        bytes[size++] = (byte) v;
    }

    /** Writes a boolean as one byte, 1 or 0. */
    void writeBoolean(boolean v) {
        writeByte(v ? 1 : 0);
    }

    /** Writes a big-endian int32. */
    void writeInt(int v) {
        ensure(Integer.BYTES);
        for (int shift = 24; shift >= 0; shift -= 8) {
            bytes[size++] = (byte) (v >>> shift);
        }
    }

    /** Writes a big-endian int64. */
    void writeLong(long v) {
        ensure(Long.BYTES);
        for (int shift = 56; shift >= 0; shift -= 8) {
            bytes[size++] = (byte) (v >>> shift);
        }
    }

    /**
     * Writes {@code v} as an unsigned LEB128 varint: seven bits a byte, least significant first, the high bit set on
     * every byte but the last. A negative {@code v} takes ten bytes (callers that must not write one check first).
     */
    void writeVarlong(long v) {
        while ((v & ~0x7FL) != 0) {
            writeByte((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        writeByte((int) v);
    }

    /**
     * Writes a string as {@code DataOutput.writeUTF} does: an unsigned 16-bit byte count, then Java's modified UTF-8
     * (NUL as {@code C0 80}, a character outside the BMP as its two surrogates of three bytes each).
     *
     * @throws IllegalArgumentException if the encoded string is longer than {@value #MAX_UTF_BYTES} bytes
     */
    void writeUtf(String s) {
        int length = s.length();
        int encoded = length;
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (c == 0 || c >= 0x80) {
                encoded += c >= 0x800 ? 2 : 1;
            }
        }
        if (encoded > MAX_UTF_BYTES) {
            throw new IllegalArgumentException("a string of " + encoded + " bytes is too long for the reader group "
                    + "state (at most " + MAX_UTF_BYTES + "): " + s.substring(0, Math.min(40, length)) + "...");
        }
        ensure(2 + encoded);
        bytes[size++] = (byte) (encoded >>> 8);
        bytes[size++] = (byte) encoded;
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (c != 0 && c < 0x80) {
                bytes[size++] = (byte) c;
            } else if (c < 0x800) {
                bytes[size++] = (byte) (0xC0 | (c >> 6));
                bytes[size++] = (byte) (0x80 | (c & 0x3F));
            } else {
                bytes[size++] = (byte) (0xE0 | (c >> 12));
                bytes[size++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                bytes[size++] = (byte) (0x80 | (c & 0x3F));
            }
        }
    }

    /** Appends everything {@code other} holds. */
    void write(RecordOutput other) {
        ensure(other.size);
        System.arraycopy(other.bytes, 0, bytes, size, other.size);
        size += other.size;
    }

    /** @return a read-only view of the bytes written (position 0, limit the size); valid until the next write */
    ByteBuffer buffer() {
        return ByteBuffer.wrap(bytes, 0, size).asReadOnlyBuffer();
    }
}
