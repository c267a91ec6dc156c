package io.sluice.common;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.RetriableException;
import io.sluice.errors.RetriesExhaustedException;
import io.sluice.errors.StreamingInterruptedException;

/**
 * A retry policy: exponential backoff with jitter, a bound on attempts, and a predicate that says which failures
 * are worth retrying (by default the {@link RetriableException} branch). Backoff sleeps block the calling
 * (virtual) thread. Immutable and thread-safe.
 *
 * <p><b>Reconnecting.</b> After a {@link ConnectionFailedException} (the peer could not be reached, or it dropped
 * the connection) the wait before the next attempt is at most {@link #maxReconnectBackoff()} (250 ms by default),
 * however far the exponential backoff has grown: a server that restarts, or is down for a few seconds, is reached
 * again within that time of coming back rather than after a backoff of 10 or 20 s. The time this cap saves is not
 * taken from the policy's patience: once {@code maxAttempts} attempts have failed, a run that shortened its waits
 * goes on trying (every {@code maxReconnectBackoff} at most after a connection failure, the exponential backoff after
 * any other retriable failure, never past the time saved) until it has spent as long as the uncapped waits would
 * have taken, so it gives up at about the same time as without the cap (about 90 s for Pravega's policy of 1 ms,
 * ×10, 10 attempts, at most 20 s). A cap of {@code maxBackoff} or more turns this off: the plain exponential
 * policy, as Pravega's client has it. Other failures wait the exponential backoff.
 *
 * <pre>{@code
 * Retry retry = Retry.withExpBackoff(Duration.ofMillis(1), 10, 10, Duration.ofSeconds(20));
 * StreamConfig config = retry.run("getStreamConfiguration", () -> stub.getStreamConfiguration(info));
 * }</pre>
 *
 * @param initialBackoff the wait before the second attempt
 * @param multiplier how much each wait grows
 * @param maxAttempts attempts in all, including the first (1 = no retry); after connection failures, more (above)
 * @param maxBackoff the longest single wait
 * @param jitter fraction of each wait randomised away, in {@code [0, 1]} (0.2 = between 80% and 100%)
 * @param retriable which failures to retry
 * @param maxReconnectBackoff the longest single wait after a connection failure, positive
 */
public record Retry(Duration initialBackoff, double multiplier, int maxAttempts, Duration maxBackoff, double jitter,
                    Predicate<Throwable> retriable, Duration maxReconnectBackoff) {

    /** The default of {@link #maxReconnectBackoff()}: a restarted server is reached again within about this. */
    public static final Duration DEFAULT_MAX_RECONNECT_BACKOFF = Duration.ofMillis(250);

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
        Objects.requireNonNull(maxReconnectBackoff, "maxReconnectBackoff");
        if (initialBackoff.isNegative() || maxBackoff.isNegative()) {
            throw new IllegalArgumentException("backoff must not be negative: initial " + initialBackoff + ", max "
                    + maxBackoff);
        }
        if (maxReconnectBackoff.isNegative() || maxReconnectBackoff.isZero()) {
            // zero would turn the extra attempts after connection failures into a busy loop
            throw new IllegalArgumentException("the longest wait after a connection failure must be positive "
                    + "(maxReconnectBackoff): " + maxReconnectBackoff);
        }
        if (!(multiplier >= 1.0)) { // NaN too
            throw new IllegalArgumentException("backoff multiplier must be at least 1: " + multiplier);
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
        }
        if (jitter < 0 || jitter > 1) {
            throw new IllegalArgumentException("jitter must be in [0, 1]: " + jitter);
        }
    }

    /** A policy with the default {@link #maxReconnectBackoff()}, {@link #DEFAULT_MAX_RECONNECT_BACKOFF}. */
    public Retry(Duration initialBackoff, double multiplier, int maxAttempts, Duration maxBackoff, double jitter,
                 Predicate<Throwable> retriable) {
        this(initialBackoff, multiplier, maxAttempts, maxBackoff, jitter, retriable, DEFAULT_MAX_RECONNECT_BACKOFF);
    }

    /**
     * @return a policy retrying {@link RetriableException}s with 20% jitter, waiting at most
     *     {@link #DEFAULT_MAX_RECONNECT_BACKOFF} after a connection failure
     */
    public static Retry withExpBackoff(Duration initialBackoff, double multiplier, int maxAttempts, Duration maxBackoff) {
        return new Retry(initialBackoff, multiplier, maxAttempts, maxBackoff, 0.2, RetriableException.class::isInstance);
    }

    /** @return a policy that tries once */
    public static Retry none() {
        return new Retry(Duration.ZERO, 1, 1, Duration.ZERO, 0, t -> false, DEFAULT_MAX_RECONNECT_BACKOFF);
    }

    /** @return this policy retrying only failures that {@code which} accepts */
    public Retry retryingOn(Predicate<Throwable> which) {
        return new Retry(initialBackoff, multiplier, maxAttempts, maxBackoff, jitter, which, maxReconnectBackoff);
    }

    /** @return this policy with another number of attempts */
    public Retry withMaxAttempts(int attempts) {
        return new Retry(initialBackoff, multiplier, attempts, maxBackoff, jitter, retriable, maxReconnectBackoff);
    }

    /**
     * @param cap the longest wait after a connection failure; {@link #maxBackoff()} or more for none but the
     *     exponential policy's own
     * @return this policy with another cap on the wait after a connection failure
     */
    public Retry withMaxReconnectBackoff(Duration cap) {
        return new Retry(initialBackoff, multiplier, maxAttempts, maxBackoff, jitter, retriable, cap);
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
        Attempts attempts = attempts(what, deadline);
        while (true) {
            try {
                return attempt.run();
            } catch (RuntimeException e) {
                attempts.failed(e);
            }
        }
    }

    /**
     * The failures of one retried operation so far, for callers that retry across a loop of their own (a writer
     * that reconnects, and counts a session the server dropped before acknowledging anything as a failed attempt):
     * {@link Attempts#failed} waits as {@link #run} would, or gives up as it would.
     *
     * @param what the operation, named in the exhausted-retries message
     * @param deadline no backoff sleeps past it; {@code null} for none
     * @return no failures yet
     */
    public Attempts attempts(String what, Deadline deadline) {
        return new Attempts(this, what, deadline);
    }

    /**
     * The failures of one retried operation. Not thread-safe: used by the one thread that retries.
     */
    public static final class Attempts {
        private final Retry policy;
        private final String what;
        private final Deadline deadline;
        private int failures;
        /** What capped waits after connection failures have saved of the exponential waits. */
        private long savedNanos;
        /** Once the attempts are used up: when the time saved runs out (valid if {@link #extended}). */
        private long extendedUntilNanos;
        private boolean extended;

        private Attempts(Retry policy, String what, Deadline deadline) {
            this.policy = policy;
            this.what = Objects.requireNonNull(what, "what");
            this.deadline = deadline;
        }

        /** @return the failures since the start or the last {@link #reset()} */
        public int failures() {
            return failures;
        }

        /** The operation made progress: the next failure is the first again. */
        public void reset() {
            failures = 0;
            savedNanos = 0;
            extended = false;
        }

        /**
         * Takes a failed attempt: rethrows it if it is not retriable, gives up if the attempts (and, after
         * connection failures, the time the policy allows) are used up, or else waits before the next attempt.
         *
         * @throws RetriesExhaustedException when giving up, with {@code failure} as the cause
         * @throws StreamingInterruptedException if interrupted while waiting
         */
        public void failed(RuntimeException failure) {
            if (!policy.retriable.test(failure)) {
                throw failure;
            }
            int n = ++failures;
            boolean unreachable = failure instanceof ConnectionFailedException;
            long cap = policy.maxReconnectBackoff.toNanos();
            long wait;
            if (n < policy.maxAttempts) {
                long exponential = policy.backoff(n).toNanos();
                wait = unreachable ? Math.min(exponential, cap) : exponential;
                savedNanos += exponential - wait;
            } else {
                if (savedNanos <= 0) {
                    throw exhausted(n, failure, false);
                }
                // the capped waits let the attempts run out early: go on for as long as the waits would have taken,
                // whatever the failure now (a peer that comes back may fail a call or two in other ways first, such
                // as a connection closed under a call)
                if (!extended) {
                    extended = true;
                    extendedUntilNanos = System.nanoTime() + savedNanos;
                }
                long left = extendedUntilNanos - System.nanoTime();
                if (left <= 0) {
                    throw exhausted(n, failure, false);
                }
                wait = Math.min(unreachable ? cap : policy.backoff(n).toNanos(), left);
            }
            long sleep = policy.jittered(wait);
            if (deadline != null && deadline.remainingNanos() < sleep) {
                throw exhausted(n, failure, true);
            }
            sleepNanos(sleep);
        }

        private RetriesExhaustedException exhausted(int n, RuntimeException e, boolean deadlineHit) {
            return new RetriesExhaustedException(what + " failed after " + n + (n == 1 ? " attempt" : " attempts")
                    + (deadlineHit ? " and its deadline leaves no time to retry" : "") + ": " + e.getMessage(), e);
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
