package io.sluice.stream;

/**
 * What {@link EventStreamReader#readNextEvent} returns: an event with where it came from, or — with no event — the
 * news that the reader passed a checkpoint, that the group has read everything there is to read, or that no event
 * came in time.
 *
 * @param event the event, or {@code null} (timeout, checkpoint, or read completed)
 * @param position the reader's position after this event (or at the checkpoint, or at the timeout)
 * @param pointer where the event lies, to read it again later; {@code null} without an event
 * @param checkpointName the checkpoint the reader passed, or {@code null}
 * @param readCompleted true when the group has read every segment to its end (the streams are sealed, or the group's
 *     ending stream cuts were reached) and this reader has nothing more to hand out
 * @param <T> the event type
 */
public record EventRead<T>(T event, Position position, EventPointer pointer, String checkpointName,
                           boolean readCompleted) {

    /** @return true if this read marks a checkpoint rather than an event */
    public boolean isCheckpoint() {
        return checkpointName != null;
    }

    /** @return true if this read carries an event */
    public boolean hasEvent() {
        return event != null;
    }
}
