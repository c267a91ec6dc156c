package io.sluice.client;

import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.client.OwnedSegments.OwnedSegment;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.segment.SegmentReader;
import io.sluice.stream.EventDeserializationException;
import io.sluice.stream.EventPointer;
import io.sluice.stream.EventRead;
import io.sluice.stream.Position;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentSlice;
import io.sluice.stream.Serializer;

/**
 * A segment out in a slice ({@link io.sluice.stream.EventStreamReader#acquireSegment}): the slice's thread takes the
 * segment's events from its {@link SegmentReader} directly, waiting for the reader's listener when none is buffered.
 * Between two events it lets the reader handle the group ({@link EventStreamReaderImpl#handleGroupFromSlice}).
 *
 * <p>The lock guards the hand-out of an event against the end of the slice: once {@link #revoke}, {@link #markReleased}
 * or the end of the segment ended it, it hands out nothing more, so the segment's position is final when the reader
 * gives the segment back. The lock is never held while blocking (the wait for events is on its condition) or around
 * anything but the in-memory hand-out.
 */
final class SegmentSliceImpl<T> implements SegmentSlice<T> {
    /** A slice waiting for events looks at the group (and at a closed reader) at least this often. */
    private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    final EventStreamReaderImpl<T> reader;
    final OwnedSegment owned;
    private final Serializer<T> serializer;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition more = lock.newCondition();

    // ---- guarded by lock
    /** The reader's listener (or the group) woke the slice since it last looked. */
    private boolean signalled;
    /** Hands out nothing more. */
    private boolean ended;
    /** Ended because the group wants the segment for another reader. */
    private boolean revoked;
    /** Ended at the segment's end. */
    private boolean finished;
    /** Given back by the application. */
    private boolean released;

    // ---- the iterating thread
    private EventRead<T> buffered;

    // ---- any thread
    private volatile long offset;

    SegmentSliceImpl(EventStreamReaderImpl<T> reader, OwnedSegment owned, Serializer<T> serializer) {
        this.reader = reader;
        this.owned = owned;
        this.serializer = serializer;
        this.offset = owned.reader.position();
    }

    @Override
    public Segment segment() {
        return owned.segment;
    }

    @Override
    public long offset() {
        return offset;
    }

    @Override
    public boolean hasNext() {
        if (buffered != null) {
            return true;
        }
        while (true) {
            reader.handleGroupFromSlice();
            lock.lock();
            try {
                if (ended) {
                    return false;
                }
                if (owned.dropped || reader.isClosed()) {
                    ended = true;
                    return false;
                }
                SegmentReader.ReadEvent e;
                try {
                    e = owned.reader.next();
                } catch (SegmentTruncatedException t) {
                    ended = true;
                    throw new SegmentTruncatedException("segment " + owned.segment + " was truncated at the offset "
                            + "of slice " + this + ": release the slice, the group reads on from the segment's new "
                            + "start", t);
                }
                if (e != null) {
                    hand(e);
                    return true;
                }
                if (owned.reader.isFinished()) {
                    finished = true;
                    ended = true;
                    return false;
                }
                if (!signalled) {
                    more.awaitNanos(RECHECK_NANOS);
                }
                signalled = false;
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new StreamingInterruptedException("interrupted while slice " + this + " waited for events", ie);
            } finally {
                lock.unlock();
            }
        }
    }

    /** Under the lock: hands out {@code e} (into {@link #buffered}). */
    private void hand(SegmentReader.ReadEvent e) {
        offset = e.nextOffset();
        EventPointer pointer = new EventPointer(owned.segment, e.offset(), e.framedLength());
        T event;
        try {
            event = serializer.deserialize(e.payload());
        } catch (RuntimeException bad) {
            if (owned.acks != null) {
                owned.acks.skipped(e.nextOffset());
            }
            throw new EventDeserializationException(pointer, bad);
        }
        EventRead<T> read = new EventRead<>(event, Position.of(Map.of(owned.segment, e.nextOffset())), pointer, null,
                false);
        if (owned.acks != null) {
            owned.acks.handedOut(e.offset(), e.nextOffset(), read);
        }
        buffered = read;
    }

    @Override
    public EventRead<T> next() {
        if (!hasNext()) {
            throw new NoSuchElementException("slice " + this + " has ended");
        }
        EventRead<T> read = buffered;
        buffered = null;
        return read;
    }

    @Override
    public void close() {
        if (!isReleased()) {
            reader.releaseSegment(this);
        }
    }

    /** Any thread: something changed (events came, the group wants something, the segment was lost). */
    void wake() {
        lock.lock();
        try {
            signalled = true;
            more.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The group wants the segment for another reader: the slice hands out nothing more.
     *
     * @return false if the slice had ended already at the segment's end or by release (then it is not revoked)
     */
    boolean revoke() {
        lock.lock();
        try {
            if (finished || released) {
                return false;
            }
            revoked = true;
            ended = true;
            more.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** @return true if the slice was revoked ({@link #revoke}) */
    boolean isRevoked() {
        lock.lock();
        try {
            return revoked;
        } finally {
            lock.unlock();
        }
    }

    /** The application gives the slice back. @return false if it did already */
    boolean markReleased() {
        lock.lock();
        try {
            if (released) {
                return false;
            }
            released = true;
            ended = true;
            more.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    private boolean isReleased() {
        lock.lock();
        try {
            return released;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "SegmentSlice[" + owned.segment + " at " + offset + " of " + reader + "]";
    }
}
