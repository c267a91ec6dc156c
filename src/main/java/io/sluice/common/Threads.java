package io.sluice.common;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place Sluice creates threads: virtual threads with readable names and an uncaught-exception handler
 * that logs (and platform threads for connection readers configured so). Never pool virtual threads; start one per
 * task.
 */
public final class Threads {
    private static final Logger LOG = LoggerFactory.getLogger(Threads.class);
    private static final Thread.UncaughtExceptionHandler LOG_UNCAUGHT =
            (t, e) -> LOG.error("uncaught exception in thread {}", t.getName(), e);

    private Threads() {
    }

    /**
     * Starts {@code task} on a new virtual thread.
     *
     * @param name the thread's name, shown in thread dumps (e.g. {@code "sluice-conn-reader-127.0.0.1:12345"})
     * @return the started thread
     */
    public static Thread startVirtual(String name, Runnable task) {
        return Thread.ofVirtual().name(name).uncaughtExceptionHandler(LOG_UNCAUGHT).start(task);
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
        return Thread.ofVirtual().name(prefix, 0).uncaughtExceptionHandler(LOG_UNCAUGHT).factory();
    }

    /**
     * @param prefix thread name prefix
     * @return an executor that starts one virtual thread per task (close it to wait for them)
     */
    public static ExecutorService perTaskExecutor(String prefix) {
        return Executors.newThreadPerTaskExecutor(virtualFactory(prefix));
    }
}
