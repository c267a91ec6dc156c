package io.sluice.reliability;

/**
 * The system properties of the reliability suite (README.md, "Building and testing"; docs/reliability.md):
 * {@code sluice.reliability.full=true} runs the counts issue 17 names instead of the CI counts,
 * {@code sluice.reliability.events=N} any event count, {@code sluice.reliability.seed=S} replays the seed a failure
 * printed.
 */
public final class ReliabilityProperties {
    private ReliabilityProperties() {
    }

    /** @return whether the full counts were asked for */
    public static boolean full() {
        return Boolean.getBoolean("sluice.reliability.full");
    }

    /**
     * @param ci the count CI runs
     * @param full the count of the full run
     * @return {@code sluice.reliability.events} if set, else {@code full} or {@code ci}
     */
    public static int events(int ci, int full) {
        return Integer.getInteger("sluice.reliability.events", full() ? full : ci);
    }

    /** @return {@code sluice.reliability.seed} if set, else a new seed */
    public static long seed() {
        return Long.getLong("sluice.reliability.seed", System.nanoTime());
    }
}
