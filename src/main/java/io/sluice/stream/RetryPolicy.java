package io.sluice.stream;

import java.time.Duration;

import io.sluice.common.Retry;

/**
 * How writers and readers retry a lost or refused connection to a segment store: exponential backoff (with 20%
 * jitter) between attempts, a bound on attempts, and a shorter cap on the wait after a connection failure, so a
 * restarted server is reached again soon after it is back. After {@code maxAttempts} failed attempts a policy whose
 * waits the cap shortened keeps trying until it has waited as long as the uncapped backoff would have (about 90 s
 * for {@link #PRAVEGA}); a cap of {@code maxBackoff} or more gives the plain exponential policy.
 *
 * @param initialBackoff the wait before the second attempt, not negative
 * @param multiplier how much each wait grows, at least 1
 * @param maxAttempts attempts in all, including the first (1 = no retry), at least 1
 * @param maxBackoff the longest single wait, not negative
 * @param maxReconnectBackoff the longest single wait after a connection failure, positive
 */
public record RetryPolicy(Duration initialBackoff, double multiplier, int maxAttempts, Duration maxBackoff,
                          Duration maxReconnectBackoff) {

    /** Pravega's client policy: 1 ms, ×10, 10 attempts, at most 20 s; at most 250 ms after a connection failure. */
    public static final RetryPolicy PRAVEGA = exponential(Duration.ofMillis(1), 10, 10, Duration.ofSeconds(20));

    /** Checks the values (the messages name the one that is wrong). */
    public RetryPolicy {
        new Retry(initialBackoff, multiplier, maxAttempts, maxBackoff, 0, t -> false, maxReconnectBackoff);
    }

    /** @return an exponential policy waiting at most 250 ms after a connection failure */
    public static RetryPolicy exponential(Duration initialBackoff, double multiplier, int maxAttempts,
                                          Duration maxBackoff) {
        return new RetryPolicy(initialBackoff, multiplier, maxAttempts, maxBackoff,
                Retry.DEFAULT_MAX_RECONNECT_BACKOFF);
    }

    /** @return this policy with another cap on the wait after a connection failure */
    public RetryPolicy withMaxReconnectBackoff(Duration cap) {
        return new RetryPolicy(initialBackoff, multiplier, maxAttempts, maxBackoff, cap);
    }
}
