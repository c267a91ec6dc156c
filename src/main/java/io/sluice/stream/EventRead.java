package io.sluice.stream;

/**
 * What {@link EventStreamReader#readNextEvent} returns: an event with where it came from, or — with no event — the
 * news that the reader passed a checkpoint, or that no event came in time.
 *
 * @param event the event, or {@code null} (timeout, or a checkpoint)
 * @param position the reader's position after this event (or at the checkpoint)
 * @param pointer where the event lies, to read it again later; {@code null} without an event
 * @param checkpointName the checkpoint the reader passed, or {@code null}
 * @param <T> the event type
 */
public record EventRead<T>(T event, Position position, EventPointer pointer, String checkpointName) {

    /** @return true if this read marks a checkpoint rather than an event */
    public boolean isCheckpoint() {
        return checkpointName != null;
    }
}
