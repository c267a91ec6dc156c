package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.common.Deadline;
import io.sluice.stream.EventPointer;
import io.sluice.stream.EventRead;
import io.sluice.stream.Position;
import io.sluice.stream.Segment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Acks}: the acknowledged position is the end of the longest acknowledged prefix, whatever the order. */
@Timeout(30)
class AcksTest {
    private static final Segment SEGMENT = new Segment("s", "t", 0);

    /** Events of 10 bytes each, from offset 100. */
    private static EventRead<String> event(int n) {
        return new EventRead<>("e" + n, Position.of(java.util.Map.of(SEGMENT, 110L + 10 * n)),
                new EventPointer(SEGMENT, 100 + 10 * n, 10), null, false);
    }

    private static Acks handedOut(int count) {
        Acks acks = new Acks(SEGMENT, 100);
        for (int n = 0; n < count; n++) {
            acks.handedOut(100 + 10 * n, 110 + 10 * n, event(n));
        }
        return acks;
    }

    @Test
    void theAcknowledgedPositionIsTheEndOfTheLongestAcknowledgedPrefix() {
        Acks acks = new Acks(SEGMENT, 100);
        assertThat(acks.position()).isEqualTo(100);
        EventRead<String>[] e = new EventRead[5];
        for (int n = 0; n < 5; n++) {
            e[n] = event(n);
            acks.handedOut(100 + 10 * n, 110 + 10 * n, e[n]);
        }
        assertThat(acks.position()).isEqualTo(100);
        acks.ack(120, e[2], "r");
        acks.ack(140, e[4], "r");
        assertThat(acks.position()).as("event 0 is not acknowledged").isEqualTo(100);
        acks.ack(100, e[0], "r");
        assertThat(acks.position()).as("up to event 1").isEqualTo(110);
        acks.ack(110, e[1], "r");
        assertThat(acks.position()).as("up to event 3").isEqualTo(130);
        acks.ack(130, e[3], "r");
        assertThat(acks.position()).as("everything").isEqualTo(150);
        acks.skipped(160);
        assertThat(acks.position()).as("an undecodable event counts as acknowledged").isEqualTo(160);
    }

    @Test
    void wrongAcksAreRefusedNamingTheSegmentAndOffset() {
        Acks acks = new Acks(SEGMENT, 100);
        EventRead<String> first = event(0);
        acks.handedOut(100, 110, first);
        acks.ack(100, first, "r");
        assertThatThrownBy(() -> acks.ack(100, first, "r")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("acknowledged already").hasMessageContaining("offset 100")
                .hasMessageContaining(SEGMENT.toString());
        EventRead<String> second = event(1);
        acks.handedOut(110, 120, second);
        assertThatThrownBy(() -> acks.ack(110, event(1), "r")).as("an equal read that is not the one handed out")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("another read");
        assertThatThrownBy(() -> acks.ack(120, event(2), "r")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has not handed it out");
        assertThat(acks.unacknowledgedBefore(200)).isEqualTo("1 event(s) of segment " + SEGMENT + " at offsets 110");
    }

    @Test
    void waitersWakeWhenThePrefixReachesThemAndTheLastAckRunsTheCallback() throws Exception {
        Acks acks = handedOut(0);
        EventRead<String> a = event(0);
        EventRead<String> b = event(1);
        acks.handedOut(100, 110, a);
        acks.handedOut(110, 120, b);
        AtomicInteger called = new AtomicInteger();
        assertThat(acks.whenAllAcknowledged(called::incrementAndGet)).isFalse();
        assertThat(acks.await(120, Deadline.after(Duration.ofMillis(50)))).as("times out").isFalse();
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(
                () -> acks.await(120, Deadline.after(Duration.ofSeconds(20))));
        acks.ack(110, b, "r");
        assertThat(called).hasValue(0);
        acks.ack(100, a, "r");
        assertThat(waiting.get(20, TimeUnit.SECONDS)).isTrue();
        assertThat(called).hasValue(1);
        assertThat(acks.whenAllAcknowledged(called::incrementAndGet)).isTrue();
    }
}
