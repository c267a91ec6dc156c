package io.sluice.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.errors.RetriableException;
import io.sluice.errors.RetriesExhaustedException;
import io.sluice.errors.ServiceUnavailableException;
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
            throw new ServiceUnavailableException("busy");
        })).isInstanceOf(RetriesExhaustedException.class).hasMessageContaining("deadline leaves no time");
        assertThat(calls).hasValue(1);
    }

    @Test
    void badParametersAreNamed() {
        assertThatThrownBy(() -> Retry.withExpBackoff(Duration.ofMillis(1), 0.5, 3, Duration.ofSeconds(1)))
                .hasMessageContaining("multiplier");
        assertThatThrownBy(() -> Retry.withExpBackoff(Duration.ofMillis(1), 2, 0, Duration.ofSeconds(1)))
                .hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> Retry.withExpBackoff(Duration.ofMillis(1), 2, 3, Duration.ofSeconds(1))
                .withMaxReconnectBackoff(Duration.ZERO))
                .hasMessageContaining("after a connection failure must be positive");
    }

    @Test
    void waitsAfterConnectionFailuresAreCapped() {
        // Pravega's policy: uncapped, the eighth attempt would come after 1 + 10 + 100 ms + 1 + 10 + 20 + 20 s
        Retry pravega = Retry.withExpBackoff(Duration.ofMillis(1), 10, 10, Duration.ofSeconds(20))
                .withMaxReconnectBackoff(Duration.ofMillis(20));
        AtomicInteger calls = new AtomicInteger();
        long start = System.nanoTime();
        String result = pravega.run("connect", () -> {
            if (calls.incrementAndGet() < 8) {
                throw new ConnectionFailedException("refused");
            }
            return "ok";
        });
        assertThat(result).isEqualTo("ok");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(pravega.maxReconnectBackoff()).isEqualTo(Duration.ofMillis(20));
        assertThat(Retry.withExpBackoff(Duration.ofMillis(1), 10, 10, Duration.ofSeconds(20)).maxReconnectBackoff())
                .isEqualTo(Retry.DEFAULT_MAX_RECONNECT_BACKOFF).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void otherRetriableFailuresWaitTheExponentialBackoff() {
        Retry r = new Retry(Duration.ofMillis(50), 2, 3, Duration.ofSeconds(20), 0,
                RetriableException.class::isInstance, Duration.ofMillis(1));
        long start = System.nanoTime();
        assertThatThrownBy(() -> r.run("op", () -> {
            throw new ServiceUnavailableException("busy");
        })).isInstanceOf(RetriesExhaustedException.class).hasMessageContaining("after 3 attempts");
        // 50 + 100 ms, whatever the reconnect cap
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
    }

    @Test
    void aCappedRunGivesUpWhenTheUncappedWaitsWouldHaveEnded() {
        // uncapped: waits of 40, 80 and 160 ms, 280 ms in all; capped at 10 ms the four attempts are over after 30 ms,
        // so it goes on trying every 10 ms until 280 ms have passed
        Retry r = new Retry(Duration.ofMillis(40), 2, 4, Duration.ofSeconds(1), 0, RetriableException.class::isInstance,
                Duration.ofMillis(10));
        AtomicInteger calls = new AtomicInteger();
        long start = System.nanoTime();
        assertThatThrownBy(() -> r.run("connect", () -> {
            throw new ConnectionFailedException("refused " + calls.incrementAndGet());
        })).isInstanceOf(RetriesExhaustedException.class).hasMessageContaining("connect failed after")
                .hasCauseInstanceOf(ConnectionFailedException.class);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(280)).isLessThan(Duration.ofSeconds(10));
        assertThat(calls.get()).isGreaterThan(4);
    }

    @Test
    void aCappedRunGoesOnAfterAnotherRetriableFailure() {
        // the attempts run out on capped waits after connection failures; then the peer, coming back, fails a call
        // otherwise (a connection closed under it): the run still has the time the cap saved, and goes on
        Retry r = new Retry(Duration.ofMillis(40), 2, 4, Duration.ofSeconds(1), 0, RetriableException.class::isInstance,
                Duration.ofMillis(10));
        AtomicInteger calls = new AtomicInteger();
        String result = r.run("connect", () -> {
            int n = calls.incrementAndGet();
            if (n <= 4) {
                throw new ConnectionFailedException("refused " + n);
            }
            if (n == 5) {
                throw new ServiceUnavailableException("busy while starting");
            }
            return "ok";
        });
        assertThat(result).isEqualTo("ok");
        assertThat(calls).hasValue(6);
        // a run that saved no time gives up at its last attempt, whatever the failure (the plain policy)
        AtomicInteger plain = new AtomicInteger();
        assertThatThrownBy(() -> r.run("op", () -> {
            plain.incrementAndGet();
            throw new ServiceUnavailableException("busy");
        })).isInstanceOf(RetriesExhaustedException.class).hasMessageContaining("after 4 attempts");
        assertThat(plain).hasValue(4);
    }

    @Test
    void aCapAtTheLongestWaitIsThePlainPolicy() {
        Retry plain = Retry.withExpBackoff(Duration.ofMillis(1), 2, 5, Duration.ofMillis(4))
                .withMaxReconnectBackoff(Duration.ofMillis(4));
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> plain.run("op", () -> {
            calls.incrementAndGet();
            throw new ConnectionFailedException("down");
        })).isInstanceOf(RetriesExhaustedException.class).hasMessageContaining("after 5 attempts");
        assertThat(calls).hasValue(5);
    }

    @Test
    void attemptsCountAcrossALoopAndStartAfreshAfterProgress() {
        Retry.Attempts attempts = FAST.attempts("sessions", null);
        for (int i = 0; i < 4; i++) {
            attempts.failed(new ConnectionFailedException("dropped"));
        }
        assertThat(attempts.failures()).isEqualTo(4);
        attempts.reset();
        assertThat(attempts.failures()).isZero();
        for (int i = 0; i < 4; i++) {
            attempts.failed(new ConnectionFailedException("dropped"));
        }
        assertThatThrownBy(() -> attempts.failed(new ConnectionFailedException("dropped")))
                .isInstanceOf(RetriesExhaustedException.class).hasMessageContaining("sessions failed after 5 attempts");
        assertThatThrownBy(() -> attempts.failed(new NoSuchStreamException("gone")))
                .isInstanceOf(NoSuchStreamException.class);
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
