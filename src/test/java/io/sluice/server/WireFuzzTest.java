package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import io.sluice.common.Deadline;
import io.sluice.common.Threads;
import io.sluice.connection.Connection;
import io.sluice.connection.Flow;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.wire.AppendEncoder;
import io.sluice.wire.AppendSetup;
import io.sluice.wire.DataAppended;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.Hello;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.TableEntries;
import io.sluice.wire.TableEntriesUpdated;
import io.sluice.wire.TableEntry;
import io.sluice.wire.TableKey;
import io.sluice.wire.TableValue;
import io.sluice.wire.UpdateTableEntries;
import io.sluice.wire.WireOutput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * Fuzzes the embedded segment store over real sockets, the way an attacker on its port could, and checks that it
 * neither dies, hangs nor leaks.
 *
 * <p><b>Inputs</b> ({@link FuzzInputs}): mutations of the official client's captured traffic
 * ({@code src/test/resources/captures}, system property {@code sluice.captures}), random bytes, random well-formed
 * frames from the project's codec, append sessions, and the edges of issue 12 (huge declared lengths, 65535-byte
 * names, table iteration bounds, pipelined reads). Each input is one connection that reads its replies, never reads
 * them, half-closes, resets, or stays half-open (silent, socket open) until its batch ends; {@code concurrency}
 * connections run at once. Every byte the server sends back must be a valid reply frame.
 *
 * <p><b>Checks</b>: a well-behaved client ({@link Canary}: a Sluice writer and a reader group on a stream of its own)
 * keeps writing and verifying events the whole time and never stalls for {@link #STALL_LIMIT}; after every batch the
 * server is back to the connections it had; at the end a fresh connection gets a {@code Hello}, and connections,
 * live virtual threads ({@link Threads#liveVirtualThreads()}), platform threads and open file descriptors are back
 * where they were (see {@link ResourceCounts}); no exception reached a thread's uncaught-exception handler; and the
 * server logged no ERROR. An error the server logs names the peer's port, which names the input.
 *
 * <p><b>Runs</b>: by default (what {@code scripts/mvn -B verify} runs) the fixed {@link #REGRESSION_SEEDS}, then the
 * fixed sequence of seeds {@link #seedOf seedOf(BASE_SEED, i)}, i = 0, 1, ... for a budget of {@value #DEFAULT_SECONDS}
 * s: about 30 s in all. System properties for longer runs and replays (also in README.md, "Building and testing"):
 * <ul>
 *   <li>{@code -Dsluice.fuzz.seconds=3600}: the budget of the fuzzing phase;</li>
 *   <li>{@code -Dsluice.fuzz.inputs=1000000}: stop after that many inputs (whichever comes first);</li>
 *   <li>{@code -Dsluice.fuzz.concurrency=6}: connections at once;</li>
 *   <li>{@code -Dsluice.fuzz.base=N}: another sequence of seeds;</li>
 *   <li>{@code -Dsluice.fuzz.seed=S1,S2}: replay exactly these inputs, one after the other.</li>
 * </ul>
 * A failure lists each failing input by seed with what it was and the server's error, e.g.
 * {@code scripts/mvn -B test -Dtest=WireFuzzTest -Dsluice.fuzz.seed=-2288678481758596996} replays one.
 */
class WireFuzzTest {
    static final long BASE_SEED = 0x51_0C3_F022L;
    /** Seeds that found defects once (issue 12: 5, 6): always run first, whatever the budget. */
    static final long[] REGRESSION_SEEDS = {
        -2288678481758596996L, // CreateTransientSegment with a 65475-byte parent: the close throws, connection leaks
        -6536745790834137594L, // the same, never reading its replies
        4011349428908619215L, // ReadTableKeys with fromKey > toKey: IllegalArgumentException in the server
        -4327793934415922688L, // ReadTableEntries with fromKey > toKey
        -7471860104258649853L, // ReadTableEntriesDelta with suggestedEntryCount 2^31-1: fromIndex(0) > toIndex
        -8739390540104871183L, // GetTableSegmentInfo on a plain 65535-byte segment: its reply cannot be encoded
        5582902288124662070L, // ReadTable on it: the same (kills the writer thread)
    };
    static final int DEFAULT_SECONDS = 22;
    static final Duration STALL_LIMIT = Duration.ofSeconds(15);
    /** How long closed connections may take to go, after each batch and (three times) at the end. */
    private static final Duration SETTLE = Duration.ofSeconds(5);
    private static final int MAX_NARROWED_BATCHES = 2;

    private final long seconds = Long.getLong("sluice.fuzz.seconds", DEFAULT_SECONDS);
    private final long maxInputs = Long.getLong("sluice.fuzz.inputs", Long.MAX_VALUE);
    private final int concurrency = Integer.getInteger("sluice.fuzz.concurrency", 6);
    private final long base = Long.getLong("sluice.fuzz.base", BASE_SEED);
    private final String replay = System.getProperty("sluice.fuzz.seed", "");

    private final FuzzFindings findings = new FuzzFindings();
    /**
     * The seeds of the last two inputs on each local port (the server logs peers by port): a port is reused, and a
     * server thread may log after its peer's port went to the next connection.
     */
    private final Map<Integer, long[]> byPort = new ConcurrentHashMap<>();
    private final AtomicInteger inputsRun = new AtomicInteger();
    private final AtomicInteger repliesRead = new AtomicInteger();
    private final AtomicInteger halfOpen = new AtomicInteger();

    /** @return the seed of input {@code i} of the sequence starting at {@code base} */
    static long seedOf(long base, long i) {
        long z = base + i * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    @Test
    @Timeout(value = 1, unit = TimeUnit.DAYS) // a ceiling for long runs: the run bounds itself, just below
    void fuzzedConnectionsNeitherKillNorHangNorLeakTheServer() throws Exception {
        Duration bound = Duration.ofSeconds(seconds + 150);
        FuzzFindings found = assertTimeoutPreemptively(bound, this::fuzz, "the fuzz run outlasted " + bound);
        String report = found.report();
        System.out.println(report);
        assertThat(found.total()).withFailMessage(report).isZero();
    }

    private FuzzFindings fuzz() throws Exception {
        Path captures = Path.of(System.getProperty("sluice.captures", "src/test/resources/captures"));
        FuzzInputs inputs = FuzzInputs.load(captures);
        ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
        // threads not started by Threads (gRPC's, the JDK's) have no handler of their own: record what kills them
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> findings.add(null, "thread " + t.getName()
                + " died of an uncaught " + e));
        try (ServerLogWatch log = ServerLogWatch.install();
             EmbeddedServer server = EmbeddedServer.builder().inMemory().build()) {
            // the log watch sees what slf4j-simple writes, or the ERROR check below would prove nothing
            LoggerFactory.getLogger(WireFuzzTest.class).warn("wire fuzz: watching the server's log");
            assertThat(log.warnings()).as("the log watch saw a WARN line").isPositive();
            SegmentStoreServer listener = server.segmentStoreServer();
            InetSocketAddress address = new InetSocketAddress(server.segmentStoreEndpoint().host(),
                    server.segmentStoreEndpoint().port());
            FuzzClient client = new FuzzClient(address, watchdog);
            fixture(server, true);

            // warm up what starts once (client and controller threads, classes), so it does not count as a leak
            try (Canary warm = new Canary(server.controllerUri(), "-warm-up")) {
                await(() -> warm.verified() >= 20 || warm.failure() != null, Duration.ofSeconds(30));
                assertThat(warm.finish(Duration.ofSeconds(20))).as("the canary before fuzzing").isNull();
            }
            runBatch(inputs, client, List.of(seedOf(base, -1), seedOf(base, -2), seedOf(base, -3)), 1);
            await(() -> listener.connectionCount() == 0, SETTLE);
            ResourceCounts before = ResourceCounts.of(listener);
            long uncaughtBefore = Threads.uncaughtExceptions();

            List<List<Long>> leakyBatches = new ArrayList<>();
            long started = System.nanoTime();
            try (Canary canary = new Canary(server.controllerUri(), "-main")) {
                if (!await(() -> canary.verified() >= 20 || canary.failure() != null, Duration.ofSeconds(30))) {
                    findings.add(null, "the canary did not start verifying events: " + canary.failure());
                }
                int expected = listener.connectionCount();
                phase("canary verifying", started);
                for (List<Long> batch : batches(System.nanoTime())) {
                    fixture(server, false);
                    long batchStarted = System.nanoTime();
                    runBatch(inputs, client, batch, replay.isEmpty() ? concurrency : 1);
                    phase("batch of " + batch.size(), batchStarted);
                    int limit = expected;
                    // once leaks are known and kept for narrowing, later batches do not wait long for theirs
                    Duration settle = leakyBatches.size() < MAX_NARROWED_BATCHES ? SETTLE : Duration.ofSeconds(1);
                    if (!await(() -> listener.connectionCount() <= limit, settle)) {
                        int leaked = listener.connectionCount() - expected;
                        findings.add(null, leaked + " segment-store connections still open "
                                + settle.toSeconds() + " s after the batch of seeds " + batch + " closed");
                        expected += leaked;
                        if (leakyBatches.size() < MAX_NARROWED_BATCHES) {
                            leakyBatches.add(batch);
                        }
                    }
                    checkCanary(canary, batch);
                    if (canary.failure() != null) {
                        break;
                    }
                }
                for (List<Long> batch : leakyBatches) {
                    expected = narrow(inputs, client, listener, batch, expected);
                }
                String end = canary.finish(Duration.ofSeconds(30));
                if (end != null) {
                    findings.add(null, "canary at the end: " + end);
                }
            }
            helloOnAFreshConnection(address);
            ResourceCounts[] after = new ResourceCounts[1];
            await(() -> (after[0] = ResourceCounts.of(listener)).leaksSince(before).isEmpty(), SETTLE.multipliedBy(3));
            for (String leak : after[0].leaksSince(before)) {
                findings.add(null, "leak after every connection closed: " + leak);
            }
            long uncaught = Threads.uncaughtExceptions() - uncaughtBefore;
            if (uncaught > 0) {
                findings.add(null, uncaught + " exceptions reached an uncaught-exception handler");
            }
            for (ServerLogWatch.ErrorRecord e : log.errors()) {
                long[] seeds = e.peerPort().isPresent() ? byPort.get(e.peerPort().getAsInt()) : null;
                FuzzInput input = seeds == null ? null : inputs.generate(seeds[0]);
                String earlier = seeds == null || seeds.length < 2 ? ""
                        : " (or by seed " + seeds[1] + ", the input on that port before)";
                findings.add(input, "the server logged" + earlier + ":\n" + e.head(14));
            }
            System.out.printf("wire fuzz: %d inputs in %d s, %d replies read, %d half-open connections, %d WARN and %d"
                    + " ERROR records; before: %s; after: %s%n", inputsRun.get(),
                    (System.nanoTime() - started) / 1_000_000_000L, repliesRead.get(), halfOpen.get(), log.warnings(),
                    log.errorCount(), before, after[0]);
        } finally {
            watchdog.shutdownNow();
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }
        return findings;
    }

    private static void phase(String what, long sinceNanos) {
        System.out.printf("wire fuzz: %s after %d ms%n", what, (System.nanoTime() - sinceNanos) / 1_000_000);
    }

    /** Creates the fixture's segments (again, after inputs deleted them); the first time also fills them. */
    private static void fixture(EmbeddedServer server, boolean fill) {
        SegmentStore store = server.segmentStore();
        for (String s : FuzzInputs.SEGMENTS) {
            if (store.segmentInfo(s).isEmpty()) {
                store.createSegment(s, (byte) 0, 0, 0);
            }
        }
        if (store.segmentInfo(FuzzInputs.TABLE).isEmpty()) {
            store.createTableSegment(FuzzInputs.TABLE, FuzzInputs.TABLE_KEY_LENGTH);
        }
        if (!fill) {
            return;
        }
        Deadline deadline = Deadline.after(Duration.ofSeconds(20));
        try (Connection c = new TcpConnectionFactory().connect(server.segmentStoreEndpoint(), deadline)) {
            Flow flow = c.openFlow();
            UUID writer = UUID.randomUUID();
            flow.send(new SetupAppend(flow.nextRequestId(), writer, FuzzInputs.SEGMENTS.get(0), ""));
            assertThat(flow.await(deadline)).isInstanceOf(AppendSetup.class);
            List<ByteBuffer> events = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                byte[] e = new byte[1024];
                Arrays.fill(e, (byte) i);
                events.add(ByteBuffer.wrap(e));
            }
            WireOutput out = new WireOutput();
            AppendEncoder.writeBlock(out, writer, events, events.size(), flow.nextRequestId());
            c.sendFrames(out.buffer());
            assertThat(flow.await(deadline)).isInstanceOf(DataAppended.class);
            List<TableEntry> entries = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                entries.add(new TableEntry(new TableKey(ByteBuffer.wrap(new byte[] {0, 0, 0, (byte) (i * 30)}),
                        TableKey.NO_VERSION), new TableValue(ByteBuffer.wrap(new byte[] {(byte) i}))));
            }
            flow.send(new UpdateTableEntries(flow.nextRequestId(), FuzzInputs.TABLE, "", new TableEntries(entries),
                    -1));
            assertThat(flow.await(deadline)).isInstanceOf(TableEntriesUpdated.class);
        }
    }

    /** @return the batches to run: the replayed seeds, or the regression seeds and then the sequence in budget */
    private Iterable<List<Long>> batches(long startedNanos) {
        long budgetEnd = startedNanos + TimeUnit.SECONDS.toNanos(seconds);
        int batchSize = 4 * concurrency;
        List<Long> fixed = new ArrayList<>();
        if (!replay.isEmpty()) {
            for (String s : replay.split(",")) {
                fixed.add(Long.parseLong(s.strip()));
            }
        } else {
            for (long s : REGRESSION_SEEDS) {
                fixed.add(s);
            }
        }
        boolean more = replay.isEmpty();
        return () -> new java.util.Iterator<>() {
            private int fixedAt;
            private long next;

            @Override
            public boolean hasNext() {
                return fixedAt < fixed.size()
                        || (more && next < maxInputs && System.nanoTime() < budgetEnd);
            }

            @Override
            public List<Long> next() {
                List<Long> batch = new ArrayList<>();
                while (batch.size() < batchSize && fixedAt < fixed.size()) {
                    batch.add(fixed.get(fixedAt++));
                }
                while (batch.size() < batchSize && more && next < maxInputs) {
                    batch.add(seedOf(base, next++));
                }
                return batch;
            }
        };
    }

    /** Runs the inputs of {@code seeds}, {@code parallel} at a time, then closes the half-open ones. */
    private void runBatch(FuzzInputs inputs, FuzzClient client, List<Long> seeds, int parallel) throws Exception {
        Queue<Socket> held = new ConcurrentLinkedQueue<>();
        AtomicInteger at = new AtomicInteger();
        try (ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int w = 0; w < parallel; w++) {
                workers.submit(() -> {
                    int i;
                    while ((i = at.getAndIncrement()) < seeds.size()) {
                        runOne(inputs.generate(seeds.get(i)), client, held);
                    }
                    return null;
                });
            }
            workers.shutdown();
            long limit = (long) FuzzClient.HARD_LIMIT_MS * (seeds.size() / parallel + 2) + 10_000;
            if (!workers.awaitTermination(limit, TimeUnit.MILLISECONDS)) {
                findings.add(null, "a fuzz connection outlived its watchdog; batch " + seeds);
                workers.shutdownNow();
            }
        } finally {
            for (Socket s : held) {
                if (s.getLocalPort() % 2 == 0) {
                    try {
                        s.setSoLinger(true, 0);
                    } catch (IOException e) {
                        // closed by the server
                    }
                }
                FuzzClient.closeQuietly(s);
            }
        }
    }

    private void runOne(FuzzInput input, FuzzClient client, Queue<Socket> held) {
        inputsRun.incrementAndGet();
        try {
            FuzzClient.Outcome outcome = client.run(input, port -> byPort.compute(port,
                    (p, seeds) -> seeds == null ? new long[] {input.seed()} : new long[] {input.seed(), seeds[0]}));
            repliesRead.addAndGet(outcome.replies());
            if (outcome.held() != null) {
                held.add(outcome.held());
                halfOpen.incrementAndGet();
            }
            if (outcome.badReply() != null) {
                findings.add(input, outcome.badReply());
            }
        } catch (IOException e) {
            findings.add(input, "the server did not accept a connection: " + e);
        } catch (RuntimeException e) {
            findings.add(input, "the fuzz client failed (a bug in the test): " + e);
        }
    }

    /**
     * Replays the seeds of a batch that leaked connections one by one and reports each that leaves one open.
     *
     * @return the connections open now (the new expectation)
     */
    private int narrow(FuzzInputs inputs, FuzzClient client, SegmentStoreServer listener, List<Long> batch,
                       int expected) throws Exception {
        int now = expected;
        for (long seed : batch) {
            runBatch(inputs, client, List.of(seed), 1);
            int limit = now;
            if (!await(() -> listener.connectionCount() <= limit, Duration.ofSeconds(3))) {
                int leaked = listener.connectionCount() - now;
                findings.add(inputs.generate(seed), "replayed alone, it leaves " + leaked
                        + " segment-store connection(s) open after it closed");
                now += leaked;
            }
        }
        return now;
    }

    private void checkCanary(Canary canary, List<Long> batch) {
        if (canary.failure() != null) {
            findings.add(null, "the well-behaved client failed during the batch of seeds " + batch + ": "
                    + canary.failure());
        } else if (canary.sinceProgress().compareTo(STALL_LIMIT) > 0) {
            findings.add(null, "the well-behaved client verified nothing for " + canary.sinceProgress()
                    .toSeconds() + " s, up to the batch of seeds " + batch);
        }
    }

    private void helloOnAFreshConnection(InetSocketAddress address) {
        try (Socket s = new Socket()) {
            s.connect(address, FuzzClient.CONNECT_TIMEOUT_MS);
            s.setSoTimeout(10_000);
            s.getOutputStream().write(FrameCodec.encode(Hello.current()));
            byte[] reply = new byte[16];
            new DataInputStream(s.getInputStream()).readFully(reply);
            if (!Hello.current().equals(FrameCodec.decodeOne(reply))) {
                findings.add(null, "a fresh connection after fuzzing got " + FrameCodec.decodeOne(reply));
            }
        } catch (IOException | RuntimeException e) {
            findings.add(null, "a fresh connection after fuzzing got no Hello: " + e);
        }
    }

    /** Waits for {@code condition}, yielding between looks. @return whether it became true in time */
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
