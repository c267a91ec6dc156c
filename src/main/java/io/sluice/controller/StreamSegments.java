package io.sluice.controller;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;

/**
 * A set of segments with their key ranges, as the controller returns them for the current segments of a stream
 * or key-value table, the segments of an epoch, or the active segments of a new transaction. Immutable value.
 *
 * @param ranges the segments with key ranges, ordered by lower key bound
 * @param delegationToken the token for segment-store calls on these segments; empty when auth is off or the
 *     controller did not send one
 */
public record StreamSegments(List<SegmentWithRange> ranges, String delegationToken) {

    /** Copies and orders the ranges. */
    public StreamSegments {
        Objects.requireNonNull(delegationToken, "delegationToken");
        List<SegmentWithRange> sorted = new ArrayList<>(ranges);
        sorted.forEach(r -> Objects.requireNonNull(r, "range"));
        sorted.sort(Comparator.comparingDouble(SegmentWithRange::low).thenComparingDouble(SegmentWithRange::high));
        ranges = List.copyOf(sorted);
    }

    /** @return the segments, in key order */
    public List<Segment> segments() {
        return ranges.stream().map(SegmentWithRange::segment).toList();
    }
}
