package io.sluice.batch;

import java.util.Iterator;

/**
 * The events of one {@link SegmentRange}, in order ({@link BatchClient#readSegment}). {@link #hasNext()} blocks
 * while the next event is still being fetched and answers false at the range's end: exactly there, never with an
 * event after it and never with part of an event. An iterator is used by one thread; different iterators (of the
 * same or of different ranges) may be read in parallel on threads of their own.
 *
 * <p>An iterator holds about one event at a time: it prefetches a small window (256 KiB), and of an event larger
 * than that (a large event, over 8 MiB) it fetches the rest only once {@link #hasNext()} asks for it, so a caller busy
 * with one large event never has the next one in memory too.
 *
 * <p>Close it when done, also when stopping early: that stops its prefetching. After {@link #close()},
 * {@link #hasNext()} answers false.
 *
 * @param <T> the event type
 */
public interface SegmentIterator<T> extends Iterator<T>, AutoCloseable {

    /** @return the offset of the next event to return (the range's end once everything has been returned) */
    long offset();

    /** Stops reading and frees the iterator's resources. Idempotent; never throws. */
    @Override
    void close();
}
