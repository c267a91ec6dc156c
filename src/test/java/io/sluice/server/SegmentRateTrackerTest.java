package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.server.controller.ScaleRequestListener;

/** The segment store's auto-scaling rule (Pravega's SegmentAggregates and AutoScaleProcessor) on a clock of its own. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SegmentRateTrackerTest {
    private static final String SEGMENT = "sc/s/0.#epoch.0";
    /** With a 120 s window a tick is 1 s, the short rate's window 24 s, the long one 240 s. */
    private static final Duration WINDOW = Duration.ofSeconds(120);

    private final AtomicLong now = new AtomicLong(1_000_000);
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final SegmentRateTracker tracker = new SegmentRateTracker(new SegmentRateTracker.Windows(WINDOW), now::get,
            new ScaleRequestListener() {
                @Override
                public void scaleUp(String segment, int splits, long timestampMillis) {
                    requests.add("up " + segment + " " + splits + " @" + (timestampMillis - 1_000_000) / 1000);
                }

                @Override
                public void scaleDown(String segment, boolean silent, long timestampMillis) {
                    requests.add("down " + segment + (silent ? " silent" : "") + " @"
                            + (timestampMillis - 1_000_000) / 1000);
                }
            });

    /** Runs {@code seconds} one-second ticks, appending {@code perSecond} events of {@code bytes} bytes before each. */
    private void run(int seconds, int perSecond, int bytes) {
        for (int i = 0; i < seconds; i++) {
            now.addAndGet(1000);
            if (perSecond > 0) {
                tracker.appended(SEGMENT, SegmentRateTracker.BY_EVENTS, 10, perSecond, (long) perSecond * bytes);
            }
            tracker.tick();
        }
    }

    @Test
    void aSegmentAboveItsTargetAsksForASplitAfterTheCoolDownAndThenIsMuted() {
        tracker.policy(SEGMENT, SegmentRateTracker.BY_EVENTS, 10);
        run(120, 100, 10);
        assertThat(requests).as("nothing during the cool-down").isEmpty();
        run(1, 100, 10);
        // 100 events/s against a target of 10: ten splits asked (the controller caps them at the scale factor)
        assertThat(requests).containsExactly("up " + SEGMENT + " 10 @121");
        assertThat(tracker.rates(SEGMENT)[0]).isCloseTo(100.0, org.assertj.core.data.Offset.offset(0.5));
        run(119, 100, 10);
        assertThat(requests).as("muted for a window").hasSize(1);
        run(2, 100, 10);
        assertThat(requests).hasSize(2).last().isEqualTo("up " + SEGMENT + " 10 @242");
    }

    @Test
    void aSegmentJustAboveItsTargetWaitsForTheLongRate() {
        tracker.policy(SEGMENT, SegmentRateTracker.BY_EVENTS, 10);
        // 15 events/s: below 5x (short rate) and 2x (middle rate): only the window's rate over the target counts
        run(121, 15, 10);
        assertThat(requests).containsExactly("up " + SEGMENT + " 2 @121");
    }

    @Test
    void aSegmentBelowItsTargetAsksForAMergeAfterTwiceTheWindowAndAnIdleOneSilently() {
        tracker.policy(SEGMENT, SegmentRateTracker.BY_EVENTS, 10);
        run(240, 2, 10);
        assertThat(requests).isEmpty();
        run(1, 2, 10);
        assertThat(requests).containsExactly("down " + SEGMENT + " @241");
        // idle from now on: after twice the window without an append, one silent request
        run(240, 0, 0);
        assertThat(requests).hasSize(1);
        run(2, 0, 0);
        assertThat(requests).hasSize(2).last().isEqualTo("down " + SEGMENT + " silent @482");
        run(600, 0, 0);
        assertThat(requests).as("an idle segment reports once").hasSize(2);
    }

    @Test
    void byteRatesCountKibibytesAndOnlyScalingPoliciesAreTracked() {
        tracker.policy(SEGMENT, SegmentRateTracker.BY_BYTES, 10);
        for (int i = 0; i < 121; i++) {
            now.addAndGet(1000);
            // 20 KiB/s in 10 events: twice the target
            tracker.appended(SEGMENT, SegmentRateTracker.BY_BYTES, 10, 10, 20 * 1024);
            tracker.tick();
        }
        assertThat(requests).containsExactly("up " + SEGMENT + " 2 @121");
        assertThat(tracker.rates(SEGMENT)[2]).isCloseTo(20.0, org.assertj.core.data.Offset.offset(0.01));

        tracker.policy("sc/f/0.#epoch.0", SegmentRateTracker.NO_SCALING, 0);
        tracker.appended("sc/f/0.#epoch.0", SegmentRateTracker.NO_SCALING, 0, 1000, 1000);
        tracker.appended("sc/s/1.#epoch.0#transaction.0123", SegmentRateTracker.BY_EVENTS, 10, 1000, 1000);
        assertThat(tracker.rates("sc/f/0.#epoch.0")).isNull();
        assertThat(tracker.rates("sc/s/1.#epoch.0#transaction.0123")).isNull();
        // a policy changed to fixed, or a sealed segment, is forgotten
        tracker.policy(SEGMENT, SegmentRateTracker.NO_SCALING, 0);
        assertThat(tracker.rates(SEGMENT)).isNull();
        tracker.policy(SEGMENT, SegmentRateTracker.BY_EVENTS, 10);
        tracker.forget(SEGMENT);
        assertThat(tracker.rates(SEGMENT)).isNull();
        run(1000, 0, 0);
        assertThat(requests).hasSize(1);
    }

    @Test
    void silentTicksDecayTheRates() {
        tracker.policy(SEGMENT, SegmentRateTracker.BY_EVENTS, 10);
        run(10, 100, 10);
        double before = tracker.rates(SEGMENT)[0];
        // one tick after 24 s without one: 23 silent ticks and one with what came meanwhile (nothing)
        now.addAndGet(24_000);
        tracker.tick();
        double after = tracker.rates(SEGMENT)[0];
        assertThat(after).isLessThan(before * 0.5);
    }

    @Test
    void theWindowMustBeLongEnoughToTick() {
        assertThatThrownBy(() -> new SegmentRateTracker.Windows(Duration.ofMillis(5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("scale window");
        assertThat(new SegmentRateTracker.Windows(SegmentRateTracker.PRAVEGA_WINDOW).tickMillis()).isEqualTo(5000);
        assertThatThrownBy(() -> EmbeddedServer.builder().scaleWindow(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
