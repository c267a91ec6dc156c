package io.sluice.cli;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.sluice.admin.ReaderGroupManager;
import io.sluice.admin.StreamManager;
import io.sluice.client.SluiceClient;
import io.sluice.common.Threads;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;

/**
 * The workload of {@code demo} and {@code bench}: the workload of the official-client driver's {@code bench}
 * (compat/official-client), measured the same way and reported with the same JSON keys, so that the two clients can
 * be compared side by side on one server.
 *
 * <ol>
 *   <li>write: one writer writes N events of S bytes over {@value #KEYS} routing keys without waiting, then
 *       flushes; timed from the first write to the return of the flush;</li>
 *   <li>read: a new reader group (from the head, no automatic checkpoints) of R readers, created before the clock
 *       starts, each on its own virtual thread; timed from the start of the readers to the N-th event. Every event
 *       is checked by a {@link Verifier}; the phase gives up when no event arrived for the idle timeout;</li>
 *   <li>latency: L sequential awaited writes ({@code writeAndWait}) on the same writer; nearest-rank
 *       percentiles.</li>
 * </ol>
 *
 * <p>Event {@code i} goes to routing key {@code key-(i % 64)} and carries its key index and per-key sequence number
 * {@code i / 64}, then filler that depends on both, so every event can be checked on its own (the official driver's
 * layout):
 * <pre>
 *   int32 key | int32 sequence | filler[size - 8], filler[j] = (byte) (key * 7 + sequence * 13 + j)
 * </pre>
 * Each run uses a stream and reader group of its own and deletes them (and the scope, if the run created it) at the
 * end, best effort.
 */
final class Workload {
    /** Routing keys the events are spread over. */
    static final int KEYS = 64;
    /** Bytes of key index and sequence number at the start of every event: the smallest event size. */
    static final int HEADER_BYTES = 8;
    /** Filler bytes compared or copied at a time. */
    private static final int FILLER_CHUNK = 64 * 1024;
    /**
     * {@code FILLER[i] = (byte) i}: the filler repeats every 256 bytes, so the filler from any position {@code j} of an
     * event with base {@code b} is {@code FILLER[(b + j) & 0xFF ...]}, for up to {@link #FILLER_CHUNK} bytes.
     */
    private static final byte[] FILLER = new byte[FILLER_CHUNK + 256];

    static {
        for (int i = 0; i < FILLER.length; i++) {
            FILLER[i] = (byte) i;
        }
    }
    /** The largest event a writer accepts without large events (8 MiB). */
    static final int MAX_EVENT_BYTES = 8 * 1024 * 1024;
    /** The largest event of a run with {@code --large-events} (1 GiB). */
    static final int MAX_LARGE_EVENT_BYTES = 1024 * 1024 * 1024;

    /** How long one {@code readNextEvent} waits before the reader looks at the idle timeout and the stop flag. */
    private static final Duration POLL = Duration.ofMillis(100);
    private static final String[] ROUTING_KEYS = new String[KEYS];

    static {
        for (int k = 0; k < KEYS; k++) {
            ROUTING_KEYS[k] = "key-" + k;
        }
    }

    private Workload() {
    }

    /**
     * What to run. The messages of the checks name the command-line options.
     *
     * @param events how many events to write and read back
     * @param size bytes per event, {@value #HEADER_BYTES} to {@value #MAX_EVENT_BYTES} (to
     *     {@value #MAX_LARGE_EVENT_BYTES} with large events)
     * @param segments fixed segment count of the stream
     * @param readers readers in the reader group
     * @param latencySamples awaited single writes to time (0 for none)
     * @param idleTimeout the read phase gives up when no event arrived for this long; also what the writer's and
     *     readers' retries of lost connections may take (see {@link ControllerOptions#retryWithin})
     * @param largeEvents the writer writes events over 8 MiB as large events ({@code WriterConfig.withLargeEvents})
     * @param virtualLatencyThread the awaited writes are made on a virtual thread instead of the run's own (platform)
     *     thread
     */
    record Settings(int events, int size, int segments, int readers, int latencySamples, Duration idleTimeout,
                    boolean largeEvents, boolean virtualLatencyThread) {
        /**
         * @throws IllegalArgumentException naming the option that is out of range
         */
        Settings {
            check("--events", events, 1, Integer.MAX_VALUE);
            if (size < HEADER_BYTES) {
                throw new IllegalArgumentException("--size must be at least " + HEADER_BYTES + " bytes (every event "
                        + "starts with its key index and sequence number), but is " + size);
            }
            if (size > MAX_EVENT_BYTES && !largeEvents) {
                throw new IllegalArgumentException("--size over " + MAX_EVENT_BYTES + " bytes (8 MiB) needs "
                        + "--large-events, but is " + size);
            }
            check("--size", size, HEADER_BYTES, MAX_LARGE_EVENT_BYTES);
            check("--segments", segments, 1, 1000);
            check("--readers", readers, 1, 1000);
            check("--latency-samples", latencySamples, 0, 10_000_000);
            if (idleTimeout.isNegative() || idleTimeout.isZero()) {
                throw new IllegalArgumentException("--timeout must be positive: " + idleTimeout);
            }
        }

        /** Settings without large events, awaited writes on the run's own thread. */
        Settings(int events, int size, int segments, int readers, int latencySamples, Duration idleTimeout) {
            this(events, size, segments, readers, latencySamples, idleTimeout, false, false);
        }

        /** @return the kind of thread that makes the awaited writes, as the JSON report names it */
        String latencyThread() {
            return virtualLatencyThread ? "virtual" : "platform";
        }

        private static void check(String option, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(option + " must be between " + min + " and " + max + ", but is "
                        + value);
            }
        }
    }

    /**
     * @param mode {@code bench} or {@code demo}
     * @param controller the controller URI the run used
     * @return the JSON entries that describe the run's setting (as the official-client driver's)
     */
    static Map<String, Object> context(String mode, String controller) {
        Map<String, Object> context = new LinkedHashMap<>();
        context.put("mode", mode);
        context.put("client", "io.sluice:sluice");
        context.put("version", Main.version());
        context.put("jdk", System.getProperty("java.version"));
        context.put("controller", controller);
        return context;
    }

    /** @return the name of the reader group of a run on {@code stream} */
    static String groupOf(ScopedStream stream) {
        return stream.name() + "-rg";
    }

    /** @return the routing key of key index {@code key} */
    static String routingKey(int key) {
        return ROUTING_KEYS[key];
    }

    /** @return a new event of {@code size} bytes for key index {@code key} and sequence number {@code seq} */
    static ByteBuffer event(int key, int seq, int size) {
        byte[] b = new byte[size];
        ByteBuffer event = ByteBuffer.wrap(b).putInt(key).putInt(seq);
        int base = key * 7 + seq * 13;
        for (int j = HEADER_BYTES; j < size; j += FILLER_CHUNK) {
            int n = Math.min(FILLER_CHUNK, size - j);
            System.arraycopy(FILLER, (base + j) & 0xFF, b, j, n);
        }
        return event.rewind();
    }

    /**
     * @return true if {@code event} (from its position, {@code size} bytes) carries the filler of (key, seq); compared
     *     in chunks against {@link #FILLER}, so a check costs about what copying the event costs
     */
    static boolean fillerOk(ByteBuffer event, int key, int seq, int size) {
        int p = event.position();
        int base = key * 7 + seq * 13;
        for (int j = HEADER_BYTES; j < size; j += FILLER_CHUNK) {
            int n = Math.min(FILLER_CHUNK, size - j);
            int from = (base + j) & 0xFF;
            boolean same = event.hasArray()
                    ? Arrays.mismatch(event.array(), event.arrayOffset() + p + j, event.arrayOffset() + p + j + n,
                            FILLER, from, from + n) < 0
                    : event.slice(p + j, n).mismatch(ByteBuffer.wrap(FILLER, from, n)) < 0;
            if (!same) {
                return false;
            }
        }
        return true;
    }

    /**
     * Runs the workload: creates the scope (if missing), a stream with a fixed number of segments and a reader group,
     * writes, reads back and verifies, times awaited writes, and deletes what it created. Blocks until done.
     *
     * @param client the client
     * @param stream the stream to create (it must not exist); the reader group is named after it
     * @param s what to run
     * @return what happened
     * @throws RuntimeException if the run could not go on (e.g. creating the stream or writing failed); what was
     *     created is deleted first, best effort. A verification failure is not thrown: the report says it.
     */
    static Report run(SluiceClient client, ScopedStream stream, Settings s) {
        return run(client, stream, s, Progress.OFF);
    }

    /** As {@link #run(SluiceClient, ScopedStream, Settings)}, counting what is written and read in {@code progress}. */
    static Report run(SluiceClient client, ScopedStream stream, Settings s, Progress progress) {
        long start = System.nanoTime();
        Created created = new Created();
        Measured measured;
        try {
            measured = measure(client, stream, s, created, progress);
        } catch (RuntimeException e) {
            Cleanup cleanup = created.delete(client, stream);
            if (cleanup.error() != null) {
                e.addSuppressed(new IllegalStateException("cleanup: " + cleanup.error()));
            }
            throw e;
        }
        Cleanup cleanup = created.delete(client, stream);
        return new Report(stream, s, measured.writeNanos(), measured.readNanos(), measured.verdict(),
                measured.latencyMicros(), cleanup, System.nanoTime() - start);
    }

    private record Measured(long writeNanos, long readNanos, Verdict verdict, long[] latencyMicros) {
    }

    private static Measured measure(SluiceClient client, ScopedStream stream, Settings s, Created created,
                                    Progress progress) {
        StreamManager streams = client.streamManager();
        created.scope = streams.createScope(stream.scope());
        if (!streams.createStream(stream.scope(), stream.name(), StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(s.segments())).build())) {
            throw new AlreadyExistsException("stream '" + stream + "' already exists");
        }
        created.stream = true;
        try (EventStreamWriter<ByteBuffer> writer = client.newWriter(stream.scope(), stream.name(),
                Serializers.byteBuffer(), ControllerOptions.writerConfig(s.idleTimeout())
                        .withLargeEvents(s.largeEvents()))) {
            long t0 = System.nanoTime();
            for (int i = 0; i < s.events(); i++) {
                int key = i % KEYS;
                writer.write(ROUTING_KEYS[key], event(key, i / KEYS, s.size()));
                if ((i & 1023) == 0) {
                    progress.written.lazySet(i);
                }
            }
            writer.flush();
            progress.written.set(s.events());
            long writeNanos = System.nanoTime() - t0;

            ReaderGroupManager groups = client.readerGroupManager(stream.scope());
            String group = groupOf(stream);
            groups.createReaderGroup(group, ReaderGroupConfig.builder().stream(stream)
                    .disableAutomaticCheckpoints().build()).close();
            created.group = true;
            Verifier verifier = new Verifier(s.events(), s.size());
            progress.read = verifier::read;
            long readNanos = read(client, stream.scope(), group, s, verifier);
            Verdict verdict = verifier.verdict();

            long[] micros = new long[s.latencySamples()];
            Runnable awaited = () -> {
                for (int i = 0; i < micros.length; i++) {
                    long n = (long) s.events() + i;
                    int key = (int) (n % KEYS);
                    ByteBuffer event = event(key, (int) (n / KEYS), s.size());
                    long t = System.nanoTime();
                    writer.writeAndWait(ROUTING_KEYS[key], event);
                    micros[i] = (System.nanoTime() - t) / 1000;
                }
            };
            if (s.virtualLatencyThread()) {
                onVirtualThread(awaited);
            } else {
                awaited.run();
            }
            Arrays.sort(micros);
            return new Measured(writeNanos, readNanos, verdict, micros);
        }
    }

    /**
     * Reads with {@code s.readers()} readers of {@code group} in parallel until the verifier has seen
     * {@code s.events()} events, a reader failed, or no event arrived for the idle timeout (the verifier records
     * the last two). Closes the readers.
     *
     * @return nanoseconds from the start of the readers to the last expected event (or to the end of the phase)
     */
    static long read(SluiceClient client, String scope, String group, Settings s, Verifier verifier) {
        List<EventStreamReader<ByteBuffer>> readers = new ArrayList<>();
        try {
            for (int r = 0; r < s.readers(); r++) {
                readers.add(client.newReader(scope, group, "reader-" + r, Serializers.byteBuffer(),
                        ControllerOptions.readerConfig(s.idleTimeout())));
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong lastEventNanos = new AtomicLong();
            long t0 = System.nanoTime();
            try (ExecutorService threads = Threads.perTaskExecutor("sluice-workload-reader-")) {
                for (EventStreamReader<ByteBuffer> reader : readers) {
                    Verifier.ReaderCheck check = verifier.reader(reader.readerId());
                    threads.execute(() -> readLoop(reader, new Checks() {
                        @Override
                        public long accept(ByteBuffer event) {
                            return check.accept(event);
                        }

                        @Override
                        public long read() {
                            return verifier.read();
                        }

                        @Override
                        public void fail(String reason) {
                            verifier.fail(reason);
                        }
                    }, s.events(), s.idleTimeout(), stop, lastEventNanos));
                }
            }
            long end = lastEventNanos.get();
            return (end == 0 ? System.nanoTime() : end) - t0;
        } finally {
            readers.forEach(EventStreamReader::close);
        }
    }

    /** What a read loop checks its events with; shared by the readers of a group, thread-safe. */
    interface Checks {
        /**
         * @param event one event's bytes (its remaining bytes); not modified
         * @return how many events all readers have checked, this one included
         */
        long accept(ByteBuffer event);

        /** @return how many events all readers have checked */
        long read();

        /** Records why reading ended early; the first reason is kept. */
        void fail(String reason);

        /** Records that no reader of the group got an event for the idle timeout (a {@link #fail} too). */
        default void idle(String reason) {
            fail(reason);
        }
    }

    /**
     * One reader's loop: hands every event to {@code checks} until the group has checked {@code events} of them
     * (then sets {@code lastEventNanos} and {@code stop}), another reader stopped, this reader failed, or no reader
     * of the group got an event for {@code idleTimeout} (both recorded in {@code checks}).
     */
    static void readLoop(EventStreamReader<ByteBuffer> reader, Checks checks, long events, Duration idleTimeout,
                         AtomicBoolean stop, AtomicLong lastEventNanos) {
        long idleNanos = idleTimeout.toNanos();
        long seen = checks.read();
        long seenAt = System.nanoTime();
        try {
            while (!stop.get()) {
                EventRead<ByteBuffer> read = reader.readNextEvent(POLL);
                if (read.hasEvent()) {
                    // the clock is read for the last event only: a reading per event would cost as much as the
                    // read path's own work for small events on a virtual machine
                    if (checks.accept(read.event()) == events) {
                        lastEventNanos.set(System.nanoTime());
                        stop.set(true);
                    }
                    continue;
                }
                long now = System.nanoTime();
                // idle means: no reader of the group got an event for the idle timeout
                long total = checks.read();
                if (total != seen) {
                    seen = total;
                    seenAt = now;
                } else if (now - seenAt >= idleNanos) {
                    checks.idle("no event arrived for " + Formats.duration(idleTimeout.toMillis()));
                    stop.set(true);
                }
            }
        } catch (RuntimeException e) {
            checks.fail(reader.readerId() + " failed: " + e.getMessage());
            stop.set(true);
        }
    }

    /**
     * Runs {@code task} on a new virtual thread and waits for it; what it throws, this throws.
     *
     * @throws StreamingInterruptedException if this thread is interrupted while it waits (the task is interrupted too)
     */
    static void onVirtualThread(Runnable task) {
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread t = Threads.startVirtual("sluice-bench-awaited-writes", () -> {
            try {
                task.run();
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        try {
            t.join();
        } catch (InterruptedException e) {
            t.interrupt();
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while the awaited writes ran", e);
        }
        Throwable e = failed.get();
        if (e instanceof RuntimeException r) {
            throw r;
        }
        if (e instanceof Error err) {
            throw err;
        }
        if (e != null) {
            throw new IllegalStateException("the awaited writes failed: " + e, e);
        }
    }

    /** @return a run's {@code latency} object from the awaited writes' latencies (sorted): nearest-rank percentiles */
    static Map<String, Object> latencyJson(long[] sortedMicros) {
        Map<String, Object> latency = new LinkedHashMap<>();
        latency.put("p50_us", percentile(sortedMicros, 0.50));
        latency.put("p99_us", percentile(sortedMicros, 0.99));
        latency.put("p999_us", percentile(sortedMicros, 0.999));
        latency.put("max_us", sortedMicros.length == 0 ? 0 : sortedMicros[sortedMicros.length - 1]);
        latency.put("mean_us", Arrays.stream(sortedMicros).average().orElse(0));
        latency.put("samples", sortedMicros.length);
        return latency;
    }

    /**
     * Nearest rank: the smallest value with at least {@code p} of them at or below it.
     *
     * @param sorted the values, in ascending order
     * @return the percentile; 0 without values
     */
    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /**
     * @param error what the clean-up could not do, or {@code null} if it did everything
     * @return a run's {@code cleanup} object: {@code ok}, and the error if there is one
     */
    static Map<String, Object> cleanupJson(String error) {
        Map<String, Object> clean = new LinkedHashMap<>();
        clean.put("ok", error == null);
        if (error != null) {
            clean.put("error", error);
        }
        return clean;
    }

    /** @return a phase's {@code events_per_s}, {@code mb_per_s} and {@code seconds}, for events of {@code size} bytes */
    static Map<String, Object> rate(int size, long events, long nanos) {
        Map<String, Object> m = new LinkedHashMap<>();
        double seconds = nanos / 1e9;
        m.put("events_per_s", seconds == 0 ? 0 : Math.round(events / seconds));
        m.put("mb_per_s", seconds == 0 ? 0.0 : events * (double) size / 1e6 / seconds);
        m.put("seconds", seconds);
        return m;
    }

    /** @return a phase's rate for people: {@code events in seconds: events/s, MB/s} */
    static String rateLine(int size, String phase, long events, long nanos) {
        double seconds = nanos / 1e9;
        return String.format(Locale.ROOT, "%-9s %,d events in %.2f s: %,d events/s, %.1f MB/s", phase, events,
                seconds, seconds == 0 ? 0 : Math.round(events / seconds),
                seconds == 0 ? 0 : events * (double) size / 1e6 / seconds);
    }

    /**
     * The first keys of a run's JSON object, shared by the event and the transaction workloads (and named as the
     * official-client driver's {@code bench} names them).
     *
     * @return a new ordered map: {@code ok}, then {@code context}, then the stream and the workload's shape
     */
    static Map<String, Object> jsonHead(boolean ok, Map<String, Object> context, ScopedStream stream,
                                        Settings settings) {
        return jsonHead(ok, context, stream, settings.events(), settings.size(), settings.segments(),
                settings.readers(), KEYS);
    }

    /** As {@link #jsonHead(boolean, Map, ScopedStream, Settings)}, for any workload's shape and routing keys. */
    static Map<String, Object> jsonHead(boolean ok, Map<String, Object> context, ScopedStream stream, int events,
                                        int size, int segments, int readers, int keys) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("ok", ok);
        json.putAll(context);
        json.put("scope", stream.scope());
        json.put("stream", stream.scopedName());
        json.put("events", events);
        json.put("size", size);
        json.put("segments", segments);
        json.put("readers", readers);
        json.put("keys", keys);
        return json;
    }

    /**
     * What a run did, as {@code bench} and {@code demo} print it.
     *
     * @param stream the stream the run used
     * @param settings what it ran
     * @param writeNanos the write phase: first write to the return of the flush
     * @param readNanos the read phase: start of the readers to the last expected event (or the end of the phase)
     * @param verdict what the verification found
     * @param latencyMicros the awaited writes' latencies, sorted
     * @param cleanup how deleting what the run created went
     * @param totalNanos the whole run
     */
    record Report(ScopedStream stream, Settings settings, long writeNanos, long readNanos, Verdict verdict,
                  long[] latencyMicros, Cleanup cleanup, long totalNanos) {

        /** @return true if the verification passed (the clean-up is best effort and does not count) */
        boolean ok() {
            return verdict.ok();
        }

        /**
         * The JSON object, with the keys and nesting of the official-client driver's {@code bench} output.
         *
         * @param context entries that go after {@code ok} (mode, client, controller, ...)
         * @return the object
         */
        Map<String, Object> json(Map<String, Object> context) {
            Map<String, Object> json = jsonHead(ok(), context, stream, settings);
            if (settings.largeEvents()) {
                json.put("large_events", true);
            }
            Map<String, Object> write = rate(settings.size(), settings.events(), writeNanos);
            write.put("failed", 0);
            json.put("write", write);
            json.put("read", rate(settings.size(), verdict.read(), readNanos));
            Map<String, Object> latency = latencyJson(latencyMicros);
            latency.put("thread", settings.latencyThread());
            json.put("latency", latency);
            json.put("verify", verdict.json());
            Map<String, Object> clean = new LinkedHashMap<>();
            clean.put("ok", cleanup.ok());
            clean.put("ms", cleanup.nanos() / 1_000_000);
            if (!cleanup.ok()) {
                clean.put("error", cleanup.error());
            }
            json.put("cleanup", clean);
            json.put("total_ms", totalNanos / 1_000_000);
            return json;
        }

        /** @return a short summary for people, one entry per line */
        List<String> lines() {
            List<String> lines = new ArrayList<>();
            lines.add(String.format(Locale.ROOT, "stream    %s: %d segment%s, %d reader%s; %,d events of %,d bytes "
                    + "over %d routing keys", stream, settings.segments(), settings.segments() == 1 ? "" : "s",
                    settings.readers(), settings.readers() == 1 ? "" : "s", settings.events(), settings.size(), KEYS));
            lines.add(rateLine("write", settings.events(), writeNanos));
            lines.add(rateLine("read", verdict.read(), readNanos));
            if (latencyMicros.length > 0) {
                lines.add(String.format(Locale.ROOT, "latency   %,d awaited writes: p50 %.2f ms, p99 %.2f ms%s",
                        latencyMicros.length, percentile(0.50) / 1000.0, percentile(0.99) / 1000.0,
                        settings.virtualLatencyThread() ? " (on a virtual thread)" : ""));
            }
            lines.add(verdict.ok() ? "verify    ok: every event read exactly once, intact, in order per key"
                    : "verify    FAILED: " + verdict.reason());
            if (!cleanup.ok()) {
                lines.add("cleanup   incomplete: " + cleanup.error());
            }
            return lines;
        }

        private String rateLine(String phase, long events, long nanos) {
            return Workload.rateLine(settings.size(), phase, events, nanos);
        }

        private long percentile(double p) {
            return Workload.percentile(latencyMicros, p);
        }
    }

    /** What a run created, to delete at the end. Confined to the run's thread. */
    static final class Created {
        boolean scope;
        boolean stream;
        boolean group;

        /** Deletes the reader group, the stream (sealed first) and the scope, those the run created. */
        Cleanup delete(SluiceClient client, ScopedStream scopedStream) {
            long t0 = System.nanoTime();
            List<String> errors = new ArrayList<>();
            StreamManager streams = client.streamManager();
            if (group) {
                attempt(errors, "delete reader group " + groupOf(scopedStream),
                        () -> client.readerGroupManager(scopedStream.scope()).deleteReaderGroup(groupOf(scopedStream)));
            }
            if (stream) {
                attempt(errors, "delete stream " + scopedStream, () -> {
                    streams.sealStream(scopedStream.scope(), scopedStream.name());
                    streams.deleteStream(scopedStream.scope(), scopedStream.name());
                });
            }
            if (scope && errors.isEmpty()) {
                attempt(errors, "delete scope " + scopedStream.scope(), () -> streams.deleteScope(scopedStream.scope()));
            }
            return new Cleanup(errors.isEmpty() ? null : String.join("; ", errors), System.nanoTime() - t0);
        }

        private static void attempt(List<String> errors, String what, Runnable action) {
            try {
                action.run();
            } catch (RuntimeException e) {
                errors.add("cannot " + what + ": " + e.getMessage());
            }
        }
    }

    /**
     * How the clean-up went.
     *
     * @param error what failed, or {@code null}
     * @param nanos how long it took
     */
    record Cleanup(String error, long nanos) {
        boolean ok() {
            return error == null;
        }
    }

    /**
     * Checks the events read back against those written: each event's content (its length, a key index and
     * sequence number that were written, and the filler they imply), duplicates (one atomic bit per event),
     * per-key order, and at the end what is missing. Thread-safe: every reader thread checks its events through a
     * {@link ReaderCheck} of its own; nothing blocks.
     *
     * <p>Per-key order is checked per reader: a segment (and so a key) is read by one reader at a time and moves to
     * another reader only between two events, so every reader must see each key's sequence numbers increase. Across
     * readers no order is checked, because two readers' checks of neighbouring events may run in either order.
     */
    static final class Verifier {
        /** Problems described in full; the rest are only counted. */
        private static final int EXAMPLES = 3;

        private final int events;
        private final int size;
        /** Bit {@code i} is set once event {@code i} (key {@code i % 64}, sequence {@code i / 64}) was read. */
        private final AtomicLongArray seen;
        private final AtomicLong read = new AtomicLong();
        private final AtomicLong duplicates = new AtomicLong();
        private final AtomicLong outOfOrder = new AtomicLong();
        private final AtomicLong corrupt = new AtomicLong();
        private final AtomicLong problems = new AtomicLong();
        private final AtomicReferenceArray<String> examples = new AtomicReferenceArray<>(EXAMPLES);
        private final AtomicReference<String> failure = new AtomicReference<>();

        /**
         * @param events how many events were written (numbers 0 to {@code events - 1})
         * @param size the size of every event
         */
        Verifier(int events, int size) {
            this.events = events;
            this.size = size;
            this.seen = new AtomicLongArray((int) ((events + 63L) / 64));
        }

        /**
         * @param readerId names the reader in problem descriptions
         * @return the check of one reader's events, to be used by one thread
         */
        ReaderCheck reader(String readerId) {
            return new ReaderCheck(readerId);
        }

        /** @return how many events were checked so far (duplicates and corrupt ones included) */
        long read() {
            return read.get();
        }

        /**
         * Records why reading ended early (a reader failed, or no event came in time); the first reason is kept.
         *
         * @param reason what happened
         */
        void fail(String reason) {
            failure.compareAndSet(null, reason);
        }

        /** @return the verdict on everything checked so far */
        Verdict verdict() {
            long distinct = 0;
            for (int i = 0; i < seen.length(); i++) {
                distinct += Long.bitCount(seen.get(i));
            }
            List<String> shown = new ArrayList<>();
            for (int i = 0; i < EXAMPLES; i++) {
                if (examples.get(i) != null) {
                    shown.add(examples.get(i));
                }
            }
            return new Verdict(events, read.get(), duplicates.get(), outOfOrder.get(), corrupt.get(),
                    events - distinct, failure.get(), shown);
        }

        private void problem(AtomicLong counter, String description) {
            counter.incrementAndGet();
            long n = problems.getAndIncrement();
            if (n < EXAMPLES) {
                examples.set((int) n, description);
            }
        }

        /** Checks the events of one reader. Confined to one thread. */
        final class ReaderCheck {
            private final String readerId;
            /** The sequence number of the last event of each key this reader got; -1 before the first. */
            private final int[] last = new int[KEYS];

            private ReaderCheck(String readerId) {
                this.readerId = readerId;
                Arrays.fill(last, -1);
            }

            /**
             * Checks one event.
             *
             * @param event the event's bytes (its remaining bytes); not modified
             * @return how many events all readers have checked, this one included
             */
            long accept(ByteBuffer event) {
                check(event);
                return read.incrementAndGet();
            }

            private static String name(int key, int seq) {
                return routingKey(key) + " #" + seq;
            }

            private void check(ByteBuffer event) {
                int p = event.position();
                if (event.remaining() < HEADER_BYTES) {
                    problem(corrupt, readerId + " got an event of " + event.remaining() + " bytes");
                    return;
                }
                int key = event.getInt(p);
                int seq = event.getInt(p + 4);
                long number = (long) seq * KEYS + key;
                if (key < 0 || key >= KEYS || seq < 0 || number >= events) {
                    problem(corrupt, readerId + " got an event that was never written (key index " + key
                            + ", sequence number " + seq + ")");
                    return;
                }
                // the event's name is made only for a problem: this runs once per event read
                if (event.remaining() != size || !fillerOk(event, key, seq, size)) {
                    problem(corrupt, readerId + " got " + name(key, seq) + " with wrong content ("
                            + event.remaining() + " bytes)");
                    return;
                }
                long bit = 1L << (number & 63);
                if ((seen.getAndAccumulate((int) (number >>> 6), bit, (a, b) -> a | b) & bit) != 0) {
                    problem(duplicates, readerId + " got " + name(key, seq) + " again");
                    return;
                }
                if (seq <= last[key]) {
                    problem(outOfOrder, readerId + " got " + name(key, seq) + " after #" + last[key]);
                }
                last[key] = seq;
            }
        }
    }

    /**
     * What the verification found.
     *
     * @param expected events written
     * @param read events read (duplicates and corrupt ones included)
     * @param duplicates events read more than once (the extra reads)
     * @param outOfOrder events a reader got after a later event of the same key
     * @param corrupt events whose content was not an event written (wrong length, key, sequence or filler)
     * @param missing events written but not read (intact)
     * @param failure why reading ended early (a reader failed, no event came in time), or {@code null}
     * @param examples the first few problems, described
     */
    record Verdict(long expected, long read, long duplicates, long outOfOrder, long corrupt, long missing,
                   String failure, List<String> examples) {
        Verdict {
            examples = List.copyOf(examples);
        }

        /** @return true if every event was read exactly once, intact and in per-key order */
        boolean ok() {
            return failure == null && duplicates == 0 && outOfOrder == 0 && corrupt == 0 && missing == 0
                    && read == expected;
        }

        /** @return the run's {@code verify} object, named as the official-client driver names it */
        Map<String, Object> json() {
            Map<String, Object> verify = new LinkedHashMap<>();
            verify.put("ok", ok());
            verify.put("read", read);
            verify.put("duplicates", duplicates);
            verify.put("out_of_order", outOfOrder);
            verify.put("missing", missing);
            verify.put("failed_writes", 0);
            verify.put("corrupt", corrupt);
            if (!ok()) {
                verify.put("error", reason());
            }
            return verify;
        }

        /** @return what went wrong in one sentence, or {@code null} if nothing did */
        String reason() {
            if (ok()) {
                return null;
            }
            List<String> parts = new ArrayList<>();
            if (failure != null) {
                parts.add(failure);
            }
            count(parts, missing, "missing");
            count(parts, duplicates, "duplicate");
            count(parts, outOfOrder, "out of order");
            count(parts, corrupt, "corrupt");
            if (parts.isEmpty()) {
                parts.add(String.format(Locale.ROOT, "%,d events read, %,d expected", read, expected));
            }
            String reason = String.join(", ", parts);
            return examples.isEmpty() ? reason : reason + " (" + String.join("; ", examples) + ")";
        }

        private static void count(List<String> parts, long n, String what) {
            if (n > 0) {
                parts.add(String.format(Locale.ROOT, "%,d %s", n, what));
            }
        }
    }
}
