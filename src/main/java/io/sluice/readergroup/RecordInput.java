package io.sluice.readergroup;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads what {@link RecordOutput} wrote, bounds-checking every read against the record: a short or damaged record
 * raises {@link IllegalArgumentException} naming the record and the field before anything sized by the input is
 * allocated. Not thread-safe.
 */
final class RecordInput {
    private final ByteBuffer buf;
    private final String record;

    /**
     * @param bytes the record, from its position to its limit; the position advances as fields are read
     * @param record what is being decoded, named in error messages
     */
    RecordInput(ByteBuffer bytes, String record) {
        this.buf = bytes.order(ByteOrder.BIG_ENDIAN);
        this.record = record;
    }

    /** @return the number of bytes not read yet */
    int remaining() {
        return buf.remaining();
    }

    /** @return true if at least {@code n} bytes are left */
    boolean has(int n) {
        return buf.remaining() >= n;
    }

    private void need(int n, String field) {
        if (buf.remaining() < n) {
            throw new IllegalArgumentException(record + "." + field + " needs " + n + " bytes but only "
                    + buf.remaining() + " remain");
        }
    }

    /** @return a signed byte */
    byte readByte(String field) {
        need(1, field);
        return buf.get();
    }

    /** @return a boolean: zero is false, anything else true (as {@code DataInput.readBoolean}) */
    boolean readBoolean(String field) {
        return readByte(field) != 0;
    }

    /** @return a big-endian int32 */
    int readInt(String field) {
        need(Integer.BYTES, field);
        return buf.getInt();
    }

    /** @return a big-endian int64 */
    long readLong(String field) {
        need(Long.BYTES, field);
        return buf.getLong();
    }

    /**
     * Reads a string written by {@code DataOutput.writeUTF}, accepting exactly what {@code DataInput.readUTF}
     * accepts: one-byte characters {@code 0xxxxxxx}, two-byte {@code 110xxxxx 10xxxxxx} and three-byte
     * {@code 1110xxxx 10xxxxxx 10xxxxxx} sequences; nothing else.
     */
    String readUtf(String field) {
        need(2, field);
        int length = Short.toUnsignedInt(buf.getShort());
        need(length, field);
        int start = buf.position();
        int end = start + length;
        char[] chars = new char[length];
        int n = 0;
        for (int p = start; p < end;) {
            int b = buf.get(p) & 0xFF;
            if (b < 0x80) {
                chars[n++] = (char) b;
                p++;
            } else if (b >> 5 == 0b110) {
                int b2 = continuation(p + 1, end, p - start, field);
                chars[n++] = (char) (((b & 0x1F) << 6) | (b2 & 0x3F));
                p += 2;
            } else if (b >> 4 == 0b1110) {
                int b2 = continuation(p + 1, end, p - start, field);
                int b3 = continuation(p + 2, end, p - start, field);
                chars[n++] = (char) (((b & 0x0F) << 12) | ((b2 & 0x3F) << 6) | (b3 & 0x3F));
                p += 3;
            } else {
                throw new IllegalArgumentException(record + "." + field + " is not modified UTF-8: byte 0x"
                        + Integer.toHexString(b) + " at " + (p - start) + " cannot start a character");
            }
        }
        buf.position(end);
        return new String(chars, 0, n);
    }

    /** @return the continuation byte at {@code p} of a character that starts at {@code at} in the string */
    private int continuation(int p, int end, int at, String field) {
        if (p >= end) {
            throw new IllegalArgumentException(record + "." + field + " is not modified UTF-8: the character at "
                    + at + " is cut off by the end of the string");
        }
        int b = buf.get(p) & 0xFF;
        if ((b & 0xC0) != 0x80) {
            throw new IllegalArgumentException(record + "." + field + " is not modified UTF-8: the character at "
                    + at + " has a bad continuation byte 0x" + Integer.toHexString(b));
        }
        return b;
    }
}
