package io.sluice.common;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

import io.sluice.errors.RetriableException;
import io.sluice.errors.RetriesExhaustedException;
import io.sluice.errors.StreamingInterruptedException;

/**
 * A retry policy: exponential backoff with jitter, a bound on attempts, and a predicate that says which failures
 * are worth retrying (by default the {@link RetriableException} branch). Backoff sleeps block the calling
 * (virtual) thread. Immutable and thread-safe.
 *
 * <pre>{@code
 * Retry retry = Retry.withExpBackoff(Duration.ofMillis(1), 10, 10, Duration.ofSeconds(20));
 * StreamConfig config = retry.run("getStreamConfiguration", () -> stub.getStreamConfiguration(info));
 * }</pre>
 *
 * @param initialBackoff the wait before the second attempt
 * @param multiplier how much each wait grows
 * @param maxAttempts attempts in all, including the first (1 = no retry)
 * @param maxBackoff the longest single wait
 * @param jitter fraction of each wait randomised away, in {@code [0, 1]} (0.2 = between 80% and 100%)
 * @param retriable which failures to retry
 */
public record Retry(Duration initialBackoff, double multiplier, int maxAttempts, Duration maxBackoff, double jitter,
                    Predicate<Throwable> retriable) {

    /** The operation to attempt. */
    @FunctionalInterface
    public interface Attempt<T> {
        /** @return the result */
        T run();
    }

    /** Checks the parameters. */
    public Retry {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        Objects.requireNonNull(retriable, "retriable");
        if (initialBackoff.isNegative() || maxBackoff.isNegative()) {
            throw new IllegalArgumentException("backoff must not be negative: initial " + initialBackoff + ", max " + maxBackoff);
        }
        if (multiplier < 1.0) {
            throw new IllegalArgumentException("backoff multiplier must be at least 1: " + multiplier);
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
        }
        if (jitter < 0 || jitter > 1) {
            throw new IllegalArgumentException("jitter must be in [0, 1]: " + jitter);
        }
    }

    /**
     * @return a policy retrying {@link RetriableException}s with 20% jitter
     */
    public static Retry withExpBackoff(Duration initialBackoff, double multiplier, int maxAttempts, Duration maxBackoff) {
        return new Retry(initialBackoff, multiplier, maxAttempts, maxBackoff, 0.2, RetriableException.class::isInstance);
    }

    /** @return a policy that tries once */
    public static Retry none() {
        return new Retry(Duration.ZERO, 1, 1, Duration.ZERO, 0, t -> false);
    }

    /** @return this policy retrying only failures that {@code which} accepts */
    public Retry retryingOn(Predicate<Throwable> which) {
        return new Retry(initialBackoff, multiplier, maxAttempts, maxBackoff, jitter, which);
    }

    /** @return this policy with another number of attempts */
    public Retry withMaxAttempts(int attempts) {
        return new Retry(initialBackoff, multiplier, attempts, maxBackoff, jitter, retriable);
    }

    /**
     * The wait before attempt {@code attempt + 1}, before jitter.
     *
     * @param attempt the attempt that just failed, from 1
     * @return the backoff
     */
    public Duration backoff(int attempt) {
        double nanos = initialBackoff.toNanos() * Math.pow(multiplier, attempt - 1);
        return nanos >= maxBackoff.toNanos() ? maxBackoff : Duration.ofNanos((long) nanos);
    }

    /**
     * Runs {@code attempt} until it succeeds, fails with a non-retriable exception (rethrown as is), or runs out of
     * attempts ({@link RetriesExhaustedException} with the last failure as cause).
     *
     * @param what the operation, named in the exhausted-retries message
     * @return the first successful result
     * @throws StreamingInterruptedException if interrupted while backing off
     */
    public <T> T run(String what, Attempt<T> attempt) {
        return run(what, null, attempt);
    }

    /**
     * Like {@link #run(String, Attempt)}, but gives up early rather than sleep past {@code deadline}.
     *
     * @param deadline no backoff sleeps past it; {@code null} for none
     */
    public <T> T run(String what, Deadline deadline, Attempt<T> attempt) {
        for (int n = 1; ; n++) {
            try {
                return attempt.run();
            } catch (RuntimeException e) {
                if (!retriable.test(e)) {
                    throw e;
                }
                if (n >= maxAttempts) {
                    throw new RetriesExhaustedException(what + " failed after " + n + (n == 1 ? " attempt" : " attempts")
                            + ": " + e.getMessage(), e);
                }
                long sleep = jittered(backoff(n).toNanos());
                if (deadline != null && deadline.remainingNanos() < sleep) {
                    throw new RetriesExhaustedException(what + " failed after " + n
                            + (n == 1 ? " attempt" : " attempts") + " and its deadline leaves no time to retry: "
                            + e.getMessage(), e);
                }
                sleepNanos(sleep);
            }
        }
    }

    private long jittered(long nanos) {
        if (jitter == 0 || nanos == 0) {
            return nanos;
        }
        return (long) (nanos * (1 - jitter * ThreadLocalRandom.current().nextDouble()));
    }

    private static void sleepNanos(long nanos) {
        try {
            Thread.sleep(Duration.ofNanos(nanos));
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while waiting to retry", ie);
        }
    }
}
