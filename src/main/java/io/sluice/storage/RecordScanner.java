package io.sluice.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Reads {@link LogFormat} records from a file channel with positional reads (so it never moves the channel's
 * position and may share a channel with a writer), up to a limit that may grow between calls. Tells why it
 * stopped. Not thread-safe.
 */
final class RecordScanner {
    /** The readable length of the file. */
    @FunctionalInterface
    interface Limit {
        /**
         * @return how many bytes of the file may be read now
         * @throws IOException if it cannot be determined
         */
        long length() throws IOException;
    }

    /** Why {@link #next()} returned null. */
    enum Stop {
        /** Clean end: the next record would start at the limit. */
        END,
        /** Fewer bytes before the limit than the record needs. */
        SHORT,
        /** The length field is out of range. */
        BAD_LENGTH,
        /** The checksum does not match. */
        BAD_CHECKSUM
    }

    private static final int WINDOW_BYTES = 64 * 1024;

    private final FileChannel channel;
    private final Limit limit;
    private final ByteBuffer window = ByteBuffer.allocate(WINDOW_BYTES);
    private long windowStart = -1;
    private long position;
    private Stop stop;

    /**
     * @param position offset of the first record to read
     * @param limit the readable length of the file, asked before each record
     */
    RecordScanner(FileChannel channel, long position, Limit limit) {
        this.channel = channel;
        this.position = position;
        this.limit = limit;
        window.limit(0);
    }

    /** @return the offset of the next record */
    long position() {
        return position;
    }

    /** @return why the last {@link #next()} returned null, or null if it returned a message */
    Stop stop() {
        return stop;
    }

    /**
     * @return the next complete, checksummed message, or null (see {@link #stop()})
     * @throws IOException if reading fails
     */
    byte[] next() throws IOException {
        long lim = limit.length();
        if (position >= lim) {
            stop = Stop.END;
            return null;
        }
        if (!cover(position, LogFormat.RECORD_OVERHEAD, lim)) {
            stop = Stop.SHORT;
            return null;
        }
        int at = (int) (position - windowStart);
        int length = window.getInt(at);
        int crc = window.getInt(at + 4);
        if (length < 0 || length > LogFormat.MAX_MESSAGE_BYTES) {
            stop = Stop.BAD_LENGTH;
            return null;
        }
        long payloadStart = position + LogFormat.RECORD_OVERHEAD;
        if (lim - payloadStart < length) {
            stop = Stop.SHORT;
            return null;
        }
        byte[] payload = new byte[length];
        if (cover(payloadStart, length, lim)) {
            window.get((int) (payloadStart - windowStart), payload);
        } else if (!readFully(payloadStart, ByteBuffer.wrap(payload))) {
            stop = Stop.SHORT;
            return null;
        }
        if (LogFormat.crc(length, payload, 0, length) != crc) {
            stop = Stop.BAD_CHECKSUM;
            return null;
        }
        position = payloadStart + length;
        stop = null;
        return payload;
    }

    /** Makes the window hold [from, from + count); false if it cannot (too big, or past the limit or the file). */
    private boolean cover(long from, int count, long lim) throws IOException {
        if (windowStart >= 0 && from >= windowStart && from + count <= windowStart + window.limit()) {
            return true;
        }
        if (count > WINDOW_BYTES || lim - from < count) {
            return false;
        }
        window.clear();
        window.limit((int) Math.min(WINDOW_BYTES, lim - from));
        windowStart = from;
        long at = from;
        while (window.hasRemaining()) {
            int n = channel.read(window, at);
            if (n < 0) {
                break;
            }
            at += n;
        }
        window.flip();
        return window.limit() >= count;
    }

    private boolean readFully(long from, ByteBuffer dst) throws IOException {
        long at = from;
        while (dst.hasRemaining()) {
            int n = channel.read(dst, at);
            if (n < 0) {
                return false;
            }
            at += n;
        }
        return true;
    }
}
