package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.common.Deadline;
import io.sluice.stream.EventPointer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;

/**
 * The events the streaming compat tests write and check: event {@code n} of key {@code k} is
 * {@code "<k>:<n>:<filler>"}, routed by {@code routingKey(k)}, where the filler is derived from both numbers, so a
 * reader can check every event's content, and for every key that its numbers arrive as exactly 0, 1, 2, ... (no
 * duplicates, no gaps, per-key order). Also a {@link Log} of what the readers of a group handed out, which a test
 * can wait on. Stateless helpers; {@link Log} is thread-safe.
 */
final class KeyedEvents {
    /** How long a reader's {@code readNextEvent} waits in the test loops. */
    static final Duration POLL = Duration.ofMillis(200);
    private static final int FILLER_CHARS = 64;

    private final List<String> routingKeys;

    /**
     * @param routingKeys the routing key of each key index
     */
    KeyedEvents(List<String> routingKeys) {
        this.routingKeys = List.copyOf(routingKeys);
    }

    /** @return {@code keys} ASCII routing keys {@code key-0}, {@code key-1}, ... */
    static KeyedEvents ascii(int keys) {
        List<String> names = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            names.add("key-" + k);
        }
        return new KeyedEvents(names);
    }

    /** @return how many keys there are */
    int keys() {
        return routingKeys.size();
    }

    /** @return the routing key of key index {@code k} */
    String routingKey(int k) {
        return routingKeys.get(k);
    }

    /** @return event {@code n} of key index {@code k} */
    static String event(int k, int n) {
        StringBuilder sb = new StringBuilder().append(k).append(':').append(n).append(':');
        long x = (k * 0x9E3779B97F4A7C15L) ^ (n * 0xC2B2AE3D27D4EB4FL);
        while (sb.length() < FILLER_CHARS) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            sb.append(Long.toHexString(x >>> 20));
        }
        return sb.toString();
    }

    /** @return the key index of an event */
    static int keyOf(String event) {
        return Integer.parseInt(event.substring(0, event.indexOf(':')));
    }

    /** @return the per-key number of an event */
    static int numberOf(String event) {
        int first = event.indexOf(':');
        return Integer.parseInt(event.substring(first + 1, event.indexOf(':', first + 1)));
    }

    /**
     * Writes events {@code from} to {@code to - 1} of every key, interleaved over the keys (all keys' event n before
     * any key's event n + 1), without waiting for acknowledgements.
     */
    void write(EventStreamWriter<String> writer, int from, int to) {
        for (int n = from; n < to; n++) {
            for (int k = 0; k < routingKeys.size(); k++) {
                writer.write(routingKeys.get(k), event(k, n));
            }
        }
    }

    /**
     * Checks that {@code read} (in the order the group handed it out) holds exactly events {@code from} to
     * {@code to - 1} of every key, each once, with the right content, and every key's in order.
     */
    void assertExactlyOnceInOrder(Collection<String> read, int from, int to) {
        Map<Integer, Integer> next = new HashMap<>();
        List<String> problems = new ArrayList<>();
        for (String event : read) {
            int k = keyOf(event);
            int n = numberOf(event);
            if (!event.equals(event(k, n))) {
                problems.add("content of " + k + ":" + n + " is wrong: " + event);
            }
            int expected = next.getOrDefault(k, from);
            if (n != expected && problems.size() < 20) {
                problems.add("key " + k + ": read " + n + " where " + expected + " was due ("
                        + (n < expected ? "duplicate or out of order" : "gap") + ")");
            }
            next.put(k, Math.max(expected, n + 1));
        }
        for (int k = 0; k < routingKeys.size(); k++) {
            int reached = next.getOrDefault(k, from);
            if (reached != to) {
                problems.add("key " + k + " (" + routingKeys.get(k) + "): read up to " + reached + ", expected "
                        + to);
            }
        }
        assertThat(problems).as("problems among %s events read", read.size()).isEmpty();
        assertThat(read).hasSize(routingKeys.size() * (to - from));
    }

    /** One read a reader handed out: an event with its pointer, or (event null) a checkpoint it passed. */
    record Read(String readerId, String event, EventPointer pointer, String checkpoint) {
    }

    /**
     * What the readers of a group handed out, in one order across readers: each reader appends right after its
     * {@code readNextEvent} returned. Thread-safe; a test waits for progress with {@link #awaitEvents}.
     */
    static final class Log {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition grew = lock.newCondition();
        /** Guarded by lock. */
        private final List<Read> reads = new ArrayList<>();
        /** Guarded by lock. */
        private int events;

        void add(Read read) {
            lock.lock();
            try {
                reads.add(read);
                if (read.event() != null) {
                    events++;
                }
                grew.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /** Blocks until at least {@code n} events were read; fails the test after {@code timeout}. */
        void awaitEvents(int n, Duration timeout) throws InterruptedException {
            Deadline deadline = Deadline.after(timeout);
            lock.lock();
            try {
                while (events < n) {
                    assertThat(deadline.expired()).as("%s events read within %s (read: %s)", n, timeout, events)
                            .isFalse();
                    grew.await(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
                }
            } finally {
                lock.unlock();
            }
        }

        /** @return how many events were read so far */
        int eventCount() {
            lock.lock();
            try {
                return events;
            } finally {
                lock.unlock();
            }
        }

        /** @return every read so far, in order */
        List<Read> reads() {
            lock.lock();
            try {
                return List.copyOf(reads);
            } finally {
                lock.unlock();
            }
        }

        /** @return the events read so far, in order */
        List<String> events() {
            return reads().stream().filter(r -> r.event() != null).map(Read::event).toList();
        }

        /** @return for each reader, its reads in order */
        Map<String, List<Read>> byReader() {
            Map<String, List<Read>> out = new TreeMap<>();
            for (Read r : reads()) {
                out.computeIfAbsent(r.readerId(), id -> new ArrayList<>()).add(r);
            }
            return out;
        }
    }

    /**
     * Reads with {@code reader} into {@code log} until the group has read everything ({@link EventRead#readCompleted}),
     * failing after {@code timeout}.
     *
     * @return how many events this reader read
     */
    static int drain(EventStreamReader<String> reader, Log log, Duration timeout) {
        Deadline deadline = Deadline.after(timeout);
        int n = 0;
        while (true) {
            assertThat(deadline.expired()).as("reader %s read everything within %s (it read %s)", reader.readerId(),
                    timeout, n).isFalse();
            EventRead<String> e = reader.readNextEvent(POLL);
            if (e.event() != null) {
                log.add(new Read(reader.readerId(), e.event(), e.pointer(), null));
                n++;
            } else if (e.isCheckpoint()) {
                log.add(new Read(reader.readerId(), null, null, e.checkpointName()));
            } else if (e.readCompleted()) {
                return n;
            }
        }
    }
}
