package io.sluice.stream;

import java.nio.ByteBuffer;

/**
 * Turns events into bytes and back. Implementations must be thread-safe (stateless is best).
 *
 * @param <T> the event type
 */
public interface Serializer<T> {

    /**
     * @param value the event
     * @return its bytes, from position to limit; the writer does not copy them, so do not change them afterwards
     */
    ByteBuffer serialize(T value);

    /**
     * @param bytes an event's bytes (a read-only view, valid only during the call unless {@code slice()}d)
     * @return the event
     */
    T deserialize(ByteBuffer bytes);
}
