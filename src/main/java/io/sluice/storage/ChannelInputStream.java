package io.sluice.storage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Objects;

/**
 * An input stream over a byte range of a file, read with positional reads; closing it closes the channel. Not
 * thread-safe.
 */
final class ChannelInputStream extends InputStream {
    private final FileChannel channel;
    private final long end;
    private long position;
    private boolean closed;

    /**
     * @param start first byte of the range
     * @param end the byte after the range
     */
    ChannelInputStream(FileChannel channel, long start, long end) {
        this.channel = channel;
        this.position = start;
        this.end = end;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        ensureOpen();
        if (len == 0) {
            return 0;
        }
        if (position >= end) {
            return -1;
        }
        int want = (int) Math.min(len, end - position);
        int n = channel.read(ByteBuffer.wrap(b, off, want), position);
        if (n < 0) {
            throw new IOException("file ended " + (end - position) + " bytes early");
        }
        position += n;
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        ensureOpen();
        long skipped = Math.max(0, Math.min(n, end - position));
        position += skipped;
        return skipped;
    }

    @Override
    public int available() throws IOException {
        ensureOpen();
        return (int) Math.min(Integer.MAX_VALUE, end - position);
    }

    @Override
    public void close() throws IOException {
        closed = true;
        channel.close();
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("stream closed");
        }
    }
}
