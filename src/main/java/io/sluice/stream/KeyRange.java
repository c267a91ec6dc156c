package io.sluice.stream;

/**
 * A range of routing-key fractions {@code [low, high)} inside {@code [0, 1]}, as used to describe the new segments
 * of a manual scale. Immutable value.
 *
 * @param low the inclusive lower bound
 * @param high the exclusive upper bound
 */
public record KeyRange(double low, double high) {

    /**
     * @throws IllegalArgumentException unless {@code 0 <= low < high <= 1}
     */
    public KeyRange {
        if (!(low >= 0.0 && low < high && high <= 1.0)) {
            throw new IllegalArgumentException("key range [" + low + ", " + high
                    + ") must satisfy 0 <= low < high <= 1");
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
