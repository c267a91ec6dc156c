package io.sluice.stream;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Where a reader stands: for each segment it owns, the offset of the next event it would read. A reader that
 * resumes from a position reads every event after it exactly once.
 *
 * @param segments owned segment → next offset
 */
public record Position(SortedMap<Segment, Long> segments) {

    /** Copies the map. */
    public Position {
        segments = Collections.unmodifiableSortedMap(new TreeMap<>(segments));
    }

    /** @return a position over these segments */
    public static Position of(Map<Segment, Long> segments) {
        return new Position(new TreeMap<>(segments));
    }
}
