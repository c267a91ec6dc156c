package io.sluice.stream;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A position in one stream: for each segment of a set that covers the key space, the offset of an event boundary.
 * {@link #UNBOUNDED} (no segments) stands for "the head" as a start and "no end" as an end. Immutable value;
 * positions are kept ordered by segment.
 *
 * @param positions segment to offset; all segments belong to the same stream; offsets are not negative
 */
public record StreamCut(SortedMap<Segment, Long> positions) {

    /** The cut with no positions: from the head when starting, unbounded when ending. */
    public static final StreamCut UNBOUNDED = new StreamCut(new TreeMap<>());

    /**
     * @throws IllegalArgumentException if segments of different streams are mixed or an offset is negative
     */
    public StreamCut {
        Objects.requireNonNull(positions, "positions");
        TreeMap<Segment, Long> copy = new TreeMap<>();
        Segment first = null;
        for (Map.Entry<Segment, Long> e : positions.entrySet()) {
            Segment segment = Objects.requireNonNull(e.getKey(), "segment");
            long offset = Objects.requireNonNull(e.getValue(), "offset");
            if (first == null) {
                first = segment;
            } else if (!first.sameStream(segment)) {
                throw new IllegalArgumentException("a stream cut covers one stream, but segments " + first + " and "
                        + segment + " belong to different streams");
            }
            if (offset < 0) {
                throw new IllegalArgumentException("offset of segment " + segment + " in a stream cut must not be "
                        + "negative: " + offset);
            }
            copy.put(segment, offset);
        }
        positions = Collections.unmodifiableSortedMap(copy);
    }

    /**
     * @param positions segment to offset (copied)
     * @return the cut, {@link #UNBOUNDED} when {@code positions} is empty
     */
    public static StreamCut of(Map<Segment, Long> positions) {
        return positions.isEmpty() ? UNBOUNDED : new StreamCut(new TreeMap<>(positions));
    }

    /**
     * @param stream the stream
     * @param offsetsBySegmentId segment id to offset, as the controller sends them
     * @return the cut, {@link #UNBOUNDED} when the map is empty
     */
    public static StreamCut of(ScopedStream stream, Map<Long, Long> offsetsBySegmentId) {
        Objects.requireNonNull(stream, "stream");
        TreeMap<Segment, Long> positions = new TreeMap<>();
        offsetsBySegmentId.forEach((id, offset) -> positions.put(Segment.of(stream, id), offset));
        return positions.isEmpty() ? UNBOUNDED : new StreamCut(positions);
    }

    /** @return true for the cut without positions */
    public boolean isUnbounded() {
        return positions.isEmpty();
    }

    /**
     * @return the stream the positions belong to; empty for {@link #UNBOUNDED}
     */
    public Optional<ScopedStream> stream() {
        return positions.isEmpty() ? Optional.empty() : Optional.of(positions.firstKey().scopedStream());
    }

    /**
     * @param stream a stream
     * @return true if this cut is unbounded or its positions belong to {@code stream}
     */
    public boolean isFor(ScopedStream stream) {
        if (positions.isEmpty()) {
            return true;
        }
        Segment first = positions.firstKey();
        return first.scope().equals(stream.scope()) && first.stream().equals(stream.name());
    }

    /** @return segment id to offset, as the controller API carries them */
    public Map<Long, Long> offsetsBySegmentId() {
        TreeMap<Long, Long> ids = new TreeMap<>();
        positions.forEach((segment, offset) -> ids.put(segment.segmentId(), offset));
        return Collections.unmodifiableMap(ids);
    }

    @Override
    public String toString() {
        return positions.isEmpty() ? "StreamCut[UNBOUNDED]" : "StreamCut" + positions;
    }
}
