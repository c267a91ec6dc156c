package io.sluice.server.controller;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.errors.ServiceUnavailableException;
import io.sluice.errors.StreamingInterruptedException;

/**
 * The controller's metadata behind one lock: reads look at the {@link ControllerModel}; writes decide, under the
 * lock, which {@link ControllerEvent}s to log, apply them and hand them to the {@link ControllerStore} (which only
 * queues them), then wait for durability outside the lock. Decisions are quick and do no I/O.
 *
 * <p>If the store fails to make an event durable (a full disk), the model is ahead of the log; the journal then refuses
 * every further write ({@link ServiceUnavailableException}, naming the cause) so no client sees more state that could
 * be lost. The next write first asks the store to write the failed events after all
 * ({@link ControllerStore#rewriteFailed()}); once that succeeds the log matches the model again and writes are
 * accepted. (So a change whose caller was told it failed can still take effect, as after a timeout.)
 *
 * <p>Thread-safe.
 */
final class Journal {
    private static final Logger LOG = LoggerFactory.getLogger(Journal.class);

    /** What a write decided: a result for the caller and the events to log (possibly none). */
    record Decision<T>(T result, List<ControllerEvent> events) {
        Decision {
            events = List.copyOf(events);
        }

        static <T> Decision<T> of(T result, ControllerEvent... events) {
            return new Decision<>(result, List.of(events));
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by lock. */
    private final ControllerModel model = new ControllerModel();
    private final ControllerStore store;
    private volatile Throwable failure;
    /** Guarded by lock: the store's attempt to write the failed events, while one is running. */
    private CompletableFuture<Void> rewriting;

    Journal(ControllerStore store) {
        this.store = store;
    }

    /**
     * Replays the store's events into the model. Call once, before anything else. Blocks on the store.
     *
     * @return how many events were replayed
     */
    int recover() {
        List<ControllerEvent> events = store.recover();
        lock.lock();
        try {
            for (ControllerEvent e : events) {
                model.apply(e);
            }
        } finally {
            lock.unlock();
        }
        return events.size();
    }

    /**
     * Runs a query under the lock. The query must be quick and must copy what it returns out of the model.
     */
    <T> T read(Function<ControllerModel, T> query) {
        lock.lock();
        try {
            return query.apply(model);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Decides and logs a change. {@code decide} runs under the lock; it may throw to refuse the change (nothing is
     * logged then). Blocks until the events are durable.
     *
     * @return the decision's result
     * @throws ServiceUnavailableException if the store failed now or earlier
     */
    <T> T write(Function<ControllerModel, Decision<T>> decide) {
        if (failure != null) {
            recoverOrThrow();
        }
        List<CompletableFuture<Void>> durable = new ArrayList<>();
        Decision<T> decision;
        lock.lock();
        try {
            checkHealthy();
            decision = decide.apply(model);
            for (ControllerEvent e : decision.events()) {
                model.apply(e);
                durable.add(store.append(e));
            }
        } finally {
            lock.unlock();
        }
        for (CompletableFuture<Void> f : durable) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StreamingInterruptedException("interrupted while the controller's metadata was logged", e);
            } catch (ExecutionException e) {
                if (failure == null) {
                    LOG.error("controller metadata could not be made durable ({}); refusing changes until it can be",
                            reason(e.getCause()));
                }
                failure = e.getCause();
                throw new ServiceUnavailableException("the controller cannot write its metadata: "
                        + reason(e.getCause()), e.getCause());
            }
        }
        return decision.result();
    }

    /** Has the store write the events that failed; returns once it did, throws if it still cannot. */
    private void recoverOrThrow() {
        CompletableFuture<Void> attempt;
        lock.lock();
        try {
            if (failure == null) {
                return;
            }
            if (rewriting == null) {
                rewriting = store.rewriteFailed();
            }
            attempt = rewriting;
        } finally {
            lock.unlock();
        }
        try {
            attempt.get();
            lock.lock();
            try {
                if (rewriting == attempt) {
                    rewriting = null;
                    failure = null;
                    LOG.info("controller metadata is durable again; accepting changes");
                }
            } finally {
                lock.unlock();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while the controller's metadata was logged", e);
        } catch (ExecutionException e) {
            lock.lock();
            try {
                if (rewriting == attempt) {
                    rewriting = null;
                }
            } finally {
                lock.unlock();
            }
            throw new ServiceUnavailableException("the controller cannot write its metadata: " + reason(e.getCause()),
                    e.getCause());
        }
    }

    private void checkHealthy() {
        Throwable f = failure;
        if (f != null) {
            throw new ServiceUnavailableException("the controller cannot write its metadata: " + reason(f), f);
        }
    }

    /** @return the innermost message of a failure ("No space left on device") */
    private static String reason(Throwable f) {
        String message = f.toString();
        for (Throwable t = f; t != null && t.getCause() != t; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                message = t.getMessage();
            }
        }
        return message;
    }
}
