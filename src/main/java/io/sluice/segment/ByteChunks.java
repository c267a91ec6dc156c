package io.sluice.segment;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * A segment's raw bytes as they arrive, read and handed out in order without regard to events: what a
 * {@link SegmentReader} in byte mode buffers for a byte stream. Not thread-safe: its owner guards it.
 */
final class ByteChunks implements SegmentReader.ReadBuffer {
    /** Data added and not yet taken, in order; none is empty. */
    private final ArrayDeque<ByteBuffer> chunks = new ArrayDeque<>();
    /** Segment offset of the first byte not taken. */
    private long offset;
    private int buffered;

    /** @param offset the segment offset of the first byte that will be added */
    ByteChunks(long offset) {
        this.offset = offset;
    }

    @Override
    public void add(ByteBuffer data) {
        int n = data.remaining();
        if (n == 0) {
            return;
        }
        if (n > Integer.MAX_VALUE - buffered) {
            throw new IllegalStateException("cannot buffer " + n + " more bytes after " + buffered);
        }
        chunks.add(data.asReadOnlyBuffer());
        buffered += n;
    }

    @Override
    public long offset() {
        return offset;
    }

    @Override
    public int buffered() {
        return buffered;
    }

    /** @return true if any byte is buffered */
    @Override
    public boolean ready() {
        return buffered > 0;
    }

    /** @return 0: raw bytes are never incomplete */
    @Override
    public int missing() {
        return 0;
    }

    /**
     * Moves up to {@code len} buffered bytes into {@code dst}.
     *
     * @return how many were moved (0 if none is buffered)
     */
    int take(byte[] dst, int off, int len) {
        int done = 0;
        while (done < len && !chunks.isEmpty()) {
            ByteBuffer c = chunks.peek();
            int k = Math.min(c.remaining(), len - done);
            c.get(dst, off + done, k);
            done += k;
            if (!c.hasRemaining()) {
                chunks.poll();
            }
        }
        buffered -= done;
        offset += done;
        return done;
    }
}
