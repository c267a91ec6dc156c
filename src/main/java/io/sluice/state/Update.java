package io.sluice.state;

/**
 * A change to the state of a {@link StateSynchronizer}: what is written to the log and applied, in log order, by
 * every synchronizer that reads it (Pravega's {@code Update}). It must be deterministic: the same update applied to
 * the same state gives the same result in every process.
 *
 * @param <S> the state
 */
@FunctionalInterface
public interface Update<S> {
    /**
     * @param state the state before this update; never {@code null}, and not to be changed (states are shared)
     * @return the state after it, never {@code null}
     */
    S applyTo(S state);
}
