package io.sluice.compat.official;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The run's result, rendered as the one JSON line on stdout. Values may be {@link Part}s (rendered with
 * {@link Part#toMap()}) or anything {@link Json} writes. Thread-safe: the watchdog may render it while the run is
 * still writing into it.
 */
final class Report {
    private final ReentrantLock lock = new ReentrantLock();
    // guarded by lock
    private final Map<String, Object> fields = new LinkedHashMap<>();

    Report() {
        fields.put("ok", false); // first key, set at the end
    }

    /** Sets {@code key} (keeping its position if it was already there). */
    void put(String key, Object value) {
        lock.lock();
        try {
            fields.put(key, value);
        } finally {
            lock.unlock();
        }
    }

    /** @return the value under {@code key}, or null */
    Object get(String key) {
        lock.lock();
        try {
            return fields.get(key);
        } finally {
            lock.unlock();
        }
    }

    /** @return the report as one line of JSON */
    String toJson() {
        Map<String, Object> copy = new LinkedHashMap<>();
        lock.lock();
        try {
            copy.putAll(fields);
        } finally {
            lock.unlock();
        }
        // render parts outside our lock: each part takes its own
        for (Map.Entry<String, Object> e : copy.entrySet()) {
            if (e.getValue() instanceof Part p) {
                e.setValue(p.toMap());
            }
        }
        return Json.write(copy);
    }
}
