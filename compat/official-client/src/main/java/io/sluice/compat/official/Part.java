package io.sluice.compat.official;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The result of one part of a run ({@code events}, {@code txn}, ...): named values, failed checks, an error, and how
 * long it took. A part is ok when it finished, no check failed and no error was recorded.
 *
 * <p>Thread-safe: the part's own threads record into it while the watchdog may render it.
 */
final class Part {
    private static final int MAX_FAILURES = 20;

    private final String name;
    private final ReentrantLock lock = new ReentrantLock();
    // guarded by lock
    private final Map<String, Object> values = new LinkedHashMap<>();
    // guarded by lock
    private final List<String> failures = new ArrayList<>();
    // guarded by lock
    private int failureCount;
    // guarded by lock
    private String error;
    // guarded by lock
    private long startNanos;
    // guarded by lock
    private long endNanos;

    Part(String name) {
        this.name = name;
    }

    /** @return the part's name, its key in the JSON result */
    String name() {
        return name;
    }

    /** Marks the start of the part's clock. */
    void start() {
        lock.lock();
        try {
            startNanos = System.nanoTime();
        } finally {
            lock.unlock();
        }
    }

    /** Stops the part's clock. */
    void finish() {
        lock.lock();
        try {
            endNanos = System.nanoTime();
        } finally {
            lock.unlock();
        }
    }

    /** Records a value under {@code key} (replacing an earlier one). */
    void put(String key, Object value) {
        lock.lock();
        try {
            values.put(key, value);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Records a check: when {@code passed} is false, {@code failure} is added to the part's failures.
     *
     * @return {@code passed}
     */
    boolean check(boolean passed, String failure) {
        if (!passed) {
            Driver.LOG.warn("{}: check failed: {}", name, failure);
            lock.lock();
            try {
                failureCount++;
                if (failures.size() < MAX_FAILURES) {
                    failures.add(failure);
                }
            } finally {
                lock.unlock();
            }
        }
        return passed;
    }

    /** Records that two values must be equal. */
    boolean checkEqual(Object expected, Object actual, String what) {
        return check(expected == null ? actual == null : expected.equals(actual),
                what + ": expected " + expected + " but was " + actual);
    }

    /** Records an error that ended the part early (the first one wins). */
    void error(Throwable t) {
        Driver.LOG.error("{}: failed", name, t);
        lock.lock();
        try {
            if (error == null) {
                error = describe(t);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Records an error message that ended the part early (the first one wins). */
    void error(String message) {
        Driver.LOG.error("{}: {}", name, message);
        lock.lock();
        try {
            if (error == null) {
                error = message;
            }
        } finally {
            lock.unlock();
        }
    }

    /** @return true when the part finished without failed checks or errors */
    boolean ok() {
        lock.lock();
        try {
            return endNanos != 0 && failureCount == 0 && error == null;
        } finally {
            lock.unlock();
        }
    }

    /** @return the part as a JSON-ready map: ok, ms, the values, then failures and error if any */
    Map<String, Object> toMap() {
        lock.lock();
        try {
            Map<String, Object> m = new LinkedHashMap<>();
            boolean finished = endNanos != 0;
            m.put("ok", finished && failureCount == 0 && error == null);
            if (startNanos != 0) {
                long end = finished ? endNanos : System.nanoTime();
                m.put("ms", (end - startNanos) / 1_000_000);
            }
            if (!finished) {
                m.put("finished", false);
            }
            m.putAll(values);
            if (failureCount > 0) {
                m.put("failed_checks", failureCount);
                m.put("failures", new ArrayList<>(failures));
            }
            if (error != null) {
                m.put("error", error);
            }
            return m;
        } finally {
            lock.unlock();
        }
    }

    /** @return the exception's class and message, with its causes, on one line */
    static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder();
        Throwable cur = t;
        for (int depth = 0; cur != null && depth < 6; depth++, cur = cur.getCause()) {
            if (depth > 0) {
                sb.append(" <- caused by ");
            }
            sb.append(cur.getClass().getName());
            if (cur.getMessage() != null) {
                sb.append(": ").append(cur.getMessage());
            }
            if (cur.getCause() == cur) {
                break;
            }
        }
        return sb.toString();
    }

    /** @return the full stack trace, for logs */
    static String stackTrace(Throwable t) {
        StringWriter sw = new StringWriter();
        t.printStackTrace(new PrintWriter(sw));
        return sw.toString();
    }
}
