package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

import io.sluice.client.SluiceClient;
import io.sluice.common.Deadline;
import io.sluice.common.Threads;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.Transaction;
import io.sluice.stream.TransactionalEventStreamWriter;
import io.sluice.table.Insert;
import io.sluice.table.KeyValueTable;
import io.sluice.table.KeyValueTableConfiguration;
import io.sluice.table.Put;
import io.sluice.table.TableEntry;
import io.sluice.table.TableKey;
import io.sluice.table.Version;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bounded soak of the embedded server (durable, in a temporary data directory, without fsync) and the client:
 * {@value #WRITERS} writers, each awaiting every event (closed loop), on a stream of {@value #SEGMENTS} fixed
 * segments; {@value #READERS} readers in one reader group checking every event (each writer's events exactly once and
 * in order); a transaction every second ({@value #TXN_EVENTS} events, every {@value #ABORT_EVERY}th aborted: the
 * committed ones read whole, the aborted ones never); and a key-value table updated conditionally from
 * {@value #TABLE_THREADS} threads (each owns its keys, so every conditional update must succeed; at the end each key
 * holds its last value and version).
 *
 * <p>Every {@code sluice.soak.sample.seconds} (default 5) it samples: events/s written and read, transactions and
 * table updates, heap used after a full GC, live threads, Sluice's live virtual threads, the segment store's
 * connections, open file descriptors, and the p50/p99 of awaited-write latency in that window. It then asserts that
 * the run stayed flat — the last third against the first: written and read throughput at least
 * {@value #MIN_THROUGHPUT_RATIO} of it, heap after GC at most {@value #MAX_HEAP_RATIO}× it plus
 * {@value #HEAP_MARGIN_MIB} MiB, p99 at most {@value #MAX_P99_RATIO}× it plus {@value #P99_MARGIN_MILLIS} ms, threads
 * and virtual threads (their medians) at most {@value #MAX_THREAD_GROWTH} more, connections no more, descriptors other than chunk
 * files at most {@value #MAX_FD_GROWTH} more, and no segment with more than {@value #CHUNK_FILES_PER_SEGMENT} chunk
 * files open (the new descriptors are listed) — and that
 * once the client is closed the server has its connections, virtual threads, platform threads and descriptors of
 * before, and once the server is closed too the process has its own of before (see {@link ResourceCounts}).
 * docs/reliability.md ("Soak") justifies the thresholds with measured runs.
 *
 * <p>Runs {@code sluice.soak.seconds} (default {@value #DEFAULT_SECONDS}) of load, of which the first
 * {@code sluice.soak.warmup.seconds} (default {@value #DEFAULT_WARM_UP}) are left out of the comparison (the JIT is
 * still compiling: throughput climbs tenfold over them); prints the samples table. The counts before the server
 * starts are taken after a small warm-up server and client have come and gone, so that what the JDK and gRPC start
 * once per process is not counted as a leak.
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class SoakTest {
    static final int WRITERS = 100;
    static final int SEGMENTS = 16;
    static final int READERS = 8;
    static final int TABLE_THREADS = 10;
    static final int KEYS_PER_TABLE_THREAD = 8;
    static final int TXN_EVENTS = 10;
    static final int ABORT_EVERY = 10;
    static final int DEFAULT_SECONDS = 90;
    /** Seconds at the start left out of the comparison: the JIT is still compiling (throughput climbs ~10×). */
    static final int DEFAULT_WARM_UP = 20;
    static final double MIN_THROUGHPUT_RATIO = 0.5;
    static final double MAX_HEAP_RATIO = 1.5;
    static final long HEAP_MARGIN_MIB = 64;
    static final double MAX_P99_RATIO = 3.0;
    static final long P99_MARGIN_MILLIS = 20;
    /** Threads (platform or virtual) the last third may have over the first's most: short-lived helpers. */
    static final int MAX_THREAD_GROWTH = 16;
    /** Descriptors other than chunk files the last third may have over the first's most: a write log rolling over. */
    static final int MAX_FD_GROWTH = 16;
    /**
     * Chunk files a segment may keep open: the storage's limit ({@code FileChunkStore.MAX_OPEN_PER_OWNER}). They are
     * counted apart from the other descriptors because they fill up to the limit as the segments roll over to new
     * chunks (every 64 MiB), which a long run does in its middle; more than the limit is the leak the soak found.
     */
    static final int CHUNK_FILES_PER_SEGMENT = 4;
    private static final java.util.regex.Pattern CHUNK_FILE = java.util.regex.Pattern.compile(
            "/chunks/(\\d+)/[0-9]+\\.chunk$");
    private static final String SCOPE = "soak";
    private static final ScopedStream STREAM = ScopedStream.of(SCOPE, "events");
    /** Pads every event to about 100 bytes. */
    private static final String PADDING = "x".repeat(80);

    @TempDir
    Path dir;

    /** One row of the samples table. */
    record Sample(double seconds, double writtenPerSecond, double readPerSecond, long txns, double tableUpdatesPerSecond,
                  long heapAfterGcBytes, int liveThreads, long virtualThreads, int connections, int fds,
                  LatencyHistogram latency, java.util.SortedMap<Integer, String> fdTargets) {
        String row() {
            return String.format(Locale.ROOT, "%7.1f %10.0f %10.0f %5d %8.0f %9.1f %7d %8d %5d %5d %8.2f %8.2f",
                    seconds, writtenPerSecond, readPerSecond, txns, tableUpdatesPerSecond, heapAfterGcBytes / 1048576.0,
                    liveThreads, virtualThreads, connections, fds, latency.percentileMicros(0.5) / 1000.0,
                    latency.percentileMicros(0.99) / 1000.0);
        }

        /** @return open descriptors that are not chunk files */
        int otherFds() {
            return (int) fdTargets.values().stream().filter(t -> !CHUNK_FILE.matcher(t).find()).count();
        }

        /** @return the most chunk files one owner (a segment) has open */
        int mostChunkFilesOfOneOwner() {
            Map<String, Integer> perOwner = new java.util.HashMap<>();
            for (String target : fdTargets.values()) {
                java.util.regex.Matcher m = CHUNK_FILE.matcher(target);
                if (m.find()) {
                    perOwner.merge(m.group(1), 1, Integer::sum);
                }
            }
            return perOwner.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        }

        static String header() {
            return String.format(Locale.ROOT, "%7s %10s %10s %5s %8s %9s %7s %8s %5s %5s %8s %8s", "t(s)", "written/s",
                    "read/s", "txns", "kv/s", "heap(MiB)", "threads", "virtual", "conns", "fds", "p50(ms)", "p99(ms)");
        }
    }

    /** What the workers saw go wrong; the first failure also stops the run. */
    private final List<String> problems = new CopyOnWriteArrayList<>();
    private final CountDownLatch failed = new CountDownLatch(1);
    private final AtomicBoolean stopWriting = new AtomicBoolean();
    private final AtomicBoolean stopReading = new AtomicBoolean();
    private final CountDownLatch stopTicking = new CountDownLatch(1);
    /** Events the readers must have read once writing stopped; counted down when they have. */
    private volatile long readTarget = Long.MAX_VALUE;
    private final CountDownLatch caughtUp = new CountDownLatch(1);

    private final LongAdder written = new LongAdder();
    private final LongAdder read = new LongAdder();
    private final LongAdder tableUpdates = new LongAdder();
    private final AtomicReference<LatencyHistogram> window = new AtomicReference<>(new LatencyHistogram());
    /** Per writer: the sequence number of its next event, as written and as read. */
    private final AtomicLongArray writtenSeq = new AtomicLongArray(WRITERS);
    private final AtomicLongArray readSeq = new AtomicLongArray(WRITERS);
    /** Per transaction number: events read. */
    private final Map<Integer, AtomicInteger> txnEventsRead = new ConcurrentHashMap<>();
    private final List<Integer> committed = new CopyOnWriteArrayList<>();
    private final List<Integer> aborted = new CopyOnWriteArrayList<>();

    private void problem(String what) {
        problems.add(what);
        failed.countDown();
    }

    @Test
    void throughputHeapThreadsAndLatencyStayFlatAndNothingLeaks() throws Exception {
        int seconds = Integer.getInteger("sluice.soak.seconds", DEFAULT_SECONDS);
        Duration every = Duration.ofSeconds(Integer.getInteger("sluice.soak.sample.seconds", 5));
        Duration warmUp = Duration.ofSeconds(Integer.getInteger("sluice.soak.warmup.seconds", DEFAULT_WARM_UP));
        List<Sample> samples = new ArrayList<>();
        warmUpTheProcess();
        ResourceCounts beforeServer = ResourceCounts.ofProcess();
        EmbeddedServer server = EmbeddedServer.builder().dataDir(dir.resolve("data")).fsync(false)
                .snapshotAfterBytes(8L * 1024 * 1024).build();
        try {
            ResourceCounts before = ResourceCounts.of(server.segmentStoreServer());
            long uncaughtBefore = Threads.uncaughtExceptions();
            List<Thread> workers = new ArrayList<>();
            try (SluiceClient client = SluiceClient.connect(server.controllerUri())) {
                client.streamManager().createScope(SCOPE);
                client.streamManager().createStream(SCOPE, STREAM.name(),
                        StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(SEGMENTS)).build());
                client.keyValueTableManager().createKeyValueTable(SCOPE, "table", KeyValueTableConfiguration.builder()
                        .partitionCount(4).primaryKeyLength(8).secondaryKeyLength(0).build());
                client.readerGroupManager(SCOPE).createReaderGroup("readers",
                        ReaderGroupConfig.builder().stream(STREAM).build());

                List<Thread> readers = new ArrayList<>();
                for (int i = 0; i < READERS; i++) {
                    String id = "reader-" + i;
                    readers.add(Thread.ofVirtual().name("soak-" + id).start(() -> read(client, id)));
                }
                List<Thread> writers = new ArrayList<>();
                for (int i = 0; i < WRITERS; i++) {
                    int id = i;
                    writers.add(Thread.ofVirtual().name("soak-writer-" + i).start(() -> write(client, id)));
                }
                List<Thread> others = new ArrayList<>();
                others.add(Thread.ofVirtual().name("soak-txns").start(() -> transactions(client)));
                Map<Integer, long[]> lastValues = new ConcurrentHashMap<>();
                Map<Integer, Version> lastVersions = new ConcurrentHashMap<>();
                for (int i = 0; i < TABLE_THREADS; i++) {
                    int id = i;
                    others.add(Thread.ofVirtual().name("soak-table-" + i)
                            .start(() -> updateTable(client, id, lastValues, lastVersions)));
                }
                workers.addAll(readers);
                workers.addAll(writers);
                workers.addAll(others);

                // sample until the time is up or a worker fails
                long start = System.nanoTime();
                long last = start;
                long lastWritten = 0;
                long lastRead = 0;
                long lastUpdates = 0;
                int n = Math.max(3, (int) (seconds / every.toSeconds()));
                for (int i = 1; i <= n; i++) {
                    long due = start + every.toNanos() * i;
                    if (failed.await(Math.max(0, due - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                        break;
                    }
                    LatencyHistogram latencies = window.getAndSet(new LatencyHistogram());
                    long now = System.nanoTime();
                    double dt = (now - last) / 1e9;
                    long w = written.sum();
                    long r = read.sum();
                    long u = tableUpdates.sum();
                    System.gc();
                    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                    ResourceCounts counts = ResourceCounts.of(server.segmentStoreServer());
                    samples.add(new Sample((now - start) / 1e9, (w - lastWritten) / dt, (r - lastRead) / dt,
                            committed.size() + aborted.size(), (u - lastUpdates) / dt, heap,
                            ManagementFactory.getThreadMXBean().getThreadCount(), counts.virtualThreads(),
                            counts.connections(), counts.fds().size(), latencies, counts.fds()));
                    last = now;
                    lastWritten = w;
                    lastRead = r;
                    lastUpdates = u;
                }

                // stop writing, then let the readers catch up with everything written and committed
                stopWriting.set(true);
                stopTicking.countDown();
                for (Thread t : writers) {
                    join(t, Duration.ofSeconds(60));
                }
                for (Thread t : others) {
                    join(t, Duration.ofSeconds(60));
                }
                long expected = written.sum() + (long) committed.size() * TXN_EVENTS;
                readTarget = expected;
                boolean readAll = read.sum() >= expected || caughtUp.await(120, TimeUnit.SECONDS);
                stopReading.set(true);
                for (Thread t : readers) {
                    join(t, Duration.ofSeconds(60));
                }
                printTable(samples, seconds);
                assertThat(problems).as("what the workers saw").isEmpty();
                assertThat(readAll).as("readers caught up: %s of %s events read", read.sum(), expected).isTrue();

                // nothing lost, nothing duplicated, each writer's order kept
                assertThat(read.sum()).as("events read").isEqualTo(expected);
                for (int i = 0; i < WRITERS; i++) {
                    assertThat(readSeq.get(i)).as("events of writer %s read", i).isEqualTo(writtenSeq.get(i));
                }
                for (int txn : committed) {
                    AtomicInteger got = txnEventsRead.get(txn);
                    assertThat(got == null ? 0 : got.get()).as("events of committed transaction %s", txn)
                            .isEqualTo(TXN_EVENTS);
                }
                for (int txn : aborted) {
                    assertThat(txnEventsRead).as("events of aborted transactions").doesNotContainKey(txn);
                }
                checkTable(client, lastValues, lastVersions);
                System.out.printf(Locale.ROOT, "soak: checked %d events read once and in order (%d by %d writers, %d "
                                + "in %d committed transactions), %d aborted transactions absent, %d conditional "
                                + "table updates%n", read.sum(), written.sum(), WRITERS,
                        (long) committed.size() * TXN_EVENTS, committed.size(), aborted.size(), tableUpdates.sum());
            }

            // the client is closed: the server has no connection left, and no client thread runs
            await(() -> server.segmentStoreServer().connectionCount() == before.connections(),
                    Duration.ofSeconds(30));
            assertThat(server.segmentStoreServer().connectionCount()).as("segment-store connections once the "
                    + "client is closed").isEqualTo(before.connections());
            assertThat(Threads.uncaughtExceptions() - uncaughtBefore).as("exceptions uncaught in threads").isZero();
            assertFlat(samples.stream().filter(x -> x.seconds() > warmUp.toSeconds()).toList());
        } finally {
            server.close();
        }
        // the server is closed too: the process has its threads and descriptors of before the server
        ResourceCounts[] after = new ResourceCounts[1];
        await(() -> (after[0] = ResourceCounts.ofProcess()).leaksSince(beforeServer).isEmpty(), Duration.ofSeconds(30));
        System.out.println("soak: before the server " + beforeServer + "; after it and the client closed " + after[0]);
        assertThat(after[0].leaksSince(beforeServer)).as("leaks once the client and the server are closed").isEmpty();
    }

    /**
     * Starts what the JDK and gRPC start once per process and keep (the virtual-thread scheduler's helpers, socket
     * pollers, event loops): a small server and client that write, read, commit and update a table once, closed
     * again, so that the counts before the soak's server already include them.
     */
    private static void warmUpTheProcess() {
        ScopedStream stream = ScopedStream.of("soak-warm-up", "events");
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().build();
             SluiceClient client = SluiceClient.connect(server.controllerUri())) {
            client.streamManager().createScope(stream.scope());
            client.streamManager().createStream(stream.scope(), stream.name(),
                    StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(2)).build());
            try (EventStreamWriter<String> w = client.newWriter(stream.scope(), stream.name(), Serializers.utf8());
                 TransactionalEventStreamWriter<String> tw = client.newTransactionalWriter(stream.scope(),
                         stream.name(), Serializers.utf8())) {
                w.writeAndWait("k", "warm-up");
                Transaction<String> t = tw.beginTxn();
                t.write("k", "warm-up txn");
                t.commit();
            }
            client.keyValueTableManager().createKeyValueTable(stream.scope(), "table", KeyValueTableConfiguration
                    .builder().partitionCount(1).primaryKeyLength(8).secondaryKeyLength(0).build());
            try (KeyValueTable table = client.keyValueTable(stream.scope(), "table")) {
                table.update(new Insert(tableKey(0, 0), ByteBuffer.allocate(8).putLong(0, 1)));
            }
            client.readerGroupManager(stream.scope()).createReaderGroup("warm-up",
                    ReaderGroupConfig.builder().stream(stream).build());
            try (EventStreamReader<String> r = client.newReader(stream.scope(), "warm-up", "r", Serializers.utf8())) {
                int events = 0;
                Deadline deadline = Deadline.after(Duration.ofSeconds(30));
                while (events < 2 && !deadline.expired()) {
                    if (r.readNextEvent(Duration.ofSeconds(1)).event() != null) {
                        events++;
                    }
                }
                assertThat(events).as("warm-up events read").isEqualTo(2);
            }
        }
    }

    private void write(SluiceClient client, int id) {
        String key = "w" + id;
        try (EventStreamWriter<String> w = client.newWriter(SCOPE, STREAM.name(), Serializers.utf8())) {
            long seq = 0;
            while (!stopWriting.get()) {
                long t0 = System.nanoTime();
                w.writeAndWait(key, key + ":" + seq + ":" + PADDING);
                window.get().record(System.nanoTime() - t0);
                seq++;
                writtenSeq.set(id, seq);
                written.increment();
            }
        } catch (RuntimeException e) {
            problem("writer " + id + " failed: " + e);
        }
    }

    private void read(SluiceClient client, String id) {
        try (EventStreamReader<String> r = client.newReader(SCOPE, "readers", id, Serializers.utf8())) {
            while (!stopReading.get()) {
                EventRead<String> e = r.readNextEvent(Duration.ofMillis(500));
                if (e.event() != null) {
                    check(e.event());
                }
            }
        } catch (RuntimeException e) {
            problem("reader " + id + " failed: " + e);
        }
    }

    /** Checks one event: a writer's next one in order, or one of a committed transaction. */
    private void check(String event) {
        read.increment();
        if (read.sum() >= readTarget) {
            caughtUp.countDown();
        }
        int colon = event.indexOf(':');
        int second = event.indexOf(':', colon + 1);
        long n = Long.parseLong(event.substring(colon + 1, second));
        int source = Integer.parseInt(event.substring(1, colon));
        if (event.charAt(0) == 't') {
            txnEventsRead.computeIfAbsent(source, k -> new AtomicInteger()).incrementAndGet();
            return;
        }
        long expected = readSeq.get(source);
        if (n != expected) {
            problem("writer " + source + ": read event " + n + " where " + expected + " was next"
                    + (n < expected ? " (a duplicate)" : " (events lost or out of order)"));
        } else {
            readSeq.set(source, n + 1);
        }
    }

    /** A transaction every second: begin, {@value #TXN_EVENTS} events, commit (or, every tenth, abort). */
    private void transactions(SluiceClient client) {
        try (TransactionalEventStreamWriter<String> tw = client.newTransactionalWriter(SCOPE, STREAM.name(),
                Serializers.utf8())) {
            long start = System.nanoTime();
            for (int txn = 0; ; txn++) {
                // pacing, not synchronisation: wait for the next second, or for the end of the run
                long due = start + TimeUnit.SECONDS.toNanos(txn);
                if (stopTicking.await(Math.max(0, due - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    return;
                }
                Transaction<String> t = tw.beginTxn();
                for (int i = 0; i < TXN_EVENTS; i++) {
                    t.write("t" + txn, "t" + txn + ":" + i + ":" + PADDING);
                }
                if (txn % ABORT_EVERY == ABORT_EVERY - 1) {
                    t.abort();
                    aborted.add(txn);
                } else {
                    t.commit();
                    committed.add(txn);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            problem("transactions failed: " + e);
        }
    }

    private static TableKey tableKey(int thread, int k) {
        return new TableKey(ByteBuffer.allocate(8).putInt(thread).putInt(k).flip());
    }

    /** Conditional updates of this thread's own keys, round robin: each must succeed. */
    private void updateTable(SluiceClient client, int id, Map<Integer, long[]> lastValues,
                             Map<Integer, Version> lastVersions) {
        try (KeyValueTable table = client.keyValueTable(SCOPE, "table")) {
            Version[] versions = new Version[KEYS_PER_TABLE_THREAD];
            long[] values = new long[KEYS_PER_TABLE_THREAD];
            lastValues.put(id, values);
            for (long update = 0; !stopWriting.get(); update++) {
                int k = (int) (update % KEYS_PER_TABLE_THREAD);
                ByteBuffer value = ByteBuffer.allocate(8).putLong(update).flip();
                versions[k] = versions[k] == null ? table.update(new Insert(tableKey(id, k), value))
                        : table.update(new Put(tableKey(id, k), value, versions[k]));
                values[k] = update;
                lastVersions.put(id * KEYS_PER_TABLE_THREAD + k, versions[k]);
                tableUpdates.increment();
            }
        } catch (RuntimeException e) {
            problem("table updater " + id + " failed: " + e);
        }
    }

    private static void checkTable(SluiceClient client, Map<Integer, long[]> lastValues,
                                   Map<Integer, Version> lastVersions) {
        try (KeyValueTable table = client.keyValueTable(SCOPE, "table")) {
            for (Map.Entry<Integer, Version> e : lastVersions.entrySet()) {
                int thread = e.getKey() / KEYS_PER_TABLE_THREAD;
                int k = e.getKey() % KEYS_PER_TABLE_THREAD;
                TableEntry entry = table.get(tableKey(thread, k));
                assertThat(entry).as("table key %s/%s", thread, k).isNotNull();
                assertThat(entry.version()).as("version of table key %s/%s", thread, k).isEqualTo(e.getValue());
                assertThat(entry.value().getLong(0)).as("value of table key %s/%s", thread, k)
                        .isEqualTo(lastValues.get(thread)[k]);
            }
            assertThat(lastVersions).as("table keys updated").hasSize(TABLE_THREADS * KEYS_PER_TABLE_THREAD);
        }
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /** The last third of the samples against the first: see the class comment. */
    static void assertFlat(List<Sample> samples) {
        assertThat(samples.size()).as("samples").isGreaterThanOrEqualTo(3);
        int third = samples.size() / 3;
        List<Sample> first = samples.subList(0, third);
        List<Sample> lastThird = samples.subList(samples.size() - third, samples.size());
        double firstWritten = first.stream().mapToDouble(Sample::writtenPerSecond).average().orElseThrow();
        double lastWritten = lastThird.stream().mapToDouble(Sample::writtenPerSecond).average().orElseThrow();
        double firstRead = first.stream().mapToDouble(Sample::readPerSecond).average().orElseThrow();
        double lastRead = lastThird.stream().mapToDouble(Sample::readPerSecond).average().orElseThrow();
        long firstHeap = first.stream().mapToLong(Sample::heapAfterGcBytes).max().orElseThrow();
        long lastHeap = lastThird.stream().mapToLong(Sample::heapAfterGcBytes).max().orElseThrow();
        int firstThreads = first.stream().mapToInt(Sample::liveThreads).max().orElseThrow();
        int lastThreads = lastThird.stream().mapToInt(Sample::liveThreads).max().orElseThrow();
        // the medians: transient virtual threads (a transaction's segment writers, helpers) raise single samples by
        // 30 and more (a clean-clone run: 3,284 in most samples, 3,317 in two, gone by the next), a leak raises them all
        long firstVirtual = median(first.stream().mapToLong(Sample::virtualThreads).toArray());
        long lastVirtual = median(lastThird.stream().mapToLong(Sample::virtualThreads).toArray());
        int firstFds = first.stream().mapToInt(Sample::otherFds).max().orElseThrow();
        int lastFds = lastThird.stream().mapToInt(Sample::otherFds).max().orElseThrow();
        int chunkFilesPerSegment = lastThird.stream().mapToInt(Sample::mostChunkFilesOfOneOwner).max().orElseThrow();
        int firstConnections = first.stream().mapToInt(Sample::connections).max().orElseThrow();
        int lastConnections = lastThird.stream().mapToInt(Sample::connections).max().orElseThrow();
        long firstP99 = merged(first).percentileMicros(0.99);
        long lastP99 = merged(lastThird).percentileMicros(0.99);
        System.out.printf(Locale.ROOT, "soak: first third vs last: written %.0f vs %.0f/s, read %.0f vs %.0f/s, heap "
                        + "after GC %.1f vs %.1f MiB, p99 %.2f vs %.2f ms%n", firstWritten, lastWritten, firstRead,
                lastRead, firstHeap / 1048576.0, lastHeap / 1048576.0, firstP99 / 1000.0, lastP99 / 1000.0);
        assertThat(lastWritten).as("events/s written in the last third against the first (%.0f)", firstWritten)
                .isGreaterThanOrEqualTo(firstWritten * MIN_THROUGHPUT_RATIO);
        assertThat(lastRead).as("events/s read in the last third against the first (%.0f)", firstRead)
                .isGreaterThanOrEqualTo(firstRead * MIN_THROUGHPUT_RATIO);
        assertThat(lastHeap).as("heap after GC in the last third against the first (%s bytes)", firstHeap)
                .isLessThanOrEqualTo((long) (firstHeap * MAX_HEAP_RATIO) + HEAP_MARGIN_MIB * 1024 * 1024);
        assertThat(lastThreads).as("live threads in the last third against the first").isLessThanOrEqualTo(
                firstThreads + MAX_THREAD_GROWTH);
        assertThat(lastVirtual).as("live virtual threads in the last third against the first (medians)")
                .isLessThanOrEqualTo(firstVirtual + MAX_THREAD_GROWTH);
        assertThat(lastConnections).as("segment-store connections in the last third against the first")
                .isLessThanOrEqualTo(firstConnections);
        java.util.SortedMap<Integer, String> firstTargets = first.getLast().fdTargets();
        List<String> opened = lastThird.getLast().fdTargets().entrySet().stream()
                .filter(e -> !e.getValue().equals(firstTargets.get(e.getKey())))
                .map(e -> e.getValue().replaceAll("^.*/data/", "")).sorted().toList();
        System.out.println("soak: descriptors open at the end and not at the end of the first third: " + opened);
        assertThat(chunkFilesPerSegment).as("chunk files one segment keeps open (in the last third); new "
                + "descriptors: %s", opened).isLessThanOrEqualTo(CHUNK_FILES_PER_SEGMENT);
        assertThat(lastFds).as("open file descriptors other than chunk files in the last third against the first; "
                + "new: %s", opened).isLessThanOrEqualTo(firstFds + MAX_FD_GROWTH);
        assertThat(lastP99).as("p99 (µs) of awaited writes in the last third against the first (%s µs)", firstP99)
                .isLessThanOrEqualTo((long) (firstP99 * MAX_P99_RATIO) + P99_MARGIN_MILLIS * 1000);
    }

    private static LatencyHistogram merged(List<Sample> samples) {
        LatencyHistogram all = new LatencyHistogram();
        samples.forEach(s -> all.add(s.latency()));
        return all;
    }

    private static void printTable(List<Sample> samples, int seconds) {
        StringBuilder out = new StringBuilder("soak: " + seconds + " s, " + WRITERS + " writers on " + SEGMENTS
                + " segments, " + READERS + " readers, a transaction a second, " + TABLE_THREADS
                + " table threads\n");
        out.append(Sample.header()).append('\n');
        samples.forEach(s -> out.append(s.row()).append('\n'));
        System.out.print(out);
    }

    private void join(Thread t, Duration timeout) throws InterruptedException {
        if (!t.join(timeout)) {
            problem(t.getName() + " did not finish within " + timeout + " of being told to stop");
        }
    }

    private static boolean await(BooleanSupplier condition, Duration timeout) {
        Deadline deadline = Deadline.after(timeout);
        while (!condition.getAsBoolean()) {
            if (deadline.expired()) {
                return false;
            }
            Thread.yield();
        }
        return true;
    }
}
