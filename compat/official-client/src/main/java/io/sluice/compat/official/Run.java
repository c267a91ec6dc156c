package io.sluice.compat.official;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

import io.pravega.client.ClientConfig;
import io.pravega.client.admin.KeyValueTableManager;
import io.pravega.client.admin.StreamManager;
import io.pravega.client.stream.ScalingPolicy;
import io.pravega.client.stream.StreamConfiguration;

/**
 * What every part of a run shares: the options, the client configuration, the run's deadline, the current phase
 * (for the watchdog's message), and what the run created (for cleanup). Thread-safe.
 */
final class Run {
    final Options options;
    final ClientConfig config;
    final long deadlineNanos;
    private volatile String phase = "starting";
    private volatile boolean keepScope;
    private final CountDownLatch aborted = new CountDownLatch(1);
    private final AtomicReference<String> abortReason = new AtomicReference<>();
    private final ReentrantLock lock = new ReentrantLock();
    // guarded by lock
    private final List<String> streams = new ArrayList<>();
    // guarded by lock
    private final List<String> tables = new ArrayList<>();

    Run(Options options, ClientConfig config, long startNanos) {
        this.options = options;
        this.config = config;
        this.deadlineNanos = startNanos + TimeUnit.SECONDS.toNanos(options.timeoutSeconds());
    }

    /** Names the phase the run is in (logged, and reported if the watchdog ends the run). */
    void phase(String phase) {
        this.phase = phase;
        Driver.LOG.info("{}", phase);
    }

    /** @return the phase the run is in */
    String phase() {
        return phase;
    }

    /** @return nanoseconds left until the run's deadline (at least 1) */
    long remainingNanos() {
        return Math.max(1, deadlineNanos - System.nanoTime());
    }

    /**
     * Ends the run early, from any thread: the watchdog reports {@code reason} as the run's error and exits at once
     * (for a run that cannot end by itself, e.g. when the client filled the heap). The first reason wins.
     */
    void abort(String reason) {
        abortReason.compareAndSet(null, reason);
        aborted.countDown();
    }

    /**
     * Waits for the run's deadline or an {@link #abort}, whichever comes first (the watchdog's wait).
     *
     * @return the abort's reason, or null at the deadline
     */
    String awaitDeadlineOrAbort() throws InterruptedException {
        aborted.await(remainingNanos(), TimeUnit.NANOSECONDS);
        return abortReason.get();
    }

    /** @return {@code options.stream()} with {@code suffix} appended */
    String name(String suffix) {
        return options.stream() + suffix;
    }

    /** Creates stream {@code name} in the run's scope with {@code segments} fixed segments; remembers it. */
    void createStream(StreamManager streamManager, String name, int segments) {
        boolean created = streamManager.createStream(options.scope(), name,
                StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(segments)).build());
        if (!created) {
            throw new IllegalStateException("stream " + options.scope() + "/" + name + " already exists");
        }
        lock.lock();
        try {
            streams.add(name);
        } finally {
            lock.unlock();
        }
    }

    /** Cleanup keeps the scope (it existed before the run). */
    void keepScope() {
        keepScope = true;
    }

    /** Remembers a key-value table to delete at cleanup. */
    void createdTable(String name) {
        lock.lock();
        try {
            tables.add(name);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Deletes what the run created: key-value tables, then streams (sealed first), then the scope unless it existed
     * before. Every step is attempted; the part records each failure.
     */
    void cleanup(Part part) {
        List<String> streamList;
        List<String> tableList;
        lock.lock();
        try {
            streamList = new ArrayList<>(streams);
            tableList = new ArrayList<>(tables);
        } finally {
            lock.unlock();
        }
        String scope = options.scope();
        if (!tableList.isEmpty()) {
            try (KeyValueTableManager kvts = KeyValueTableManager.create(config)) {
                for (String table : tableList) {
                    attempt(part, "delete key-value table " + table,
                            () -> part.check(kvts.deleteKeyValueTable(scope, table),
                                    "deleteKeyValueTable(" + table + ") returned false"));
                }
            }
        }
        try (StreamManager streamManager = StreamManager.create(config)) {
            for (String stream : streamList) {
                attempt(part, "seal stream " + stream, () -> streamManager.sealStream(scope, stream));
                attempt(part, "delete stream " + stream, () -> part.check(streamManager.deleteStream(scope, stream),
                        "deleteStream(" + stream + ") returned false"));
            }
            if (!keepScope) {
                attempt(part, "delete scope " + scope, () -> part.check(streamManager.deleteScope(scope),
                        "deleteScope(" + scope + ") returned false"));
            }
        }
        part.put("streams_deleted", streamList.size());
        part.put("tables_deleted", tableList.size());
    }

    private static void attempt(Part part, String what, Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            part.check(false, what + ": " + Part.describe(e));
        }
    }
}
