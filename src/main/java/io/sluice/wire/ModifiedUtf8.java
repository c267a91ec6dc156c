package io.sluice.wire;

import java.nio.ByteBuffer;

import io.sluice.wire.InvalidWireCommandException.Problem;

/**
 * Java's "modified UTF-8" as {@code DataOutput.writeUTF} writes and {@code DataInput.readUTF} reads it: NUL is
 * {@code C0 80}, characters outside the BMP are two 3-byte surrogates, and 4-byte sequences are rejected.
 */
final class ModifiedUtf8 {
    /** Longest encoded string {@code writeUTF} allows. */
    static final int MAX_ENCODED_LENGTH = 0xFFFF;

    private ModifiedUtf8() {
    }

    /** @return the number of bytes {@code s} takes in modified UTF-8 (without the 2-byte length prefix) */
    static int encodedLength(String s) {
        int len = s.length();
        int bytes = len;
        for (int i = 0; i < len; i++) {
            char c = s.charAt(i);
            if (c >= 0x80 || c == 0) {
                bytes += (c >= 0x800) ? 2 : 1;
            }
        }
        return bytes;
    }

    /** Encodes {@code s} into {@code out} (which must have {@code encodedLength(s)} bytes free). */
    static void encode(String s, ByteBuffer out) {
        int len = s.length();
        int i = 0;
        if (out.hasArray()) {
            // fast path for the common all-ASCII prefix
            byte[] a = out.array();
            int p = out.arrayOffset() + out.position();
            for (; i < len; i++) {
                char c = s.charAt(i);
                if (c == 0 || c >= 0x80) {
                    break;
                }
                a[p++] = (byte) c;
            }
            out.position(p - out.arrayOffset());
        }
        for (; i < len; i++) {
            char c = s.charAt(i);
            if (c != 0 && c < 0x80) {
                out.put((byte) c);
            } else if (c < 0x800) {
                out.put((byte) (0xC0 | (c >> 6)));
                out.put((byte) (0x80 | (c & 0x3F)));
            } else {
                out.put((byte) (0xE0 | (c >> 12)));
                out.put((byte) (0x80 | ((c >> 6) & 0x3F)));
                out.put((byte) (0x80 | (c & 0x3F)));
            }
        }
    }

    /**
     * Decodes {@code len} bytes from {@code in} (already bounds-checked by the caller).
     *
     * @throws InvalidWireCommandException with {@link Problem#INVALID_UTF} on any sequence readUTF rejects
     */
    static String decode(ByteBuffer in, int len, String command, String field) {
        int start = in.position();
        int end = start + len;
        char[] chars = new char[len];
        int n = 0;
        int p = start;
        while (p < end) {
            int b = in.get(p) & 0xFF;
            if (b < 0x80) {
                chars[n++] = (char) b;
                p++;
            } else if ((b >> 5) == 0b110) {
                if (p + 1 >= end) {
                    throw bad(command, field, p - start, "2-byte sequence cut off by the end of the string");
                }
                int b2 = in.get(p + 1) & 0xFF;
                if ((b2 & 0xC0) != 0x80) {
                    throw bad(command, field, p - start, "bad continuation byte 0x" + Integer.toHexString(b2));
                }
                chars[n++] = (char) (((b & 0x1F) << 6) | (b2 & 0x3F));
                p += 2;
            } else if ((b >> 4) == 0b1110) {
                if (p + 2 >= end) {
                    throw bad(command, field, p - start, "3-byte sequence cut off by the end of the string");
                }
                int b2 = in.get(p + 1) & 0xFF;
                int b3 = in.get(p + 2) & 0xFF;
                if ((b2 & 0xC0) != 0x80 || (b3 & 0xC0) != 0x80) {
                    throw bad(command, field, p - start, "bad continuation byte in 3-byte sequence");
                }
                chars[n++] = (char) (((b & 0x0F) << 12) | ((b2 & 0x3F) << 6) | (b3 & 0x3F));
                p += 3;
            } else {
                throw bad(command, field, p - start, "byte 0x" + Integer.toHexString(b) + " cannot start a character");
            }
        }
        in.position(end);
        return new String(chars, 0, n);
    }

    private static InvalidWireCommandException bad(String command, String field, int at, String why) {
        return new InvalidWireCommandException(Problem.INVALID_UTF, command + "." + field + " at byte " + at + ": " + why);
    }
}
