package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The soak's latency histogram: buckets cover every value once, and percentiles land within a bucket's 12.5%. */
@Timeout(30)
class LatencyHistogramTest {

    @Test
    void bucketsAreContiguousAndOrdered() {
        long previousUpper = -1;
        for (int b = 0; b < 400; b++) {
            long upper = LatencyHistogram.upper(b);
            assertThat(LatencyHistogram.bucket(previousUpper + 1)).as("first value after bucket %s", b - 1)
                    .isEqualTo(b);
            assertThat(LatencyHistogram.bucket(upper)).as("upper bound of bucket %s", b).isEqualTo(b);
            assertThat(upper).isGreaterThan(previousUpper);
            previousUpper = upper;
        }
    }

    @Test
    void percentilesOfAUniformSpread() {
        LatencyHistogram h = new LatencyHistogram();
        for (int micros = 1; micros <= 10_000; micros++) {
            h.record(micros * 1000L);
        }
        assertThat(h.count()).isEqualTo(10_000);
        assertThat(h.percentileMicros(0.5)).isBetween(5_000L, 5_625L);
        assertThat(h.percentileMicros(0.99)).isBetween(9_900L, 11_138L);
        LatencyHistogram merged = new LatencyHistogram();
        merged.add(h);
        merged.add(h);
        assertThat(merged.count()).isEqualTo(20_000);
        assertThat(merged.percentileMicros(0.99)).isEqualTo(h.percentileMicros(0.99));
        assertThat(new LatencyHistogram().percentileMicros(0.99)).isZero();
    }
}
