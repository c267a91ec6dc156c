package io.sluice.stream;

import java.util.Objects;

/**
 * Where one event lies: its segment, the offset of its header and its length including the 8-byte header. Enough
 * to read that one event back directly ({@link EventStreamReader#fetchEvent}). Its {@link #toString()} form can be
 * stored and {@link #parse parsed} back.
 *
 * @param segment the segment holding the event
 * @param offset the offset of the event's header
 * @param length the event's length on the wire, header included
 */
public record EventPointer(Segment segment, long offset, int length) {

    /** Checks the values. */
    public EventPointer {
        Objects.requireNonNull(segment, "segment");
        if (offset < 0 || length < 8) {
            throw new IllegalArgumentException("invalid event pointer: offset " + offset + ", length " + length);
        }
    }

    /** @return {@code segment:offset-length}, e.g. {@code shop/orders/0.#epoch.0:128-37} */
    @Override
    public String toString() {
        return segment.qualifiedName() + ":" + offset + "-" + length;
    }

    /**
     * @param text what {@link #toString()} produced
     * @return the pointer
     * @throws IllegalArgumentException naming the text if it is not a pointer
     */
    public static EventPointer parse(String text) {
        int colon = text.lastIndexOf(':');
        int dash = text.lastIndexOf('-');
        if (colon < 0 || dash < colon) {
            throw new IllegalArgumentException("'" + text + "' is not an event pointer (segment:offset-length)");
        }
        try {
            return new EventPointer(Segment.parse(text.substring(0, colon)), Long.parseLong(text.substring(colon + 1, dash)),
                    Integer.parseInt(text.substring(dash + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not an event pointer (segment:offset-length)", e);
        }
    }
}
