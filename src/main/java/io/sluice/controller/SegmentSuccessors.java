package io.sluice.controller;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;

/**
 * The segments that replaced a sealed segment, each with all of its predecessors: a reader may read a successor
 * only once it has finished every predecessor. Immutable value.
 *
 * @param successors each successor (with key range) and its predecessors, ordered by successor
 * @param delegationToken the token for segment-store calls on the successors; empty when auth is off
 */
public record SegmentSuccessors(Map<SegmentWithRange, List<Segment>> successors, String delegationToken) {

    /** Copies the map. */
    public SegmentSuccessors {
        Objects.requireNonNull(delegationToken, "delegationToken");
        TreeMap<SegmentWithRange, List<Segment>> copy =
                new TreeMap<>((a, b) -> a.segment().compareTo(b.segment()));
        successors.forEach((range, predecessors) -> copy.put(Objects.requireNonNull(range, "range"),
                List.copyOf(predecessors)));
        successors = Collections.unmodifiableMap(copy);
    }

    /** @return the successor segments with their key ranges */
    public List<SegmentWithRange> ranges() {
        return List.copyOf(successors.keySet());
    }
}
