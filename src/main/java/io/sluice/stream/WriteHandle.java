package io.sluice.stream;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The outcome of a pipelined write: done when the event is durable on the server (or failed for good).
 * Waiting is optional: {@link EventStreamWriter#flush()} waits for every write at once.
 */
public interface WriteHandle {

    /** @return true once the write succeeded or failed */
    boolean isDone();

    /**
     * Blocks until the write is durable.
     *
     * @throws io.sluice.errors.SluiceException why the write failed (e.g. retries exhausted)
     * @throws io.sluice.errors.StreamingInterruptedException if interrupted
     */
    void await();

    /**
     * Blocks until the write is durable or {@code timeout} passes.
     *
     * @throws io.sluice.errors.DeadlineExceededException if it is not done in time (it may still complete later)
     * @throws IllegalArgumentException if {@code timeout} is negative
     */
    void await(Duration timeout);

    /**
     * @return a new future completing with the write, for callers who compose asynchronously; its stages run on a
     *     virtual thread of their own, never on the client's connection threads, so they may block
     */
    CompletableFuture<Void> toCompletableFuture();
}
