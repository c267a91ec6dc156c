package io.sluice.storage;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The write-log file format (one file per log version, {@code <version, 20 digits>.log}).
 *
 * <pre>
 * file   := header record*
 * header := magic:int32 "SLWL" (0x534C574C)  formatVersion:int32 (1)                      8 bytes
 * record := length:int32  crc:int32  payload:byte[length]                                 8 + length bytes
 *
 *  0        4        8                       8 + length
 *  +--------+--------+-----------------------+
 *  | length |  crc   | payload ...           |
 *  +--------+--------+-----------------------+
 * </pre>
 *
 * All integers are big-endian. {@code length} is 0..{@value #MAX_MESSAGE_BYTES}; {@code crc} is the CRC32C of
 * the four {@code length} bytes followed by the payload, so a damaged length fails the check too (and a zeroed
 * region never passes it). A record that extends past the end of the file, has a bad length or fails its check
 * ends the readable log: it and everything after it are a torn tail, which recovery truncates. The byte offset of a
 * record is its position: the first record is at offset {@value #HEADER_BYTES}.
 */
final class LogFormat {
    /** "SLWL". */
    static final int MAGIC = 0x534C574C;
    /** The only format version so far. */
    static final int FORMAT_VERSION = 1;
    /** Bytes before the first record. */
    static final int HEADER_BYTES = 8;
    /** Bytes of a record besides its payload. */
    static final int RECORD_OVERHEAD = 8;
    /** Largest message, in bytes (64 MiB). */
    static final int MAX_MESSAGE_BYTES = 64 << 20;
    /** File name suffix of a log. */
    static final String SUFFIX = ".log";

    private LogFormat() {
    }

    /** @return the file header */
    static ByteBuffer header() {
        return ByteBuffer.allocate(HEADER_BYTES).putInt(MAGIC).putInt(FORMAT_VERSION).flip();
    }

    /**
     * Frames a message as one record (this is where appenders spend their CPU, in parallel).
     *
     * @return the record, ready to write
     * @throws IllegalArgumentException if the message is too long
     */
    static ByteBuffer encode(byte[] msg) {
        checkLength(msg.length);
        ByteBuffer record = ByteBuffer.allocate(RECORD_OVERHEAD + msg.length);
        record.putInt(msg.length).putInt(crc(msg.length, msg, 0, msg.length)).put(msg);
        return record.flip();
    }

    static void checkLength(int length) {
        if (length > MAX_MESSAGE_BYTES) {
            throw new IllegalArgumentException("message of " + length + " bytes is longer than the limit of "
                    + MAX_MESSAGE_BYTES + " bytes");
        }
    }

    /** @return the CRC32C of the four big-endian bytes of {@code length} followed by the payload bytes */
    static int crc(int length, byte[] payload, int offset, int count) {
        CRC32C crc = new CRC32C();
        crc.update(length >>> 24);
        crc.update(length >>> 16);
        crc.update(length >>> 8);
        crc.update(length);
        crc.update(payload, offset, count);
        return (int) crc.getValue();
    }

    /** @return the size a record of {@code payloadBytes} takes in a log */
    static long recordBytes(int payloadBytes) {
        return RECORD_OVERHEAD + (long) payloadBytes;
    }

    /** @return the file name of log {@code version} */
    static String fileName(long version) {
        return String.format("%020d%s", version, SUFFIX);
    }

    /**
     * @return the version a file name stands for, or -1 if it is not a log file name
     */
    static long parseVersion(String fileName, String suffix) {
        if (!fileName.endsWith(suffix) || fileName.length() != 20 + suffix.length()) {
            return -1;
        }
        long version = 0;
        for (int i = 0; i < 20; i++) {
            char c = fileName.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            version = version * 10 + (c - '0');
            if (version < 0) {
                return -1;
            }
        }
        return version;
    }
}
