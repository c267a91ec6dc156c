package io.sluice.server;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import io.sluice.common.Threads;

/**
 * Direct buffers of one size, made ahead of need on a short-lived virtual thread, so the caller that needs one does
 * not pay for making it.
 *
 * <p>An in-memory segment's full-size chunk ({@link SegmentData#MEMORY_CHUNK_BYTES}) is started by an append, under
 * the container lock. Making a 1 MiB direct buffer zeroes it, and the first touch of fresh memory costs a page fault
 * per page: on the 2-core benchmark machine about 4 ms, during which every append and read of the container waited
 * (docs/benchmarks.md, issue 19's sixth and seventh rounds). Here the next buffer is made, and so touched, while the
 * segment fills the current one; the making still takes that CPU time, only not under the lock.
 *
 * <p>At most {@code spares} buffers wait; each {@link #take()} starts a refill when it left fewer. A take that finds
 * none ready (the first, or one after a burst of chunks across many segments) makes its buffer itself, as before.
 * Buffers are never taken back: a memory chunk's bytes may be in a reply being written long after the chunk is
 * dropped. Thread-safe and lock-free.
 */
final class ChunkBuffers {
    private final int size;
    private final int spares;
    /** At most {@code spares} buffers (only the one refill thread adds), so counting them is cheap. */
    private final ConcurrentLinkedQueue<ByteBuffer> ready = new ConcurrentLinkedQueue<>();
    /** Whether a refill thread runs: at most one at a time. */
    private final AtomicBoolean filling = new AtomicBoolean();

    /**
     * @param size every buffer's capacity in bytes (at least 1)
     * @param spares how many buffers to keep ready (at least 1)
     */
    ChunkBuffers(int size, int spares) {
        if (size < 1) {
            throw new IllegalArgumentException("size must be at least 1 byte, not " + size);
        }
        if (spares < 1) {
            throw new IllegalArgumentException("spares must be at least 1, not " + spares);
        }
        this.size = size;
        this.spares = spares;
    }

    /** @return how many buffers are ready now */
    int ready() {
        return ready.size();
    }

    /** @return a zeroed direct buffer of the size given: a ready one when there is one; starts a refill */
    ByteBuffer take() {
        ByteBuffer b = ready.poll();
        prepare();
        return b != null ? b : ByteBuffer.allocateDirect(size);
    }

    /** Starts a refill unless the spares are all ready or one runs: a caller that will need a buffer soon says so. */
    void prepare() {
        if (ready.size() < spares && filling.compareAndSet(false, true)) {
            Threads.startVirtual("sluice-chunk-buffers", this::fill);
        }
    }

    private void fill() {
        try {
            while (ready.size() < spares) {
                ready.add(ByteBuffer.allocateDirect(size));
            }
        } catch (OutOfMemoryError e) {
            // no direct memory to spare: the caller that needs a buffer makes it, and fails with this if it must
            return;
        } finally {
            filling.set(false);
        }
        prepare(); // a take that came after the loop's last check, and found the refill still running
    }
}
