package io.sluice.stream;

import java.util.Objects;

/**
 * A segment and the routing-key fractions it owns, {@code [low, high)} inside {@code [0, 1]} (docs/controller.md §4:
 * a key goes to the segment with the smallest {@code high} at or above its fraction). Immutable value.
 *
 * <p>The controller computes key ranges as doubles, so the last range's {@code high} may exceed 1 by rounding;
 * values up to {@value #MAX_HIGH} are accepted, as the Java client does.
 *
 * @param segment the segment
 * @param low the inclusive lower bound
 * @param high the exclusive upper bound
 */
public record SegmentWithRange(Segment segment, double low, double high) {
    /** The largest accepted upper bound (1 plus rounding slack). */
    public static final double MAX_HIGH = 1.00001;

    /**
     * @throws IllegalArgumentException unless {@code 0 <= low <= high <= MAX_HIGH}
     */
    public SegmentWithRange {
        Objects.requireNonNull(segment, "segment");
        if (!(low >= 0.0 && low <= high && high <= MAX_HIGH)) {
            throw new IllegalArgumentException("key range [" + low + ", " + high + ") of segment " + segment
                    + " must satisfy 0 <= low <= high <= 1");
        }
    }

    /**
     * @param key a routing-key fraction
     * @return true if {@code low <= key < high}
     */
    public boolean contains(double key) {
        return key >= low && key < high;
    }
}
