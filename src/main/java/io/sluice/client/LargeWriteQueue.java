package io.sluice.client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.sluice.common.Threads;
import io.sluice.errors.BackpressureTimeoutException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.StreamingInterruptedException;

/**
 * Runs one writer's large writes in the background, at most {@link #IN_FLIGHT} at a time, and has them merge in the
 * order they were begun: while one large event merges, the next one's transient segment is created and filled.
 *
 * <p>Each write gets a <em>turn</em>: a future that completes once the write has finished (merged or failed) and
 * every earlier write's turn has completed. A write's merge waits for the previous turn and for the writer's small
 * writes begun before it; the writer's small writes begun after a large one wait for its turn
 * ({@link #awaitBegun()}), so a writer's events of one key stay in the order they were written.
 *
 * <p>Heap: a write holds its payloads until it is merged, and {@link io.sluice.segment.LargeEventWriter} at most two
 * encoded 8 MiB pieces while sending; so {@code IN_FLIGHT} large events of size S cost about
 * {@code IN_FLIGHT × S + 32 MiB}.
 *
 * <p>Thread-safe, lock-free.
 */
final class LargeWriteQueue {
    /** Large writes under way at most; {@link #begin} blocks for a free place beyond that. */
    static final int IN_FLIGHT = 2;

    private final Semaphore places = new Semaphore(IN_FLIGHT);
    /** The turn of the write begun last. */
    private final AtomicReference<CompletableFuture<Void>> last =
            new AtomicReference<>(CompletableFuture.completedFuture(null));
    private final WriteTracker tracker = new WriteTracker();
    private final String stream;
    private final Duration placeTimeout;

    /**
     * @param stream what the errors name
     * @param placeTimeout how long {@link #begin} waits for a free place before it fails
     */
    LargeWriteQueue(String stream, Duration placeTimeout) {
        this.stream = stream;
        this.placeTimeout = placeTimeout;
    }

    /**
     * Begins a large write on a virtual thread of its own, once fewer than {@link #IN_FLIGHT} are under way.
     *
     * @param before what the write's merge waits for besides the earlier large writes (the small writes begun
     *     before it); its failure does not stop the write
     * @param write the write: it calls the {@code Runnable} it is given just before its merge (possibly again on a
     *     retry, when it returns at once) and throws a {@link SluiceException} if it fails
     * @return completes when the write is merged, or exceptionally with its failure
     * @throws BackpressureTimeoutException if no place came free within the timeout
     */
    CompletableFuture<Void> begin(CompletableFuture<?> before, Consumer<Runnable> write) {
        acquirePlace();
        CompletableFuture<Void> turn = new CompletableFuture<>();
        CompletableFuture<Void> previous = last.getAndSet(turn);
        CompletableFuture<Void> done = new CompletableFuture<>();
        WriteTracker.Epoch epoch = tracker.register();
        Runnable awaitTurn = () -> {
            awaitQuietly(previous);
            awaitQuietly(before);
        };
        Runnable task = () -> {
            try {
                write.accept(awaitTurn);
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            } finally {
                places.release();
                // a write that failed before its merge still hands its turn on only after the earlier ones
                previous.whenComplete((v, e) -> turn.complete(null));
                epoch.done(done.isCompletedExceptionally() ? done.exceptionNow() : null);
            }
        };
        try {
            Threads.startVirtual("sluice-large-write-" + stream, task);
        } catch (RuntimeException e) {
            places.release();
            previous.whenComplete((v, x) -> turn.complete(null));
            epoch.done(e);
            throw e;
        }
        return done;
    }

    /** Blocks until every large write begun so far has finished (merged or failed). */
    void awaitBegun() {
        CompletableFuture<Void> turn = last.get();
        if (!turn.isDone()) {
            awaitQuietly(turn);
        }
    }

    /**
     * @return completes when every large write begun so far has finished; exceptionally with the first failure
     *     among them, if any
     */
    CompletableFuture<Void> flush() {
        return tracker.flush();
    }

    private void acquirePlace() {
        try {
            if (!places.tryAcquire(placeTimeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new BackpressureTimeoutException("the writer of stream " + stream + " had " + IN_FLIGHT
                        + " large events under way for " + placeTimeout.toMillis() + " ms: the server is not keeping up");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while waiting to begin a large write to " + stream, e);
        }
    }

    /** Waits for {@code f} to complete, however it completes. */
    private void awaitQuietly(CompletableFuture<?> f) {
        try {
            f.handle((v, e) -> null).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while a write to " + stream
                    + " waited for the writer's earlier writes", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("a handled future failed", e);
        }
    }
}
