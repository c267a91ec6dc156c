package io.sluice.stream;

import io.sluice.errors.SluiceException;

/**
 * A reader's serializer failed on an event. The reader has moved past that event (so one bad event cannot stop a
 * group); its bytes stay in the stream at {@link #pointer()}, where {@code fetchEvent} with another serializer (for
 * instance {@code Serializers.byteBuffer()}) reads them back.
 */
public class EventDeserializationException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /** Where the event is; not serialized with the exception. */
    private final transient EventPointer pointer;

    /**
     * @param pointer where the event that could not be deserialized is
     * @param cause what the serializer threw
     */
    public EventDeserializationException(EventPointer pointer, Throwable cause) {
        super("the serializer failed on the event at " + pointer + " (" + cause + "); the reader moved past it, and "
                + "fetchEvent(pointer) with another serializer reads its bytes", cause);
        this.pointer = pointer;
    }

    /** @return where the event is (null after the exception was deserialized) */
    public EventPointer pointer() {
        return pointer;
    }
}
