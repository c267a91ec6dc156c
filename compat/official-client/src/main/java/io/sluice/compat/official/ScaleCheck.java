package io.sluice.compat.official;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Checks the events the scale workload's reader group returns ({@link ScaleBench}). Writer {@code w} wrote
 * {@code counts[w]} {@link Payload} events with key index {@code w} and sequence numbers {@code 0 .. counts[w] - 1},
 * all with one routing key, so the group must return each writer's events exactly once and in order.
 *
 * <p>Per writer it keeps {@code next[w]}, the sequence number expected next: an event with that number advances
 * it; a lower one is a duplicate; a higher one is out of order (and moves {@code next[w]} past it, so later events
 * are compared with the new position). An event whose length is not the event size, whose key index is not a
 * writer, or whose sequence number that writer never wrote, is bad. Apart from that, a bitmap of the events seen
 * counts the distinct ones, so {@link #missing()} is exact even after events came out of order.
 *
 * <p>Thread-safe: every reader thread calls {@link #accept} on the same instance.
 */
final class ScaleCheck {
    private final int size;
    private final int[] counts;
    /** {@code first[w]}: the bit of writer {@code w}'s event 0 in {@link #seen}. */
    private final long[] first;
    private final long total;
    private final AtomicIntegerArray next;
    private final AtomicLongArray seen;
    private final AtomicLong read = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong outOfOrder = new AtomicLong();
    private final AtomicLong bad = new AtomicLong();

    /**
     * @param size   bytes of every event
     * @param counts events written by each writer (index = the writer's key index)
     */
    ScaleCheck(int size, int[] counts) {
        this.size = size;
        this.counts = counts.clone();
        this.first = new long[counts.length];
        long sum = 0;
        for (int w = 0; w < counts.length; w++) {
            first[w] = sum;
            sum += counts[w];
        }
        this.total = sum;
        this.next = new AtomicIntegerArray(counts.length);
        this.seen = new AtomicLongArray((int) ((sum + 63) / 64));
    }

    /**
     * Checks one event read.
     *
     * @return how many events have been read so far, this one included (bad ones too)
     */
    long accept(ByteBuffer event) {
        long n = read.incrementAndGet();
        int key = Payload.key(event);
        if (event.remaining() != size || key < 0 || key >= counts.length) {
            bad.incrementAndGet();
            return n;
        }
        int seq = Payload.seq(event);
        if (seq < 0 || seq >= counts[key]) {
            bad.incrementAndGet();
            return n;
        }
        long bit = first[key] + seq;
        long mask = 1L << (bit & 63);
        seen.getAndAccumulate((int) (bit >>> 6), mask, (a, b) -> a | b);
        while (true) {
            int expected = next.get(key);
            if (seq < expected) {
                duplicates.incrementAndGet();
                return n;
            }
            if (next.compareAndSet(key, expected, seq + 1)) {
                if (seq > expected) {
                    outOfOrder.incrementAndGet();
                }
                return n;
            }
        }
    }

    /** @return events read so far (bad ones included) */
    long read() {
        return read.get();
    }

    /** @return events whose sequence number came again (lower than the writer's next expected one) */
    long duplicates() {
        return duplicates.get();
    }

    /** @return events whose sequence number skipped ahead of the writer's next expected one */
    long outOfOrder() {
        return outOfOrder.get();
    }

    /** @return events of the wrong length, or with a key index or sequence number no writer wrote */
    long bad() {
        return bad.get();
    }

    /** @return events written that no reader returned */
    long missing() {
        long distinct = 0;
        for (int i = 0; i < seen.length(); i++) {
            distinct += Long.bitCount(seen.get(i));
        }
        return total - distinct;
    }
}
