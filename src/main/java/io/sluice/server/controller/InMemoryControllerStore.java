package io.sluice.server.controller;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link ControllerStore} that keeps events in memory: nothing survives the process, but a new controller given
 * the same instance replays what the previous one logged (a restart within one process). Thread-safe.
 */
public final class InMemoryControllerStore implements ControllerStore {
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by lock. */
    private final List<ControllerEvent> events = new ArrayList<>();
    /** Guarded by lock. */
    private boolean closed;

    /** Creates an empty store. */
    public InMemoryControllerStore() {
    }

    /** @return every event logged so far, oldest first */
    @Override
    public List<ControllerEvent> recover() {
        return events();
    }

    /** @return a copy of every event logged so far, oldest first */
    public List<ControllerEvent> events() {
        lock.lock();
        try {
            return List.copyOf(events);
        } finally {
            lock.unlock();
        }
    }

    /** Records the event; the returned future is already complete (failed if the store is closed). */
    @Override
    public CompletableFuture<Void> append(ControllerEvent event) {
        lock.lock();
        try {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("controller store is closed"));
            }
            events.add(event);
        } finally {
            lock.unlock();
        }
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Closes this handle. The events stay readable, so a new controller can {@link #reopen()} and replay them.
     */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
        } finally {
            lock.unlock();
        }
    }

    /** Accepts appends again after {@link #close()}, as a restarted process would. */
    public void reopen() {
        lock.lock();
        try {
            closed = false;
        } finally {
            lock.unlock();
        }
    }
}
