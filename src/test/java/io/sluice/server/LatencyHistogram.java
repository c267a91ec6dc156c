package io.sluice.server;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * A lock-free latency histogram for tests: microsecond buckets, exact below 16 µs, then eight buckets per power of two
 * (so a percentile is within 12.5% of the truth). Many threads record at once; percentiles are read once recording
 * has moved on to another histogram (a window of {@code SoakTest}'s samples). Histograms can be merged.
 */
final class LatencyHistogram {
    private static final int EXACT = 16;
    private static final int SUB = 8;
    private static final int BUCKETS = EXACT + (64 - 4) * SUB;

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
    private final LongAdder total = new LongAdder();

    /** @param nanos one latency */
    void record(long nanos) {
        counts.incrementAndGet(bucket(Math.max(0, nanos / 1000)));
        total.increment();
    }

    /** @return latencies recorded */
    long count() {
        return total.sum();
    }

    /** Adds {@code other}'s counts to this one's. */
    void add(LatencyHistogram other) {
        for (int i = 0; i < BUCKETS; i++) {
            long n = other.counts.get(i);
            if (n != 0) {
                counts.addAndGet(i, n);
                total.add(n);
            }
        }
    }

    /**
     * @param fraction e.g. 0.99
     * @return the latency in microseconds that {@code fraction} of the recorded ones do not exceed (the upper bound
     *     of its bucket); 0 when nothing was recorded
     */
    long percentileMicros(double fraction) {
        long n = count();
        if (n == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(fraction * n);
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts.get(i);
            if (seen >= rank) {
                return upper(i);
            }
        }
        return upper(BUCKETS - 1);
    }

    static int bucket(long micros) {
        if (micros < EXACT) {
            return (int) micros;
        }
        int exp = 63 - Long.numberOfLeadingZeros(micros); // at least 4
        int sub = (int) ((micros >>> (exp - 3)) & (SUB - 1));
        return EXACT + (exp - 4) * SUB + sub;
    }

    /** @return the largest latency (µs) in bucket {@code b} */
    static long upper(int b) {
        if (b < EXACT) {
            return b;
        }
        int exp = (b - EXACT) / SUB + 4;
        int sub = (b - EXACT) % SUB;
        return ((SUB + sub + 1L) << (exp - 3)) - 1;
    }
}
