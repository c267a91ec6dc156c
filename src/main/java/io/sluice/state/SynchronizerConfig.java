package io.sluice.state;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link StateSynchronizer} or a table synchronizer (Pravega's
 * {@code SynchronizerConfig} holds writer and buffer settings instead; Sluice needs neither). Immutable.
 *
 * @param updateTimeout how long an update (or compaction) keeps trying after losing races to other writers before it
 *     throws {@link io.sluice.errors.DeadlineExceededException}; positive
 */
public record SynchronizerConfig(Duration updateTimeout) {
    /** One minute of retries. */
    public static final SynchronizerConfig DEFAULT = new SynchronizerConfig(Duration.ofSeconds(60));

    /** Checks the values. */
    public SynchronizerConfig {
        Objects.requireNonNull(updateTimeout, "updateTimeout");
        if (updateTimeout.isNegative() || updateTimeout.isZero()) {
            throw new IllegalArgumentException("updateTimeout must be positive: " + updateTimeout);
        }
    }
}
