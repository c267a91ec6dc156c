package io.sluice.stream;

import java.util.Objects;

/**
 * How many segments a stream has and whether the controller scales it automatically. Immutable value; create one
 * with {@link #fixed(int)}, {@link #byDataRate(int, int, int)} or {@link #byEventRate(int, int, int)}.
 *
 * @param type the kind of policy
 * @param targetRate for the rate policies, the per-segment rate above which a segment splits (KiB/s or events/s);
 *     0 for {@link Type#FIXED_NUM_SEGMENTS}
 * @param scaleFactor for the rate policies, into how many segments a hot segment splits; 0 for fixed
 * @param minNumSegments the fixed segment count, or the minimum for the rate policies
 */
public record ScalingPolicy(Type type, int targetRate, int scaleFactor, int minNumSegments) {

    /** The kinds of scaling policy (names and order as in the controller API). */
    public enum Type {
        /** A fixed number of segments; no automatic scaling. */
        FIXED_NUM_SEGMENTS,
        /** Scale by data rate: {@code targetRate} in KiB/s per segment. */
        BY_RATE_IN_KBYTES_PER_SEC,
        /** Scale by event rate: {@code targetRate} in events/s per segment. */
        BY_RATE_IN_EVENTS_PER_SEC
    }

    /**
     * @throws IllegalArgumentException if {@code minNumSegments} is not positive, or for the rate policies if the
     *     target rate or scale factor is not positive
     */
    public ScalingPolicy {
        Objects.requireNonNull(type, "type");
        if (minNumSegments <= 0) {
            throw new IllegalArgumentException("scaling policy needs at least one segment: minNumSegments "
                    + minNumSegments);
        }
        if (type != Type.FIXED_NUM_SEGMENTS) {
            if (targetRate <= 0) {
                throw new IllegalArgumentException("scaling policy " + type + " needs a positive target rate: "
                        + targetRate);
            }
            if (scaleFactor <= 0) {
                throw new IllegalArgumentException("scaling policy " + type + " needs a positive scale factor: "
                        + scaleFactor + " (use a fixed policy for no scaling)");
            }
        }
    }

    /**
     * @param segments the number of segments, at least 1
     * @return a policy keeping exactly {@code segments} segments
     */
    public static ScalingPolicy fixed(int segments) {
        return new ScalingPolicy(Type.FIXED_NUM_SEGMENTS, 0, 0, segments);
    }

    /**
     * @param targetKiBps split a segment when it receives more than this many KiB/s
     * @param scaleFactor into how many segments to split it
     * @param minNumSegments never fewer segments than this
     * @return a data-rate policy
     */
    public static ScalingPolicy byDataRate(int targetKiBps, int scaleFactor, int minNumSegments) {
        return new ScalingPolicy(Type.BY_RATE_IN_KBYTES_PER_SEC, targetKiBps, scaleFactor, minNumSegments);
    }

    /**
     * @param targetEventsPerSecond split a segment when it receives more than this many events/s
     * @param scaleFactor into how many segments to split it
     * @param minNumSegments never fewer segments than this
     * @return an event-rate policy
     */
    public static ScalingPolicy byEventRate(int targetEventsPerSecond, int scaleFactor, int minNumSegments) {
        return new ScalingPolicy(Type.BY_RATE_IN_EVENTS_PER_SEC, targetEventsPerSecond, scaleFactor, minNumSegments);
    }
}
