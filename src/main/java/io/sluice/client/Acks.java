package io.sluice.client;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.common.Deadline;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.stream.EventRead;
import io.sluice.stream.Segment;

/**
 * The acknowledgements of one owned segment of a reader in {@code AckMode.EXPLICIT}: the events handed out from it
 * that the application has not acknowledged yet, by offset, and how far it was handed out. The segment's
 * <em>acknowledged position</em> is the offset of the first unacknowledged event handed out, or, when everything
 * handed out is acknowledged, the end of what was handed out: the end of the longest acknowledged prefix, whatever
 * order the acknowledgements came in.
 *
 * <p><b>Threads.</b> The consumer hands events out ({@link #handedOut}); the application acknowledges them from any
 * thread; the membership thread reads the acknowledged position for heartbeats. All under one lock, never held while
 * blocking (waiters use its condition).
 */
final class Acks {
    private final Segment segment;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition acknowledged = lock.newCondition();
    /** Guarded by lock: the unacknowledged events handed out, by offset. */
    private final TreeMap<Long, EventRead<?>> outstanding = new TreeMap<>();
    /** Guarded by lock: the end of the last event handed out (the start offset before any). */
    private long handedEnd;
    /** Guarded by lock: run once when everything handed out is acknowledged (set by {@link #whenAllAcknowledged}). */
    private Runnable onAllAcknowledged;

    /** @param start where the reader starts handing out events of the segment */
    Acks(Segment segment, long start) {
        this.segment = segment;
        this.handedEnd = start;
    }

    /** The consumer handed out {@code read}, the event between {@code offset} and {@code end}. */
    void handedOut(long offset, long end, EventRead<?> read) {
        lock.lock();
        try {
            outstanding.put(offset, read);
            handedEnd = end;
        } finally {
            lock.unlock();
        }
    }

    /** The consumer moved past data up to {@code end} that the application never got (it could not be decoded). */
    void skipped(long end) {
        lock.lock();
        try {
            handedEnd = end;
            if (outstanding.isEmpty()) {
                acknowledged.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Acknowledges the event at {@code offset}, which must be {@code read} as handed out.
     *
     * @throws IllegalArgumentException if no such event awaits acknowledgement (acknowledged already, or handed out
     *     by another reader, or before the reader lost the segment)
     */
    void ack(long offset, EventRead<?> read, String readerId) {
        Runnable then = null;
        lock.lock();
        try {
            EventRead<?> handed = outstanding.get(offset);
            if (handed != read) {
                throw new IllegalArgumentException("reader " + readerId + " has no unacknowledged event at offset "
                        + offset + " of segment " + segment + (handed != null
                                ? ": the event there was handed out by another read (of another reader?)"
                                : offset < handedEnd ? ": it was acknowledged already, or handed out before the reader "
                                        + "lost or gave back the segment" : ": the reader has not handed it out"));
            }
            outstanding.remove(offset);
            if (outstanding.isEmpty()) {
                acknowledged.signalAll();
                then = onAllAcknowledged;
                onAllAcknowledged = null;
            } else if (offset < outstanding.firstKey()) {
                acknowledged.signalAll();
            }
        } finally {
            lock.unlock();
        }
        if (then != null) {
            then.run();
        }
    }

    /** @return the acknowledged position: the first unacknowledged offset, or the end of what was handed out */
    long position() {
        lock.lock();
        try {
            return outstanding.isEmpty() ? handedEnd : outstanding.firstKey();
        } finally {
            lock.unlock();
        }
    }

    /**
     * @return true if everything handed out is acknowledged; if not, {@code then} runs (on the acknowledging thread)
     *     once it is
     */
    boolean whenAllAcknowledged(Runnable then) {
        lock.lock();
        try {
            if (outstanding.isEmpty()) {
                return true;
            }
            onAllAcknowledged = then;
            return false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until the acknowledged position reaches {@code target} or the deadline passes.
     *
     * @return true if it did
     */
    boolean await(long target, Deadline deadline) {
        lock.lock();
        try {
            while ((outstanding.isEmpty() ? handedEnd : outstanding.firstKey()) < target) {
                long nanos = deadline.remainingNanos();
                if (nanos <= 0) {
                    return false;
                }
                acknowledged.await(nanos, TimeUnit.NANOSECONDS);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while waiting for acknowledgements of segment "
                    + segment, e);
        } finally {
            lock.unlock();
        }
    }

    /** @return the unacknowledged events before {@code target}, described (the first few offsets and how many) */
    String unacknowledgedBefore(long target) {
        lock.lock();
        try {
            Map<Long, EventRead<?>> before = outstanding.headMap(target);
            StringBuilder b = new StringBuilder().append(before.size()).append(" event(s) of segment ").append(segment)
                    .append(" at offsets ");
            int n = 0;
            for (Long offset : before.keySet()) {
                if (n++ == 5) {
                    b.append(", ...");
                    break;
                }
                b.append(n > 1 ? ", " : "").append(offset);
            }
            return b.toString();
        } finally {
            lock.unlock();
        }
    }
}
