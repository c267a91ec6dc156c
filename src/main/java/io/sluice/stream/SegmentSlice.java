package io.sluice.stream;

import java.util.Iterator;

/**
 * One segment of a reader's, taken out of {@link EventStreamReader#readNextEvent} to be read on its own
 * ({@link EventStreamReader#acquireSegment}): an iterator over the segment's events, in order, so that an application
 * can process each segment on a (virtual) thread of its own, in parallel, with every segment in order.
 *
 * <p>{@link #hasNext()} blocks until the segment has another event, and answers false when the slice ends: at the
 * segment's end (it was sealed, or the group's ending cut ends it), when the group wants the segment for another
 * reader (rebalancing: the slice ends between two events; in {@code AckMode.EXPLICIT} the segment then moves once
 * everything the slice handed out is acknowledged), when the reader loses the segment (the group was reset, or it
 * removed the reader) or closes. Events carry their pointer and a {@link EventRead#position() position} of this
 * segment only; a slice never returns checkpoint reads (see {@link EventStreamReader#acquireSegment} for how
 * checkpoints are passed while slices are out). In {@code AckMode.EXPLICIT}, acknowledge its events with
 * {@link EventStreamReader#ack}, from any thread.
 *
 * <p>Give every slice back when done with it: {@link EventStreamReader#releaseSegment(SegmentSlice)} (or {@link
 * #close()}, the same) returns the segment to the group where the slice stands — or, if the slice read it to its end,
 * tells the group it is read, so that its successors can be acquired.
 *
 * <p><b>Threads.</b> One thread at a time iterates a slice; {@link #segment()}, {@link #offset()} and {@link #close()}
 * may be called from any thread.
 *
 * @param <T> the event type
 */
public interface SegmentSlice<T> extends Iterator<EventRead<T>>, AutoCloseable {

    /** @return the segment the slice reads */
    Segment segment();

    /** @return the offset of the next event the slice would hand out: where it stands in its segment */
    long offset();

    /**
     * Waits until the segment has another event, or the slice ends. Blocks.
     *
     * @return true if {@link #next()} returns an event, false once the slice ended (for good)
     * @throws io.sluice.errors.SegmentTruncatedException if the data at the slice's offset was truncated away (the
     *     slice ends; release it, and the group reads the segment on from its new start)
     * @throws EventDeserializationException if the serializer failed on the next event: the slice has moved past it
     * @throws io.sluice.errors.SluiceException if reading failed past the reader's retry policy
     */
    @Override
    boolean hasNext();

    /**
     * @return the next event (with its pointer, and a position of this segment only)
     * @throws java.util.NoSuchElementException if the slice ended
     */
    @Override
    EventRead<T> next();

    /** Gives the segment back to the group: {@link EventStreamReader#releaseSegment(SegmentSlice)}. Idempotent. */
    @Override
    void close();
}
