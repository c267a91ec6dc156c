package io.sluice.compat.official;

import io.pravega.common.hash.HashHelper;

/**
 * Routing keys and shares of the scale workload ({@link ScaleBench}): writer {@code w} of W writes all its events
 * with one routing key, the first {@code "w<w>-<n>"} (n = 0, 1, 2, ...) that the official client's event router
 * places in segment {@code w % K} of a stream of K fixed segments, so the writers spread evenly over the segments.
 *
 * <p>The router hashes a key to a fraction of the key space with {@code HashHelper.seededWith("EventRouter")
 * .hashToRange(key)} (pravega-common, what the client's {@code StreamSegments} uses); segment {@code s} of K fixed
 * segments owns the fractions in {@code [s/K, (s+1)/K)}. Stateless and thread-safe.
 */
final class ScaleRouting {
    /** The official client's event-router hash (an immutable hash function, safe to share). */
    private static final HashHelper ROUTER_HASH = HashHelper.seededWith("EventRouter");

    /**
     * Candidates tried per segment before giving up: a key lands in a given one of K segments with chance 1/K, so
     * {@code 100 K} misses in a row happen with chance about e^-100; running out means the hash is not what it
     * should be.
     */
    private static final long TRIES_PER_SEGMENT = 100;

    private ScaleRouting() {
    }

    /** @return the fraction of the key space the official event router gives {@code key}, in [0, 1) */
    static double fraction(String key) {
        return ROUTER_HASH.hashToRange(key);
    }

    /**
     * Picks writer {@code writer}'s routing key: the first {@code "w<writer>-<n>"} whose fraction falls in
     * {@code [s/K, (s+1)/K)} with {@code s = writer % segments}.
     *
     * @throws IllegalStateException if no candidate lands there within {@code 100 K + 1000} tries
     */
    static String keyFor(int writer, int segments) {
        int s = writer % segments;
        double low = (double) s / segments;
        double high = (double) (s + 1) / segments;
        long limit = TRIES_PER_SEGMENT * segments + 1000;
        for (long n = 0; n < limit; n++) {
            String key = "w" + writer + "-" + n;
            double f = fraction(key);
            if (f >= low && f < high) {
                return key;
            }
        }
        throw new IllegalStateException("no routing key \"w" + writer + "-<n>\" for n < " + limit
                + " hashes into segment " + s + " of " + segments + " ([" + low + ", " + high + "))");
    }

    /** @return the routing keys of writers {@code 0 .. writers - 1} over {@code segments} fixed segments */
    static String[] keys(int writers, int segments) {
        String[] keys = new String[writers];
        for (int w = 0; w < writers; w++) {
            keys[w] = keyFor(w, segments);
        }
        return keys;
    }

    /** @return writer {@code w}'s share of {@code total} items split over {@code writers}: the first get one more */
    static int share(int total, int writers, int w) {
        return total / writers + (w < total % writers ? 1 : 0);
    }
}
