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
 * <p>If the store fails to make an event durable, the model is ahead of the log; the journal then refuses every
 * further write ({@link ServiceUnavailableException}) so no client sees more state that could be lost.
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
                    LOG.error("controller metadata could not be made durable; refusing further changes", e.getCause());
                }
                failure = e.getCause();
                throw new ServiceUnavailableException("controller metadata could not be made durable", e.getCause());
            }
        }
        return decision.result();
    }

    private void checkHealthy() {
        Throwable f = failure;
        if (f != null) {
            throw new ServiceUnavailableException("controller metadata store failed earlier", f);
        }
    }
}
