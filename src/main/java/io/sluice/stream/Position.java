package io.sluice.stream;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Where a reader stands: for each segment it owns, the offset of the next event it would read. A reader that
 * resumes from a position reads every event after it exactly once.
 *
 * <p>A reader hands out a position with every event; building a map over all of its segments for each event would
 * cost time proportional to the number of segments, so a reader's positions are computed on first use of
 * {@link #segments()} ({@link #lazy}). Immutable and thread-safe either way; equality is by {@link #segments()}.
 */
public final class Position {
    private final Supplier<SortedMap<Segment, Long>> source;
    private volatile SortedMap<Segment, Long> segments;

    /**
     * @param segments owned segment → next offset (copied)
     * @throws NullPointerException if the map, a segment or an offset is null
     */
    public Position(Map<Segment, Long> segments) {
        this.segments = copy(segments);
        this.source = null;
    }

    private Position(Supplier<SortedMap<Segment, Long>> source) {
        this.source = source;
    }

    /**
     * @param segments owned segment → next offset (copied)
     * @return a position over these segments
     */
    public static Position of(Map<Segment, Long> segments) {
        return new Position(segments);
    }

    /**
     * A position whose map is computed on first use, once. Readers use it to hand out a position per event cheaply.
     *
     * @param source computes the map; called at most once (it may be called by any thread that asks first), must
     *     always give the same answer
     * @return the position
     */
    public static Position lazy(Supplier<SortedMap<Segment, Long>> source) {
        return new Position(Objects.requireNonNull(source, "source"));
    }

    /** @return owned segment → offset of the next event, ordered by segment (unmodifiable) */
    public SortedMap<Segment, Long> segments() {
        SortedMap<Segment, Long> s = segments;
        if (s == null) {
            s = copy(source.get());
            segments = s;
        }
        return s;
    }

    private static SortedMap<Segment, Long> copy(Map<Segment, Long> map) {
        Objects.requireNonNull(map, "segments");
        TreeMap<Segment, Long> copy = new TreeMap<>();
        map.forEach((segment, offset) -> copy.put(Objects.requireNonNull(segment, "segment"),
                Objects.requireNonNull(offset, "offset")));
        return Collections.unmodifiableSortedMap(copy);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Position p && segments().equals(p.segments());
    }

    @Override
    public int hashCode() {
        return segments().hashCode();
    }

    @Override
    public String toString() {
        return "Position" + segments();
    }
}
