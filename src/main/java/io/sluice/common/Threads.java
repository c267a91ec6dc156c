package io.sluice.common;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.errors.StreamingInterruptedException;

/**
 * The one place Sluice creates threads: virtual threads with readable names and an uncaught-exception handler
 * that logs (and platform threads for connection readers configured so). Never pool virtual threads; start one per
 * task.
 *
 * <p>Virtual threads do not show up in {@link Thread#getAllStackTraces()}, so this class counts the ones it started
 * that are still running ({@link #liveVirtualThreads()}) and the exceptions that reached its handler
 * ({@link #uncaughtExceptions()}): cheap counters that let a test see a thread leak or a thread dying.
 */
public final class Threads {
    private static final Logger LOG = LoggerFactory.getLogger(Threads.class);
    private static final LongAdder LIVE_VIRTUAL = new LongAdder();
    private static final LongAdder UNCAUGHT = new LongAdder();
    private static final Thread.UncaughtExceptionHandler LOG_UNCAUGHT = (t, e) -> {
        UNCAUGHT.increment();
        LOG.error("uncaught exception in thread {}", t.getName(), e);
    };

    private Threads() {
    }

    /**
     * Starts {@code task} on a new virtual thread.
     *
     * @param name the thread's name, shown in thread dumps (e.g. {@code "sluice-conn-reader-127.0.0.1:12345"})
     * @return the started thread
     */
    public static Thread startVirtual(String name, Runnable task) {
        return Thread.ofVirtual().name(name).uncaughtExceptionHandler(LOG_UNCAUGHT).start(counted(task));
    }

    /**
     * Starts {@code task} on a new platform (daemon) thread: only for a loop that blocks in socket reads and whose
     * wake-up latency matters more than its cost (a connection's reader, when its configuration asks for it).
     *
     * @param name the thread's name, shown in thread dumps
     * @return the started thread
     */
    public static Thread startPlatform(String name, Runnable task) {
        return Thread.ofPlatform().daemon().name(name).uncaughtExceptionHandler(LOG_UNCAUGHT).start(task);
    }

    /**
     * @param prefix names are {@code prefix} followed by a counter
     * @return a factory of virtual threads
     */
    public static ThreadFactory virtualFactory(String prefix) {
        ThreadFactory factory = Thread.ofVirtual().name(prefix, 0).uncaughtExceptionHandler(LOG_UNCAUGHT).factory();
        return task -> factory.newThread(counted(task));
    }

    /**
     * @param prefix thread name prefix
     * @return an executor that starts one virtual thread per task (close it to wait for them)
     */
    public static ExecutorService perTaskExecutor(String prefix) {
        return Executors.newThreadPerTaskExecutor(virtualFactory(prefix));
    }

    /**
     * Runs blocking tasks at the same time, each on a virtual thread of its own (a single task on the caller's
     * thread), and returns their results in order: for requests that need not wait for each other.
     *
     * @param prefix thread name prefix
     * @param tasks the tasks; a result may be null
     * @return their results, in the tasks' order
     * @throws RuntimeException the first failure (the first to happen), as its task threw it; the tasks still
     *     running are interrupted, and the call returns once all have ended
     * @throws StreamingInterruptedException if the caller was interrupted while waiting (the tasks are interrupted)
     */
    public static <T> List<T> all(String prefix, List<? extends Supplier<? extends T>> tasks) {
        int n = tasks.size();
        if (n <= 1) {
            List<T> one = new ArrayList<>(n);
            if (n == 1) {
                one.add(tasks.getFirst().get());
            }
            return one;
        }
        Object[] results = new Object[n];
        List<Future<Void>> futures = new ArrayList<>(n);
        try (ExecutorService threads = perTaskExecutor(prefix)) {
            CompletionService<Void> done = new ExecutorCompletionService<>(threads);
            for (int i = 0; i < n; i++) {
                Supplier<? extends T> task = tasks.get(i);
                int index = i;
                futures.add(done.submit(() -> {
                    results[index] = task.get();
                    return null;
                }));
            }
            try {
                for (int i = 0; i < n; i++) {
                    done.take().get();
                }
            } catch (ExecutionException e) {
                futures.forEach(f -> f.cancel(true));
                switch (e.getCause()) {
                    case RuntimeException r -> throw r;
                    case Error r -> throw r;
                    default -> throw new IllegalStateException("a task of " + prefix + " failed", e.getCause());
                }
            } catch (InterruptedException e) {
                futures.forEach(f -> f.cancel(true));
                Thread.currentThread().interrupt();
                throw new StreamingInterruptedException("interrupted while waiting for the tasks of " + prefix, e);
            }
        }
        List<T> out = new ArrayList<>(n);
        for (Object r : results) {
            @SuppressWarnings("unchecked")
            T t = (T) r;
            out.add(t);
        }
        return out;
    }

    /** @return how many virtual threads started here are running now (started and not yet finished) */
    public static long liveVirtualThreads() {
        return LIVE_VIRTUAL.sum();
    }

    /** @return how many exceptions reached the uncaught-exception handler of threads started here, since start-up */
    public static long uncaughtExceptions() {
        return UNCAUGHT.sum();
    }

    private static Runnable counted(Runnable task) {
        return () -> {
            LIVE_VIRTUAL.increment();
            try {
                task.run();
            } finally {
                LIVE_VIRTUAL.decrement();
            }
        };
    }
}
