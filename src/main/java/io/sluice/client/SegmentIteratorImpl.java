package io.sluice.client;

import java.util.NoSuchElementException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.sluice.batch.SegmentIterator;
import io.sluice.batch.SegmentRange;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.segment.DelegationTokenProvider;
import io.sluice.segment.SegmentReader;
import io.sluice.segment.SegmentStores;
import io.sluice.stream.EventDeserializationException;
import io.sluice.stream.EventPointer;
import io.sluice.stream.Serializer;

/**
 * A {@link SegmentReader} over exactly the range (it stops fetching at the range's end, an event boundary, so no event
 * after it is returned and none is cut), taken by the iterating thread. A {@code hasNext} that finds nothing buffered
 * waits on a semaphore that the reader's listener releases when events, the end or a failure arrive.
 */
final class SegmentIteratorImpl<T> implements SegmentIterator<T> {
    /** A waiting {@code hasNext} looks at a closed iterator at least this often. */
    private static final long RECHECK_MILLIS = 100;

    private final SegmentRange range;
    private final Serializer<T> serializer;
    private final SegmentReader reader;
    private final Semaphore wake = new Semaphore(0);
    private volatile boolean closed;
    // ---- the iterating thread
    private boolean hasBuffered;
    private T buffered;
    private volatile long offset;

    SegmentIteratorImpl(SegmentRange range, Serializer<T> serializer, SegmentStores stores,
                        DelegationTokenProvider tokens) {
        this.range = range;
        this.serializer = serializer;
        this.offset = range.startOffset();
        this.reader = new SegmentReader(range.segment().qualifiedName(), range.startOffset(), range.endOffset(),
                stores, () -> tokens, SegmentReader.Config.DEFAULT.withFetchLargeAhead(false), r -> wake.release());
    }

    @Override
    public boolean hasNext() {
        if (hasBuffered) {
            return true;
        }
        while (!closed) {
            wake.drainPermits();
            SegmentReader.ReadEvent e = reader.next();
            if (e != null) {
                take(e);
                return true;
            }
            if (reader.isFinished()) {
                return false;
            }
            try {
                wake.tryAcquire(RECHECK_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new StreamingInterruptedException("interrupted while " + this + " waited for events", ie);
            }
        }
        return false;
    }

    private void take(SegmentReader.ReadEvent e) {
        offset = e.nextOffset();
        try {
            buffered = serializer.deserialize(e.payload());
        } catch (RuntimeException bad) {
            throw new EventDeserializationException(new EventPointer(range.segment(), e.offset(), e.framedLength()), bad);
        }
        hasBuffered = true;
    }

    @Override
    public T next() {
        if (!hasNext()) {
            throw new NoSuchElementException(this + " has no more events");
        }
        T event = buffered;
        buffered = null;
        hasBuffered = false;
        return event;
    }

    @Override
    public long offset() {
        return offset;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            reader.close();
            wake.release();
        }
    }

    @Override
    public String toString() {
        return "SegmentIterator[" + range + " at " + offset + "]";
    }
}
