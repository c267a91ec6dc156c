package io.sluice.stream;

import java.time.Duration;

/**
 * Reads events as a member of a reader group: the group hands each of its segments to one reader at a time, so
 * the readers of a group together read every event exactly once, each segment in order (and so each routing key in
 * order). Segments move between readers when readers join or leave; a successor segment is handed out only once
 * all its predecessors are read.
 *
 * <p>Every segment the reader owns prefetches on its own virtual thread into a small buffer; {@link #readNextEvent}
 * waits on all of them at once, so an idle segment never delays a busy one. One thread reads from a reader.
 *
 * @param <T> the event type
 */
public interface EventStreamReader<T> extends AutoCloseable {

    /**
     * Returns the next event, waiting up to {@code timeout} for one.
     *
     * @return the event with its position; or an {@link EventRead} with no event when the timeout passed or the
     *     reader reached a checkpoint ({@link EventRead#isCheckpoint()})
     * @throws io.sluice.errors.SegmentTruncatedException if data the reader was due to read was truncated away
     * @throws io.sluice.errors.SluiceException if the reader failed
     */
    EventRead<T> readNextEvent(Duration timeout);

    /**
     * Reads one event directly, wherever it is, without affecting the reader's position.
     *
     * @throws io.sluice.errors.NoSuchSegmentException if its segment is gone
     * @throws io.sluice.errors.SegmentTruncatedException if it was truncated away
     */
    T fetchEvent(EventPointer pointer);

    /** @return the reader's id within its group */
    String readerId();

    /** Leaves the group: the reader's segments go back to the group at the reader's position. */
    @Override
    void close();
}
