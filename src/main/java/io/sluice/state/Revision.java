package io.sluice.state;

import java.util.Objects;

/**
 * A position in the log of a {@link RevisionedStreamClient}: the offset, in the stream's segment, of a boundary
 * between two values (the segment's length just after some value was written). Later writes have greater revisions.
 * Immutable; ordered by segment name, then offset.
 *
 * <p>{@link #toString()} and {@link #fromString(String)} use Pravega's text form
 * {@code scope/stream/segment.#epoch.N:offset:0}, so revisions can be passed between Sluice and the official client.
 */
public final class Revision implements Comparable<Revision> {
    private final String segment;
    private final long offset;

    private Revision(String segment, long offset) {
        this.segment = segment;
        this.offset = offset;
    }

    /**
     * @param segment the qualified name of the log's segment ({@code scope/stream/0.#epoch.0})
     * @param offset an offset in it, 0 or more
     * @return the revision
     * @throws IllegalArgumentException if {@code segment} is empty or {@code offset} negative
     */
    public static Revision of(String segment, long offset) {
        Objects.requireNonNull(segment, "segment");
        if (segment.isEmpty()) {
            throw new IllegalArgumentException("a revision's segment name must not be empty");
        }
        if (offset < 0) {
            throw new IllegalArgumentException("a revision's offset must not be negative: " + offset);
        }
        return new Revision(segment, offset);
    }

    /**
     * Parses the text form ({@code scope/stream/segment:offset:eventAtOffset}) that {@link #toString()} and Pravega's
     * {@code Revision.toString()} write.
     *
     * @throws IllegalArgumentException if {@code text} is not in that form
     */
    public static Revision fromString(String text) {
        Objects.requireNonNull(text, "text");
        int last = text.lastIndexOf(':');
        int middle = last <= 0 ? -1 : text.lastIndexOf(':', last - 1);
        if (middle <= 0) {
            throw new IllegalArgumentException("'" + text + "' is not a revision: expected segment:offset:0");
        }
        try {
            long offset = Long.parseLong(text.substring(middle + 1, last));
            Long.parseLong(text.substring(last + 1));
            return of(text.substring(0, middle), offset);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a revision: the offset and the event index must"
                    + " be numbers", e);
        }
    }

    /** @return the qualified name of the segment this revision is in */
    public String segment() {
        return segment;
    }

    /** @return the offset in the segment */
    public long offset() {
        return offset;
    }

    @Override
    public int compareTo(Revision other) {
        int bySegment = segment.compareTo(other.segment);
        return bySegment != 0 ? bySegment : Long.compare(offset, other.offset);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Revision r && r.offset == offset && r.segment.equals(segment);
    }

    @Override
    public int hashCode() {
        return segment.hashCode() * 31 + Long.hashCode(offset);
    }

    /** @return {@code segment:offset:0}, Pravega's text form of a revision */
    @Override
    public String toString() {
        return segment + ":" + offset + ":0";
    }
}
