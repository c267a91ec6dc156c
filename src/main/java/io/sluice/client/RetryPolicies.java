package io.sluice.client;

import io.sluice.common.Retry;
import io.sluice.stream.RetryPolicy;

/** The internal {@link Retry} a public {@link RetryPolicy} stands for. */
final class RetryPolicies {

    private RetryPolicies() {
    }

    /** @return {@code policy} as a retry of {@code RetriableException}s with 20% jitter */
    static Retry toRetry(RetryPolicy policy) {
        return Retry.withExpBackoff(policy.initialBackoff(), policy.multiplier(), policy.maxAttempts(),
                policy.maxBackoff()).withMaxReconnectBackoff(policy.maxReconnectBackoff());
    }
}
