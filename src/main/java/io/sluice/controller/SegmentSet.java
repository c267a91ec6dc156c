package io.sluice.controller;

import java.util.Collection;
import java.util.Collections;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

import io.sluice.stream.Segment;

/**
 * A set of segments without key ranges, as the controller returns the segments between two stream cuts.
 * Immutable value.
 *
 * @param segments the segments, ordered
 * @param delegationToken the token for segment-store calls on them; empty when auth is off
 */
public record SegmentSet(SortedSet<Segment> segments, String delegationToken) {

    /** Copies the set. */
    public SegmentSet {
        Objects.requireNonNull(delegationToken, "delegationToken");
        segments = Collections.unmodifiableSortedSet(new TreeSet<>((Collection<Segment>) segments));
    }
}
