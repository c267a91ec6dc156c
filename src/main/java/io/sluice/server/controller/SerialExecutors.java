package io.sluice.server.controller;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.common.Threads;
import io.sluice.errors.ServiceUnavailableException;
import io.sluice.errors.StreamingInterruptedException;

/**
 * Runs tasks one at a time per key, in submission order, each key's queue drained by its own virtual thread (started
 * when the queue becomes non-empty, ending when it is empty). Tasks of different keys run concurrently. The
 * controller gives every stream, reader group, key-value table and scope a key, so the multi-step changes to one
 * entity (with segment store calls in between) never interleave, without holding a lock across I/O.
 *
 * <p>A task must never wait for another task of its own key (that would deadlock); waiting for other keys is fine
 * as long as no cycle forms (scope tasks wait for stream tasks, never the reverse).
 *
 * <p>Thread-safe.
 */
final class SerialExecutors {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    /** A key is present while its drainer runs. Guarded by lock. */
    private final Map<String, ArrayDeque<Runnable>> queues = new HashMap<>();
    /** Tasks queued or running. Guarded by lock. */
    private int pending;
    /** Guarded by lock. */
    private boolean closed;

    /**
     * Queues a task for a key. Does not block.
     *
     * @return completes with the task's result or exception; fails with {@link ServiceUnavailableException} if this
     *         executor is closed
     */
    <T> CompletableFuture<T> submit(String key, Callable<T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Runnable run = () -> {
            try {
                result.complete(task.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        };
        boolean startDrainer;
        lock.lock();
        try {
            if (closed) {
                result.completeExceptionally(new ServiceUnavailableException("the controller is shutting down"));
                return result;
            }
            ArrayDeque<Runnable> queue = queues.get(key);
            startDrainer = queue == null;
            if (startDrainer) {
                queue = new ArrayDeque<>();
                queues.put(key, queue);
            }
            queue.add(run);
            pending++;
        } finally {
            lock.unlock();
        }
        if (startDrainer) {
            Threads.startVirtual("sluice-controller-" + key, () -> drain(key));
        }
        return result;
    }

    private void drain(String key) {
        while (true) {
            Runnable next;
            lock.lock();
            try {
                next = queues.get(key).poll();
                if (next == null) {
                    queues.remove(key);
                    return;
                }
            } finally {
                lock.unlock();
            }
            try {
                next.run();
            } finally {
                lock.lock();
                try {
                    if (--pending == 0) {
                        idle.signalAll();
                    }
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /**
     * Waits until no task is queued or running.
     *
     * @return false if that did not happen within the timeout
     * @throws InterruptedException if interrupted while waiting
     */
    boolean awaitIdle(Duration timeout) throws InterruptedException {
        long remaining = timeout.toNanos();
        lock.lock();
        try {
            while (pending > 0) {
                if (remaining <= 0) {
                    return false;
                }
                remaining = idle.awaitNanos(remaining);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Refuses new tasks and waits (up to the timeout) for the queued ones to finish.
     *
     * @return whether every task finished in time
     */
    boolean close(Duration timeout) {
        lock.lock();
        try {
            closed = true;
        } finally {
            lock.unlock();
        }
        try {
            return awaitIdle(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Waits for a submitted task and returns its result, rethrowing its unchecked exception as is.
     *
     * @throws StreamingInterruptedException if interrupted while waiting (the flag is restored)
     */
    static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while waiting for the controller", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException("controller task failed", cause);
        }
    }
}
