package io.sluice.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.errors.RetriesExhaustedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The retry policy: what it retries, how long it waits, when it gives up. */
@Timeout(20)
class RetryTest {
    private static final Retry FAST = Retry.withExpBackoff(Duration.ofMillis(1), 2, 5, Duration.ofMillis(4));

    @Test
    void retriesRetriableFailuresUntilSuccess() {
        AtomicInteger calls = new AtomicInteger();
        String result = FAST.run("op", () -> {
            if (calls.incrementAndGet() < 3) {
                throw new ConnectionFailedException("down");
            }
            return "ok";
        });
        assertThat(result).isEqualTo("ok");
        assertThat(calls).hasValue(3);
    }

    @Test
    void terminalFailuresAreNotRetried() {
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> FAST.run("op", () -> {
            calls.incrementAndGet();
            throw new NoSuchStreamException("stream 's/t' does not exist");
        })).isInstanceOf(NoSuchStreamException.class);
        assertThat(calls).hasValue(1);
    }

    @Test
    void givesUpAfterMaxAttemptsWithTheLastCause() {
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> FAST.run("createScope", () -> {
            throw new ConnectionFailedException("down " + calls.incrementAndGet());
        })).isInstanceOf(RetriesExhaustedException.class).hasMessageContaining("createScope failed after 5 attempts")
                .hasCauseInstanceOf(ConnectionFailedException.class).cause().hasMessage("down 5");
    }

    @Test
    void backoffGrowsAndIsCapped() {
        Retry r = Retry.withExpBackoff(Duration.ofMillis(1), 10, 10, Duration.ofSeconds(20));
        assertThat(r.backoff(1)).isEqualTo(Duration.ofMillis(1));
        assertThat(r.backoff(2)).isEqualTo(Duration.ofMillis(10));
        assertThat(r.backoff(4)).isEqualTo(Duration.ofSeconds(1));
        assertThat(r.backoff(6)).isEqualTo(Duration.ofSeconds(20));
        assertThat(r.backoff(9)).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void doesNotSleepPastTheDeadline() {
        Retry slow = Retry.withExpBackoff(Duration.ofMinutes(1), 2, 5, Duration.ofMinutes(5));
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> slow.run("op", Deadline.after(Duration.ofSeconds(5)), () -> {
            calls.incrementAndGet();
            throw new ConnectionFailedException("down");
        })).isInstanceOf(RetriesExhaustedException.class).hasMessageContaining("deadline leaves no time");
        assertThat(calls).hasValue(1);
    }

    @Test
    void badParametersAreNamed() {
        assertThatThrownBy(() -> Retry.withExpBackoff(Duration.ofMillis(1), 0.5, 3, Duration.ofSeconds(1)))
                .hasMessageContaining("multiplier");
        assertThatThrownBy(() -> Retry.withExpBackoff(Duration.ofMillis(1), 2, 0, Duration.ofSeconds(1)))
                .hasMessageContaining("maxAttempts");
    }

    @Test
    void deadlinesCompareAndExpire() {
        Deadline past = Deadline.after(Duration.ofMillis(-1));
        Deadline future = Deadline.after(Duration.ofHours(1));
        assertThat(past.expired()).isTrue();
        assertThat(future.expired()).isFalse();
        assertThat(past.min(future)).isSameAs(past);
        assertThat(Deadline.after(Duration.ofSeconds(Long.MAX_VALUE)).expired()).isFalse();
        assertThatThrownBy(() -> past.check("reading")).hasMessageContaining("reading did not complete");
    }
}
