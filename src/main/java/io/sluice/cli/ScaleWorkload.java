package io.sluice.cli;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.sluice.admin.StreamManager;
import io.sluice.client.SluiceClient;
import io.sluice.common.KeyHash;
import io.sluice.common.Threads;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;

/**
 * The scale workload of {@code bench --writers W} (W &gt; 1): many writers, many segments, one reader group, and what
 * the client costs in heap and threads meanwhile. The official-client driver's {@code bench --writers W}
 * (compat/official-client, {@code ScaleBench}) runs the same workload and reports the same JSON keys.
 *
 * <ol>
 *   <li>setup: a stream of K fixed segments; W writers, created one after the other ({@code setup.writers_ms});</li>
 *   <li>write: each writer on a virtual thread of its own writes its share of the N events without waiting, then
 *       flushes; timed from the start of the writers to the end of the last flush;</li>
 *   <li>read: a reader group from the head and its R readers ({@code setup.readers_ms}), each reader on a virtual
 *       thread; timed from the start of the readers to the N-th event;</li>
 *   <li>resources, with every writer and reader still open: the heap live after two {@code System.gc()}, the most
 *       heap used seen by a sampler every {@value #SAMPLE_MILLIS} ms since setup began, and the platform threads
 *       (the peak since setup and now, the sampler not counted);</li>
 *   <li>latency: the W writers at once, each making its share of L awaited writes one after the other.</li>
 * </ol>
 *
 * <p>Writer {@code w} writes all its events with one routing key, the first {@code w<w>-<n>} ({@code n = 0, 1, ...})
 * whose routing-key fraction falls in segment {@code w % K}'s key range {@code [s/K, (s+1)/K)}: so with W = K each
 * segment has exactly one writer. Its events carry key index {@code w} and sequence numbers from 0, in
 * {@link Workload}'s layout; a reader checks each event's length, key index and sequence number (per key: no
 * duplicate, none out of order, none missing), not its filler, as the official driver does.
 */
final class ScaleWorkload {
    /** The most writers (and so key indexes) a run may have. */
    static final int MAX_WRITERS = 10_000;
    /** The most segments the stream of a run may have. */
    static final int MAX_SEGMENTS = 10_000;
    /** How often the sampler reads the heap in use. */
    static final long SAMPLE_MILLIS = 50;
    private static final double MIB = 1024.0 * 1024.0;

    private ScaleWorkload() {
    }

    /**
     * What to run. The messages of the checks name the command-line options.
     *
     * @param events how many events the writers write together and the readers read back
     * @param size bytes per event, {@value Workload#HEADER_BYTES} to {@value Workload#MAX_EVENT_BYTES}
     * @param segments fixed segment count of the stream, 1 to {@value #MAX_SEGMENTS}
     * @param readers readers in the reader group
     * @param writers writers, 2 to {@value #MAX_WRITERS}
     * @param latencySamples awaited writes, shared among the writers (0 for none)
     * @param idleTimeout the read phase gives up when no event arrived for this long
     */
    record Settings(int events, int size, int segments, int readers, int writers, int latencySamples,
                    Duration idleTimeout) {
        /**
         * @throws IllegalArgumentException naming the option that is out of range
         */
        Settings {
            check("--writers", writers, 2, MAX_WRITERS);
            check("--events", events, 1, Integer.MAX_VALUE);
            check("--size", size, Workload.HEADER_BYTES, Workload.MAX_EVENT_BYTES);
            check("--segments", segments, 1, MAX_SEGMENTS);
            check("--readers", readers, 1, 1000);
            check("--latency-samples", latencySamples, 0, 10_000_000);
            if (idleTimeout.isNegative() || idleTimeout.isZero()) {
                throw new IllegalArgumentException("--timeout must be positive: " + idleTimeout);
            }
        }

        /** @return how many of {@code total} things writer {@code w} takes, when the writers share them out */
        int share(int total, int w) {
            return total / writers + (w < total % writers ? 1 : 0);
        }

        private static void check(String option, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(option + (option.equals("--writers") ? "" : " with --writers")
                        + " must be between " + min + " and " + max + ", but is " + value);
            }
        }
    }

    /**
     * @param writer the writer's index
     * @param segments the stream's fixed segment count
     * @return the routing key of writer {@code writer}: the first {@code w<writer>-<n>} that falls in segment
     *     {@code writer % segments}
     */
    static String routingKey(int writer, int segments) {
        int target = writer % segments;
        for (int n = 0; ; n++) {
            String key = "w" + writer + "-" + n;
            if ((int) (KeyHash.routingKey(key) * segments) == target) {
                return key;
            }
        }
    }

    /**
     * Runs the workload: creates the scope (if missing), the stream, writers, a reader group and readers; writes,
     * reads back and verifies, measures the resources and the awaited writes, and deletes what it created. Blocks
     * until done.
     *
     * @param client the client
     * @param stream the stream to create (it must not exist); the reader group is named after it
     * @param s what to run
     * @param progress counts what is written and read
     * @return what happened
     * @throws RuntimeException if the run could not go on (e.g. creating the stream or a writer failed); what was
     *     created is deleted first, best effort. A verification failure is not thrown: the report says it.
     */
    static Report run(SluiceClient client, ScopedStream stream, Settings s, Progress progress) {
        long start = System.nanoTime();
        Workload.Created created = new Workload.Created();
        Report.Builder measured = new Report.Builder(stream, s);
        try (Sampler sampler = new Sampler()) {
            measure(client, stream, s, created, progress, measured, sampler);
        } catch (RuntimeException e) {
            Workload.Cleanup cleanup = created.delete(client, stream);
            if (cleanup.error() != null) {
                e.addSuppressed(new IllegalStateException("cleanup: " + cleanup.error()));
            }
            throw e;
        }
        measured.cleanup = created.delete(client, stream);
        measured.totalNanos = System.nanoTime() - start;
        return measured.build();
    }

    private static void measure(SluiceClient client, ScopedStream stream, Settings s, Workload.Created created,
                                Progress progress, Report.Builder out, Sampler sampler) {
        StreamManager streams = client.streamManager();
        created.scope = streams.createScope(stream.scope());
        if (!streams.createStream(stream.scope(), stream.name(), StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(s.segments())).build())) {
            throw new AlreadyExistsException("stream '" + stream + "' already exists");
        }
        created.stream = true;
        String[] keys = new String[s.writers()];
        for (int w = 0; w < keys.length; w++) {
            keys[w] = routingKey(w, s.segments());
        }
        List<EventStreamWriter<ByteBuffer>> writers = new ArrayList<>();
        List<EventStreamReader<ByteBuffer>> readers = new ArrayList<>();
        try {
            long t0 = System.nanoTime();
            for (int w = 0; w < s.writers(); w++) {
                writers.add(client.newWriter(stream.scope(), stream.name(), Serializers.byteBuffer(),
                        ControllerOptions.writerConfig(s.idleTimeout())));
            }
            out.writersSetupNanos = System.nanoTime() - t0;

            Failures failures = new Failures();
            out.writeNanos = write(writers, keys, s, failures, progress);
            out.failedWrites = failures.count.get();
            out.writeError = failures.first.get();

            t0 = System.nanoTime();
            String group = Workload.groupOf(stream);
            client.readerGroupManager(stream.scope()).createReaderGroup(group, ReaderGroupConfig.builder()
                    .stream(stream).disableAutomaticCheckpoints().build()).close();
            created.group = true;
            for (int r = 0; r < s.readers(); r++) {
                readers.add(client.newReader(stream.scope(), group, "reader-" + r, Serializers.byteBuffer(),
                        ControllerOptions.readerConfig(s.idleTimeout())));
            }
            out.readersSetupNanos = System.nanoTime() - t0;
            Verifier verifier = new Verifier(s);
            progress.read = verifier::read;
            out.readNanos = read(readers, s, verifier);
            out.verdict = verifier.verdict();

            out.resources = sampler.resources();

            long[] micros = new long[s.latencySamples()];
            AtomicInteger filled = new AtomicInteger();
            Failures latencyFailures = new Failures();
            inParallel("sluice-scale-latency-", s.writers(), w -> {
                EventStreamWriter<ByteBuffer> writer = writers.get(w);
                int first = s.share(s.events(), w);
                for (int i = 0; i < s.share(s.latencySamples(), w); i++) {
                    ByteBuffer event = Workload.event(w, first + i, s.size());
                    long t = System.nanoTime();
                    try {
                        writer.writeAndWait(keys[w], event);
                    } catch (RuntimeException e) {
                        latencyFailures.add(1, e);
                        return;
                    }
                    micros[filled.getAndIncrement()] = (System.nanoTime() - t) / 1000;
                }
            });
            out.latencyMicros = Arrays.copyOf(micros, filled.get());
            Arrays.sort(out.latencyMicros);
            out.latencyFailed = latencyFailures.count.get();
            out.latencyError = latencyFailures.first.get();
        } finally {
            readers.forEach(EventStreamReader::close);
            writers.forEach(EventStreamWriter::close);
        }
    }

    /** Counts failures and keeps the first one's description. Thread-safe. */
    private static final class Failures {
        final AtomicLong count = new AtomicLong();
        final AtomicReference<String> first = new AtomicReference<>();

        void add(long n, RuntimeException e) {
            count.addAndGet(n);
            first.compareAndSet(null, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /**
     * The write phase: every writer on a virtual thread of its own writes its share without waiting, then flushes.
     *
     * @return nanoseconds from the start of the writers to the end of the last flush
     */
    private static long write(List<EventStreamWriter<ByteBuffer>> writers, String[] keys, Settings s,
                              Failures failures, Progress progress) {
        long t0 = System.nanoTime();
        inParallel("sluice-scale-writer-", s.writers(), w -> {
            EventStreamWriter<ByteBuffer> writer = writers.get(w);
            int n = s.share(s.events(), w);
            int done = 0;
            try {
                for (; done < n; done++) {
                    writer.write(keys[w], Workload.event(w, done, s.size()));
                    if ((done & 1023) == 1023) {
                        progress.written.addAndGet(1024);
                    }
                }
                writer.flush();
            } catch (RuntimeException e) {
                // which of the events before the failure were written is not known: count the writer's rest
                failures.add(n - done == 0 ? 1 : n - done, e);
            }
        });
        progress.written.set(s.events());
        return System.nanoTime() - t0;
    }

    /** Task {@code i} of {@code count}, one per virtual thread, all started together; returns when all ended. */
    private interface Indexed {
        void run(int i);
    }

    private static void inParallel(String prefix, int count, Indexed task) {
        CountDownLatch gate = new CountDownLatch(1);
        try (ExecutorService threads = Threads.perTaskExecutor(prefix)) {
            for (int i = 0; i < count; i++) {
                int index = i;
                threads.execute(() -> {
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    task.run(index);
                });
            }
            gate.countDown();
        }
    }

    /**
     * The read phase: every reader on a virtual thread, until the verifier has seen every event, a reader failed,
     * or no event arrived for the idle timeout.
     *
     * @return nanoseconds from the start of the readers to the last expected event (or to the end of the phase)
     */
    private static long read(List<EventStreamReader<ByteBuffer>> readers, Settings s, Verifier verifier) {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong lastEventNanos = new AtomicLong();
        long t0 = System.nanoTime();
        inParallel("sluice-scale-reader-", readers.size(), r -> Workload.readLoop(readers.get(r), verifier,
                s.events(), s.idleTimeout(), stop, lastEventNanos));
        long end = lastEventNanos.get();
        return (end == 0 ? System.nanoTime() : end) - t0;
    }

    /**
     * Checks the events of all readers: length, key index, and per key the sequence numbers in order, each once.
     * A key is read by one reader at a time, so its checks never race; thread-safe.
     */
    static final class Verifier implements Workload.Checks {
        private final Settings settings;
        /** The next sequence number expected of each key. */
        private final AtomicIntegerArray next;
        private final AtomicLong read = new AtomicLong();
        private final AtomicLong duplicates = new AtomicLong();
        private final AtomicLong outOfOrder = new AtomicLong();
        private final AtomicLong bad = new AtomicLong();
        private final AtomicLong skipped = new AtomicLong();
        private final AtomicReference<String> failure = new AtomicReference<>();
        private volatile boolean timedOut;

        Verifier(Settings settings) {
            this.settings = settings;
            this.next = new AtomicIntegerArray(settings.writers());
        }

        @Override
        public long accept(ByteBuffer event) {
            int p = event.position();
            if (event.remaining() != settings.size()) {
                bad.incrementAndGet();
                return read.incrementAndGet();
            }
            int key = event.getInt(p);
            int seq = event.getInt(p + 4);
            if (key < 0 || key >= settings.writers() || seq < 0 || seq >= settings.share(settings.events(), key)) {
                bad.incrementAndGet();
                return read.incrementAndGet();
            }
            int expected = next.get(key);
            if (seq < expected) {
                duplicates.incrementAndGet();
            } else {
                if (seq > expected) {
                    outOfOrder.incrementAndGet();
                    skipped.addAndGet(seq - expected);
                }
                next.set(key, seq + 1);
            }
            return read.incrementAndGet();
        }

        @Override
        public long read() {
            return read.get();
        }

        @Override
        public void fail(String reason) {
            failure.compareAndSet(null, reason);
        }

        @Override
        public void idle(String reason) {
            timedOut = true;
            fail(reason);
        }

        Verdict verdict() {
            long accepted = 0;
            for (int w = 0; w < next.length(); w++) {
                accepted += next.get(w);
            }
            // the sequence numbers jumped over are missing too (an out-of-order event counts once)
            long missing = settings.events() - accepted + skipped.get();
            return new Verdict(settings.events(), read.get(), duplicates.get(), outOfOrder.get(), bad.get(), missing,
                    failure.get(), timedOut);
        }
    }

    /**
     * What the verification found; {@code bad}: events of the wrong length or of a key or number never written;
     * {@code timedOut}: reading ended because no event came for the idle timeout.
     */
    record Verdict(long expected, long read, long duplicates, long outOfOrder, long bad, long missing,
                   String failure, boolean timedOut) {
        boolean ok() {
            return failure == null && duplicates == 0 && outOfOrder == 0 && bad == 0 && missing == 0
                    && read == expected;
        }

        String reason() {
            if (ok()) {
                return null;
            }
            List<String> parts = new ArrayList<>();
            if (failure != null) {
                parts.add(failure);
            }
            String[] names = {"missing", "duplicate", "out of order", "bad"};
            long[] counts = {missing, duplicates, outOfOrder, bad};
            for (int i = 0; i < names.length; i++) {
                if (counts[i] > 0) {
                    parts.add(String.format(Locale.ROOT, "%,d %s", counts[i], names[i]));
                }
            }
            if (parts.isEmpty()) {
                parts.add(String.format(Locale.ROOT, "%,d events read, %,d expected", read, expected));
            }
            return String.join(", ", parts);
        }
    }

    /**
     * The heap and platform threads of this JVM: a daemon platform thread samples the heap in use every
     * {@value #SAMPLE_MILLIS} ms from its start; the platform threads' peak counts from its start too.
     */
    static final class Sampler implements AutoCloseable {
        private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        private final AtomicLong peakHeap = new AtomicLong();
        private final CountDownLatch stop = new CountDownLatch(1);
        private final Thread thread;

        Sampler() {
            threads.resetPeakThreadCount();
            sample();
            thread = Thread.ofPlatform().daemon().name("sluice-scale-sampler").start(() -> {
                try {
                    while (!stop.await(SAMPLE_MILLIS, TimeUnit.MILLISECONDS)) {
                        sample();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }

        private void sample() {
            peakHeap.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
        }

        /** @return the resources now: live heap (after two collections), heap peak, platform threads */
        Resources resources() {
            sample();
            System.gc();
            System.gc();
            long live = memory.getHeapMemoryUsage().getUsed();
            int own = thread.isAlive() ? 1 : 0;
            return new Resources(live / MIB, peakHeap.get() / MIB, threads.getPeakThreadCount() - 1,
                    threads.getThreadCount() - own, Threads.liveVirtualThreads());
        }

        @Override
        public void close() {
            stop.countDown();
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * @param heapLiveMib heap in use after two collections, everything open
     * @param heapPeakMib the most heap in use the sampler saw
     * @param threadsPeak the most platform threads at once since setup began, the sampler not counted
     * @param threadsNow platform threads now, the sampler not counted
     * @param virtualThreads Sluice's virtual threads now (the client's, none of the workload's)
     */
    record Resources(double heapLiveMib, double heapPeakMib, int threadsPeak, int threadsNow, long virtualThreads) {
        Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("heap_live_mib", Math.round(heapLiveMib * 10) / 10.0);
            m.put("heap_peak_mib", Math.round(heapPeakMib * 10) / 10.0);
            m.put("threads_peak", threadsPeak);
            m.put("threads_now", threadsNow);
            m.put("virtual_threads", virtualThreads);
            return m;
        }
    }

    /** What a run did, as {@code bench} prints it. */
    record Report(ScopedStream stream, Settings settings, long writersSetupNanos, long readersSetupNanos,
                  long writeNanos, long failedWrites, String writeError, long readNanos, Verdict verdict,
                  Resources resources, long[] latencyMicros, long latencyFailed, String latencyError,
                  Workload.Cleanup cleanup, long totalNanos) {

        /** @return true if every write succeeded and every event was read exactly once, in order per key */
        boolean ok() {
            return verdict.ok() && failedWrites == 0 && latencyFailed == 0;
        }

        private String error() {
            return writeError != null ? writeError : !verdict.ok() ? verdict.reason() : latencyError;
        }

        /** @return the JSON object, with the keys of the official-client driver's {@code bench --writers} */
        Map<String, Object> json(Map<String, Object> context) {
            // one routing key per writer
            Map<String, Object> json = Workload.jsonHead(ok(), context, stream, settings.events(), settings.size(),
                    settings.segments(), settings.readers(), settings.writers());
            json.put("writers", settings.writers());
            Map<String, Object> setup = new LinkedHashMap<>();
            setup.put("writers_ms", writersSetupNanos / 1_000_000);
            setup.put("readers_ms", readersSetupNanos / 1_000_000);
            json.put("setup", setup);
            Map<String, Object> write = Workload.rate(settings.size(), settings.events(), writeNanos);
            write.put("failed", failedWrites);
            json.put("write", write);
            json.put("read", Workload.rate(settings.size(), verdict.read(), readNanos));
            Map<String, Object> latency = Workload.latencyJson(latencyMicros);
            if (latencyFailed > 0) {
                latency.put("failed", latencyFailed);
                latency.put("error", latencyError);
            }
            json.put("latency", latency);
            json.put("resources", resources.json());
            Map<String, Object> verify = new LinkedHashMap<>();
            verify.put("ok", ok());
            verify.put("read", verdict.read());
            verify.put("duplicates", verdict.duplicates());
            verify.put("out_of_order", verdict.outOfOrder());
            verify.put("missing", verdict.missing());
            verify.put("bad", verdict.bad());
            verify.put("failed_writes", failedWrites + latencyFailed);
            if (verdict.timedOut()) {
                verify.put("timed_out", true);
            }
            if (!ok()) {
                verify.put("error", error());
            }
            json.put("verify", verify);
            json.put("cleanup", Workload.cleanupJson(cleanup.error()));
            json.put("total_ms", totalNanos / 1_000_000);
            return json;
        }

        /** @return a short summary for people, one entry per line */
        List<String> lines() {
            List<String> lines = new ArrayList<>();
            lines.add(String.format(Locale.ROOT, "stream    %s: %,d segment%s, %,d writers (one routing key each), "
                    + "%,d reader%s; %,d events of %,d bytes", stream, settings.segments(),
                    settings.segments() == 1 ? "" : "s", settings.writers(), settings.readers(),
                    settings.readers() == 1 ? "" : "s", settings.events(), settings.size()));
            lines.add(String.format(Locale.ROOT, "setup     writers %,d ms, reader group and readers %,d ms",
                    writersSetupNanos / 1_000_000, readersSetupNanos / 1_000_000));
            lines.add(Workload.rateLine(settings.size(), "write", settings.events(), writeNanos));
            lines.add(Workload.rateLine(settings.size(), "read", verdict.read(), readNanos));
            lines.add(String.format(Locale.ROOT, "resources heap %.1f MiB live (all open), %.1f MiB at most; "
                    + "platform threads %d at most, %d now; client virtual threads %,d", resources.heapLiveMib(),
                    resources.heapPeakMib(), resources.threadsPeak(), resources.threadsNow(),
                    resources.virtualThreads()));
            if (latencyMicros.length > 0) {
                lines.add(String.format(Locale.ROOT, "latency   %,d awaited writes, %,d writers at once: p50 %.2f ms, "
                        + "p99 %.2f ms", latencyMicros.length, settings.writers(),
                        Workload.percentile(latencyMicros, 0.50) / 1000.0,
                        Workload.percentile(latencyMicros, 0.99) / 1000.0));
            }
            lines.add(ok() ? "verify    ok: every event read exactly once, in order per writer"
                    : "verify    FAILED: " + error());
            if (!cleanup.ok()) {
                lines.add("cleanup   incomplete: " + cleanup.error());
            }
            return lines;
        }

        /** Collects a report's parts as the run measures them. Confined to the run's thread. */
        static final class Builder {
            private final ScopedStream stream;
            private final Settings settings;
            long writersSetupNanos;
            long readersSetupNanos;
            long writeNanos;
            long failedWrites;
            String writeError;
            long readNanos;
            Verdict verdict;
            Resources resources;
            long[] latencyMicros = new long[0];
            long latencyFailed;
            String latencyError;
            Workload.Cleanup cleanup;
            long totalNanos;

            Builder(ScopedStream stream, Settings settings) {
                this.stream = stream;
                this.settings = settings;
            }

            Report build() {
                return new Report(stream, settings, writersSetupNanos, readersSetupNanos, writeNanos, failedWrites,
                        writeError, readNanos, verdict, resources, latencyMicros, latencyFailed, latencyError,
                        cleanup, totalNanos);
            }
        }
    }
}
