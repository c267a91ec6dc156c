package io.sluice.reliability;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.bytestream.ByteStreamReader;
import io.sluice.bytestream.ByteStreamWriter;
import io.sluice.client.ClientConfig;
import io.sluice.client.ClientInternals;
import io.sluice.client.SluiceClient;
import io.sluice.common.Endpoint;
import io.sluice.common.KeyHash;
import io.sluice.common.Threads;
import io.sluice.errors.BadKeyVersionException;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.Transaction;
import io.sluice.stream.TransactionalEventStreamWriter;
import io.sluice.stream.TxnState;
import io.sluice.stream.WriteHandle;
import io.sluice.stream.WriterConfig;
import io.sluice.table.Insert;
import io.sluice.table.KeyValueTable;
import io.sluice.table.KeyValueTableConfiguration;
import io.sluice.table.Put;
import io.sluice.table.TableEntry;
import io.sluice.table.TableKey;

/**
 * The reliability suite's mixed workload (docs/reliability.md): in one run, against one scope, writers write keyed
 * events with a sequence number per key (a large event, over 8 MiB, every few thousand), a reader group reads them,
 * transactions commit and some abort on the same stream, a key-value table is updated conditionally from several
 * threads, and a byte stream is appended. Transactions, table updates and byte stream appends are spread over the
 * run by the writers' progress. At the end every writer writes an end marker on each of its keys (after the last
 * transaction), and reading is over once every acknowledged event and marker and every committed transaction's
 * events were read. {@link #verify()} then checks that nothing acknowledged was lost or duplicated, each key's
 * order held, committed transactions are whole and aborted ones absent, the table's values equal the updates that
 * succeeded, and the byte stream holds exactly what was appended; every {@code flush()}, commit and abort runs under
 * a deadline, and one that does not return is a problem with a thread dump.
 *
 * <p>The workload never restarts a client: when the server is unreachable for a while the clients retry on their
 * own and the workload only records what failed (the application-level loops — a table update refused for a stale
 * version, a transaction to begin — retry). So it serves both a proxy injecting network faults and a server being
 * killed and restarted. Use: {@link #start()}, {@link #awaitDone(Duration)}, {@link #verify()}, {@link #close()}.
 * Thread-safe.
 */
public final class MixedWorkload implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MixedWorkload.class);
    /** The stream of events and transactions, the byte stream, the table and the reader group. */
    static final String EVENTS = "events";
    static final String BYTES = "bytes";
    static final String TABLE = "table";
    static final String GROUP = "readers";
    private static final int PROGRESS_STEP = 64;
    private static final int READER_ERRORS_IN_A_ROW = 200;

    /**
     * The counts of a run.
     *
     * @param scope the scope to create and use (unique per run: the server may be shared)
     * @param events events the writers write in all, large ones included
     * @param writers writers, each with its own routing keys
     * @param readers readers in the reader group
     * @param segments the event stream's fixed segment count
     * @param keys routing keys, spread evenly over the segments (so each segment gets end markers)
     * @param eventBytes the size of an ordinary event
     * @param largeEventEvery one event in this many is a large one (written by the first writer); 0 for none
     * @param largeEventBytes the size of a large event (over 8 MiB for the large-event path)
     * @param flushEvery each writer flushes after this many events
     * @param transactions transactions in all
     * @param eventsPerTransaction events in each
     * @param abortEvery every this-many-th transaction is aborted (0: none)
     * @param tableKeys keys of the table
     * @param tableUpdaters threads updating the table
     * @param tableUpdates successful conditional updates per updater
     * @param byteStreamChunks appends to the byte stream
     * @param byteStreamChunkBytes the largest append
     * @param callDeadline how long a flush, commit or abort may take before it counts as hung
     * @param seed the seed of the keys' order, the updates and every byte written
     */
    public record Config(String scope, int events, int writers, int readers, int segments, int keys, int eventBytes,
                         int largeEventEvery, int largeEventBytes, int flushEvery, int transactions,
                         int eventsPerTransaction, int abortEvery, int tableKeys, int tableUpdaters,
                         int tableUpdates, int byteStreamChunks, int byteStreamChunkBytes, Duration callDeadline,
                         long seed) {
        /** Checks the values. */
        public Config {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(callDeadline, "callDeadline");
            positive("events", events);
            positive("writers", writers);
            positive("readers", readers);
            positive("segments", segments);
            positive("eventBytes", eventBytes);
            positive("flushEvery", flushEvery);
            positive("eventsPerTransaction", eventsPerTransaction);
            positive("tableKeys", tableKeys);
            positive("byteStreamChunkBytes", byteStreamChunkBytes);
            if (keys < writers || keys < segments) {
                throw new IllegalArgumentException("keys must be at least writers and segments: " + keys);
            }
            for (int n : new int[] {largeEventEvery, transactions, abortEvery, tableUpdaters, tableUpdates,
                    byteStreamChunks}) {
                if (n < 0) {
                    throw new IllegalArgumentException("counts must not be negative: " + n);
                }
            }
            if (largeEventEvery > 0 && largeEventBytes <= WriterConfig.MAX_EVENT_BYTES) {
                throw new IllegalArgumentException("a large event must be over " + WriterConfig.MAX_EVENT_BYTES
                        + " bytes: " + largeEventBytes);
            }
        }

        private static void positive(String what, int n) {
            if (n <= 0) {
                throw new IllegalArgumentException(what + " must be positive: " + n);
            }
        }

        /**
         * The suite's mix for {@code events} events: 4 writers on 32 keys over 4 segments, 3 readers, 100-byte
         * events, a 9 MiB event every 5,000 events, one transaction of 10 events per 2,000 events (every 4th
         * aborted), 4 threads updating 8 table keys (one update each per 200 events), a byte stream append of up to
         * 4 KiB per 500 events.
         *
         * @param scope the scope
         * @param events the events
         * @param seed the seed
         * @return the configuration
         */
        public static Config of(String scope, int events, long seed) {
            return new Config(scope, events, 4, 3, 4, 32, 100, events >= 10_000 ? 5_000 : 0, 9 * 1024 * 1024, 1_000,
                    Math.max(4, events / 2_000), 10, 4, 8, 4, Math.max(20, events / 200 / 4),
                    Math.max(20, events / 500), 4096, Duration.ofSeconds(120), seed);
        }
    }

    /** How far a run is: for a test that injects a fault once the workload has got somewhere. */
    public record Progress(long eventsWritten, long eventsAcked, long eventsRead, boolean writingDone,
                           boolean readingDone) {
    }

    private final Config config;
    private final ClientConfig clientConfig;
    private final UnaryOperator<Endpoint> route;
    private final EventLedger ledger = new EventLedger();
    private final List<String> keys;
    private final List<String> problems = new CopyOnWriteArrayList<>();
    private final List<SluiceClient> clients = new CopyOnWriteArrayList<>();
    private final List<Thread> tasks = new CopyOnWriteArrayList<>();

    private final ReentrantLock progressLock = new ReentrantLock();
    private final Condition progressed = progressLock.newCondition();
    /** Guarded by progressLock. */
    private long written;
    /** Guarded by progressLock. */
    private boolean writersFinished;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong largeWritten = new AtomicLong();
    private final AtomicLong writeFailures = new AtomicLong();
    /** The first write failure: what failed and the exception's chain of messages, for the report. */
    private final java.util.concurrent.atomic.AtomicReference<String> firstWriteFailure =
            new java.util.concurrent.atomic.AtomicReference<>();
    private final AtomicLong markersAcked = new AtomicLong();
    private final CountDownLatch eventsWrittenLatch;
    private final CountDownLatch txnsDone = new CountDownLatch(1);
    private final CountDownLatch writing;
    private volatile boolean readingDone;
    private volatile boolean closing;

    private final Map<String, TxnState> txnOutcomes = new ConcurrentHashMap<>();
    private final AtomicLong flushes = new AtomicLong();
    private final AtomicLong longestFlushNanos = new AtomicLong();
    private final AtomicLong readerErrors = new AtomicLong();
    private final AtomicLong operationErrors = new AtomicLong();
    private final AtomicLongArray tableSuccesses;
    private final AtomicLong tableConflicts = new AtomicLong();
    private final AtomicLong tableAmbiguous = new AtomicLong();
    private final AtomicLong byteStreamAppended = new AtomicLong();
    private volatile boolean byteStreamBroken;
    private volatile long startNanos;
    private volatile long readingDoneNanos;

    /**
     * A workload whose clients reach the segment stores where the controller says.
     *
     * @param config the counts
     * @param controllerUri the controller to connect to
     */
    public MixedWorkload(Config config, String controllerUri) {
        this(config, ClientConfig.of(controllerUri), UnaryOperator.identity());
    }

    /**
     * A workload whose clients reach each segment store at {@code route.apply(endpoint)} (a proxy in front of it);
     * the controller is reached directly.
     *
     * @param config the counts
     * @param clientConfig the clients' settings, the controller's URI among them
     * @param route maps the segment store the controller names to the endpoint to connect to
     */
    public MixedWorkload(Config config, ClientConfig clientConfig, UnaryOperator<Endpoint> route) {
        this.config = Objects.requireNonNull(config, "config");
        this.clientConfig = Objects.requireNonNull(clientConfig, "clientConfig");
        this.route = Objects.requireNonNull(route, "route");
        this.keys = chooseKeys(config);
        this.eventsWrittenLatch = new CountDownLatch(config.writers());
        this.writing = new CountDownLatch(config.writers());
        this.tableSuccesses = new AtomicLongArray(config.tableUpdaters() * config.tableKeys());
    }

    /** Routing keys named so that key {@code k} falls in segment {@code k % segments} of the fixed stream. */
    private static List<String> chooseKeys(Config config) {
        List<String> out = new ArrayList<>();
        for (int k = 0; k < config.keys(); k++) {
            int segment = k % config.segments();
            for (int salt = 0; ; salt++) {
                String key = "k" + k + "-" + salt;
                if ((int) (KeyHash.routingKey(key) * config.segments()) == segment) {
                    out.add(key);
                    break;
                }
            }
        }
        return List.copyOf(out);
    }

    /** @return the counts of this run */
    public Config config() {
        return config;
    }

    /**
     * Creates the scope, the streams, the table and the reader group, and starts every writer, reader, transaction,
     * table and byte stream thread. Returns at once after the set-up.
     */
    public void start() {
        startNanos = System.nanoTime();
        SluiceClient admin = client();
        admin.streamManager().createScope(config.scope());
        admin.streamManager().createStream(config.scope(), EVENTS, StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(config.segments())).build());
        admin.streamManager().createStream(config.scope(), BYTES, StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(1)).build());
        if (config.tableUpdaters() > 0) {
            admin.keyValueTableManager().createKeyValueTable(config.scope(), TABLE, KeyValueTableConfiguration
                    .builder().partitionCount(2).primaryKeyLength(Long.BYTES).secondaryKeyLength(0).build());
        }
        admin.readerGroupManager(config.scope()).createReaderGroup(GROUP, ReaderGroupConfig.builder()
                .stream(config.scope() + "/" + EVENTS).build());
        LOG.info("mixed workload in scope {}: {}", config.scope(), config);

        SluiceClient writers = client();
        for (int w = 0; w < config.writers(); w++) {
            int id = w;
            task("writer-" + w, () -> runWriter(writers, id));
        }
        task("transactions", () -> runTransactions(writers));
        SluiceClient others = client();
        for (int u = 0; u < config.tableUpdaters(); u++) {
            int id = u;
            task("table-" + u, () -> runTableUpdates(others, id));
        }
        task("byte-stream", () -> runByteStream(others));
        SluiceClient readers = client();
        for (int r = 0; r < config.readers(); r++) {
            int id = r;
            task("reader-" + r, () -> runReader(readers, id));
        }
    }

    private SluiceClient client() {
        SluiceClient c = ClientInternals.connectRouted(clientConfig, route);
        clients.add(c);
        return c;
    }

    private void task(String name, Runnable body) {
        tasks.add(Threads.startVirtual("workload-" + name, () -> {
            try {
                body.run();
            } catch (RuntimeException | Error e) {
                if (!closing) {
                    LOG.error("workload task {} failed", name, e);
                    problems.add(name + " failed: " + e);
                }
            }
        }));
    }

    // --- progress

    private void advance(long n) {
        progressLock.lock();
        try {
            written += n;
            progressed.signalAll();
        } finally {
            progressLock.unlock();
        }
    }

    private void writerDone() {
        eventsWrittenLatch.countDown();
        if (eventsWrittenLatch.getCount() == 0) {
            progressLock.lock();
            try {
                writersFinished = true;
                progressed.signalAll();
            } finally {
                progressLock.unlock();
            }
        }
    }

    /** Waits until the writers wrote {@code target} events, or finished; false if the workload is closing. */
    private boolean awaitWritten(long target) {
        progressLock.lock();
        try {
            while (written < target && !writersFinished && !closing) {
                progressed.await(1, TimeUnit.SECONDS);   // the timeout only to notice close()
            }
            return !closing;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            progressLock.unlock();
        }
    }

    /** @return how far the run is */
    public Progress progress() {
        long w;
        boolean done;
        progressLock.lock();
        try {
            w = written;
            done = writersFinished;
        } finally {
            progressLock.unlock();
        }
        return new Progress(w, acked.get(), ledger.eventsRead(), done && writing.getCount() == 0, readingDone);
    }

    // --- calls under a deadline

    /**
     * Runs {@code call} (a flush, commit or abort) on a thread of its own and waits at most the call deadline; one
     * that does not return by then is a problem, with a thread dump, and is waited for further.
     *
     * @throws RuntimeException what the call threw
     */
    private void timed(String what, Runnable call) {
        long t0 = System.nanoTime();
        CompletableFuture<Void> f = new CompletableFuture<>();
        Threads.startVirtual("workload-call", () -> {
            try {
                call.run();
                f.complete(null);
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        try {
            try {
                f.get(config.callDeadline().toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                String dump = ThreadDump.write("workload-" + what.replaceAll("[^A-Za-z0-9-]", "_"));
                problems.add(what + " did not return within " + config.callDeadline() + " (thread dump: " + dump
                        + ")");
                LOG.error("{} hangs; thread dump in {}", what, dump);
                f.get();
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(what + " failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(what + " interrupted", e);
        } finally {
            long took = System.nanoTime() - t0;
            flushes.incrementAndGet();
            longestFlushNanos.accumulateAndGet(took, Math::max);
        }
    }

    // --- writers

    /** An event written, waiting for its acknowledgement. */
    private record Pending(String key, long seq, boolean marker, WriteHandle handle) {
    }

    private void runWriter(SluiceClient client, int w) {
        List<String> mine = new ArrayList<>();
        for (int k = w; k < keys.size(); k += config.writers()) {
            mine.add(keys.get(k));
        }
        long[] next = new long[mine.size()];
        int count = config.events() / config.writers() + (w < config.events() % config.writers() ? 1 : 0);
        int largeEvery = config.largeEventEvery() == 0 ? 0 : Math.max(1, config.largeEventEvery() / config.writers());
        Random order = new Random(config.seed() * 31 + w);
        List<Pending> pending = new ArrayList<>();
        try (EventStreamWriter<byte[]> writer = client.newWriter(config.scope(), EVENTS, Serializers.bytes(),
                WriterConfig.DEFAULT.withLargeEvents(true))) {
            int unreported = 0;
            for (int i = 0; i < count && !closing; i++) {
                int k = order.nextInt(mine.size());
                String key = mine.get(k);
                long seq = next[k]++;
                boolean large = w == 0 && largeEvery > 0 && i % largeEvery == largeEvery - 1;
                byte[] payload = Payloads.make('E', key, seq, large ? config.largeEventBytes() : config.eventBytes(),
                        config.seed());
                if (large) {
                    largeWritten.incrementAndGet();
                }
                write(writer, key, seq, false, payload, pending);
                if (++unreported == PROGRESS_STEP) {
                    advance(unreported);
                    unreported = 0;
                }
                if (pending.size() >= config.flushEvery()) {
                    flushAndSettle(writer, "writer-" + w, pending);
                }
            }
            advance(unreported);
            flushAndSettle(writer, "writer-" + w, pending);
            writerDone();
            // the markers come after every transaction, so a key's marker is the last thing in its segment
            await(txnsDone, "the transactions");
            for (int k = 0; k < mine.size(); k++) {
                write(writer, mine.get(k), next[k], true,
                        Payloads.make('M', mine.get(k), next[k], config.eventBytes(), config.seed()), pending);
            }
            flushAndSettle(writer, "writer-" + w, pending);
        } finally {
            writing.countDown();
        }
    }

    private void write(EventStreamWriter<byte[]> writer, String key, long seq, boolean marker, byte[] payload,
                       List<Pending> pending) {
        try {
            pending.add(new Pending(key, seq, marker, writer.write(key, payload)));
        } catch (RuntimeException e) {
            failed(key, seq, marker, e);
        }
    }

    private void failed(String key, long seq, boolean marker, RuntimeException e) {
        long n = writeFailures.incrementAndGet();
        firstWriteFailure.compareAndSet(null, key + " #" + seq + (marker ? " (marker)" : "") + ": " + chain(e));
        if (n <= 10) {
            LOG.warn("write of {} #{}{} failed", key, seq, marker ? " (marker)" : "", e);
        }
        if (!marker) {
            ledger.failed(key, seq);
        }
    }

    /** @return the exception's class and message, then its causes', each once */
    private static String chain(Throwable e) {
        StringBuilder b = new StringBuilder();
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
            b.append(b.length() == 0 ? "" : " <- caused by ").append(t);
        }
        return b.toString();
    }

    private void flushAndSettle(EventStreamWriter<byte[]> writer, String who, List<Pending> pending) {
        try {
            timed("flush of " + who, writer::flush);
        } catch (RuntimeException e) {
            LOG.warn("flush of {} failed: {}", who, e.toString());
        }
        for (Pending p : pending) {
            if (!p.handle().isDone()) {
                problems.add("a write of " + p.key() + " #" + p.seq() + " was not done after flush() returned");
                continue;
            }
            try {
                p.handle().await(Duration.ZERO);
                acked.incrementAndGet();
                if (p.marker()) {
                    ledger.markerAcked(p.key(), p.seq());
                    markersAcked.incrementAndGet();
                } else {
                    ledger.acked(p.key(), p.seq());
                }
            } catch (RuntimeException e) {
                failed(p.key(), p.seq(), p.marker(), e);
            }
        }
        pending.clear();
    }

    private void await(CountDownLatch latch, String what) {
        try {
            while (!latch.await(1, TimeUnit.SECONDS)) {   // the timeout only to notice close()
                if (closing) {
                    throw new IllegalStateException("closed while waiting for " + what);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + what, e);
        }
    }

    // --- transactions

    private void runTransactions(SluiceClient client) {
        try (TransactionalEventStreamWriter<byte[]> writer = client.newTransactionalWriter(config.scope(), EVENTS,
                Serializers.bytes())) {
            int n = config.transactions();
            for (int t = 0; t < n && !closing; t++) {
                if (!awaitWritten((long) (t + 1) * config.events() / (n + 1))) {
                    return;
                }
                transaction(writer, t);
            }
        } finally {
            txnsDone.countDown();
        }
    }

    private void transaction(TransactionalEventStreamWriter<byte[]> writer, int t) {
        String name = "txn-" + t;
        boolean abort = config.abortEvery() > 0 && t % config.abortEvery() == config.abortEvery() - 1;
        Transaction<byte[]> txn = null;
        for (int attempt = 1; txn == null; attempt++) {
            try {
                txn = writer.beginTxn();
            } catch (RuntimeException e) {
                operationErrors.incrementAndGet();
                if (attempt == 20 || closing) {
                    problems.add("could not begin transaction " + name + ": " + e);
                    return;
                }
            }
        }
        try {
            for (int i = 0; i < config.eventsPerTransaction(); i++) {
                txn.write(name, Payloads.make('T', name, i, config.eventBytes(), config.seed()));
            }
            Transaction<byte[]> x = txn;
            if (abort) {
                timed("abort of " + name, x::abort);
            } else {
                timed("commit of " + name, x::commit);
            }
        } catch (RuntimeException e) {
            operationErrors.incrementAndGet();
            LOG.warn("{} of {} failed: {}", abort ? "abort" : "commit", name, e.toString());
        }
        TxnState state = settle(txn, name);
        txnOutcomes.put(name, state);
        if (abort && state == TxnState.COMMITTED) {
            problems.add("transaction " + name + " was aborted but ended " + state);
        }
    }

    /** The transaction's final state: asks until it is terminal, aborting one left open by a failed commit. */
    private TxnState settle(Transaction<byte[]> txn, String name) {
        long deadline = System.nanoTime() + config.callDeadline().toNanos();
        TxnState state = null;
        while (System.nanoTime() - deadline < 0 && !closing) {
            try {
                state = txn.status();
                if (state.isFinal()) {
                    return state;
                }
                if (state == TxnState.OPEN) {
                    timed("abort of " + name + " after its commit failed", txn::abort);
                }
            } catch (RuntimeException e) {
                operationErrors.incrementAndGet();
            }
            Thread.onSpinWait();
        }
        problems.add("transaction " + name + " did not end within " + config.callDeadline() + ": " + state);
        return state;
    }

    // --- the table

    private TableKey tableKey(int k) {
        return new TableKey(ByteBuffer.allocate(Long.BYTES).putLong(0, k));
    }

    /** A table value: the number of updates, then each updater's share of them. */
    private long[] decode(TableEntry e) {
        long[] v = new long[1 + config.tableUpdaters()];
        if (e != null) {
            ByteBuffer b = e.value();
            for (int i = 0; i < v.length; i++) {
                v[i] = b.getLong();
            }
        }
        return v;
    }

    private static ByteBuffer encode(long[] v) {
        ByteBuffer b = ByteBuffer.allocate(v.length * Long.BYTES);
        for (long x : v) {
            b.putLong(x);
        }
        return b.flip();
    }

    private void runTableUpdates(SluiceClient client, int u) {
        Random random = new Random(config.seed() * 17 + u);
        try (KeyValueTable table = client.keyValueTable(config.scope(), TABLE)) {
            int n = config.tableUpdates();
            for (int i = 0; i < n && !closing; i++) {
                if (!awaitWritten((long) (i + 1) * config.events() / (n + 1))) {
                    return;
                }
                int k = random.nextInt(config.tableKeys());
                update(table, u, k);
                tableSuccesses.incrementAndGet(u * config.tableKeys() + k);
            }
        }
    }

    /**
     * One conditional increment of key {@code k} by updater {@code u}: read, put at the version read, and on a
     * conflict or an error read again. An update whose reply was lost (or whose retry met its own first attempt
     * as a conflict) is recognised by the updater's share in the value, which only this updater raises.
     *
     * <p>A put refused with {@code possiblyApplied()} false whose change is found afterwards is a problem: the
     * client said nothing changed. The report says whether an earlier put of the same call was left uncertain (it
     * failed, or was refused after a lost attempt, and the read right after it did not show its change): if so, that
     * put's change arriving late (or read late) would explain the finding without the refusal being wrong.
     */
    private void update(KeyValueTable table, int u, int k) {
        TableKey key = tableKey(k);
        String uncertain = null; // the last put of this call that may be in although the read after it said not
        while (!closing) {
            TableEntry e;
            try {
                e = table.get(key);
            } catch (RuntimeException ex) {
                operationErrors.incrementAndGet();
                continue;
            }
            long[] v = decode(e);
            long[] next = v.clone();
            next[0]++;
            next[1 + u]++;
            String put = "put share " + next[1 + u] + " after reading " + describe(e, u);
            try {
                table.update(e == null ? new Insert(key, encode(next)) : new Put(key, encode(next), e.version()));
                return;
            } catch (BadKeyVersionException ex) {
                tableConflicts.incrementAndGet();
                if (landed(table, key, u, next[1 + u])) {
                    tableAmbiguous.incrementAndGet();
                    if (!ex.possiblyApplied()) {
                        // the updater's own count tells a read older than the updater's last update (count = put
                        // share) from a refused request that was applied (count = put share - 1)
                        String found = "a conditional update of table key " + k + " was refused as a stale version"
                                + " saying nothing changed, but its change is in: " + ex.getMessage() + " (" + put
                                + ", this updater's increments of the key before it "
                                + tableSuccesses.get(u * config.tableKeys() + k) + "; now " + describeNow(table, key, u)
                                + ")";
                        problems.add(found + (uncertain == null ? "; no earlier put of this update was uncertain"
                                : "; an earlier put of this update was uncertain, and may be the one that is in: "
                                + uncertain));
                    }
                    return;
                }
                if (ex.possiblyApplied()) {
                    uncertain = put + ", refused after a lost attempt (" + ex.getMessage() + "), then not found";
                }
                continue;
            } catch (RuntimeException ex) {
                operationErrors.incrementAndGet();
                uncertain = put + ", failed (" + ex + "), then not found";
            }
            if (landed(table, key, u, next[1 + u])) {
                tableAmbiguous.incrementAndGet();
                return;
            }
        }
    }

    private String describe(TableEntry e, int u) {
        if (e == null) {
            return "no entry";
        }
        long[] v = decode(e);
        return "version " + e.version() + ", " + v[0] + " updates, this updater's share " + v[1 + u];
    }

    private String describeNow(KeyValueTable table, TableKey key, int u) {
        try {
            return describe(table.get(key), u);
        } catch (RuntimeException ex) {
            return "unread: " + ex.getMessage();
        }
    }

    private boolean landed(KeyValueTable table, TableKey key, int u, long share) {
        while (!closing) {
            try {
                return decode(table.get(key))[1 + u] >= share;
            } catch (RuntimeException ex) {
                operationErrors.incrementAndGet();
            }
        }
        return false;
    }

    // --- the byte stream

    private void runByteStream(SluiceClient client) {
        int n = config.byteStreamChunks();
        ByteStreamWriter writer = client.newByteStreamWriter(config.scope(), BYTES);
        try {
            for (int c = 0; c < n && !closing; c++) {
                if (!awaitWritten((long) (c + 1) * config.events() / (n + 1))) {
                    return;
                }
                byte[] chunk = Payloads.chunk(c, config.byteStreamChunkBytes(), config.seed());
                writer.write(chunk);
                byteStreamAppended.addAndGet(chunk.length);
                if (c % 20 == 19) {
                    timed("flush of the byte stream", writer::flush);
                }
            }
            timed("flush of the byte stream", writer::flush);
        } catch (RuntimeException e) {
            byteStreamBroken = true;
            operationErrors.incrementAndGet();
            problems.add("the byte stream writer failed, its content is unknown: " + e);
        } finally {
            timed("close of the byte stream writer", writer::close);
        }
    }

    // --- readers

    private void runReader(SluiceClient client, int r) {
        EventStreamReader<byte[]> reader = null;
        for (int attempt = 1; reader == null; attempt++) {
            try {
                reader = client.newReader(config.scope(), GROUP, "reader-" + r, Serializers.bytes());
            } catch (RuntimeException e) {
                readerErrors.incrementAndGet();
                if (attempt == 20 || closing) {
                    problems.add("reader-" + r + " could not join the group: " + e);
                    return;
                }
            }
        }
        try {
            int inARow = 0;
            while (!readingDone && !closing) {
                try {
                    EventRead<byte[]> e = reader.readNextEvent(Duration.ofMillis(500));
                    inARow = 0;
                    if (e.hasEvent()) {
                        ledger.read(e.event(), e.pointer(), "reader-" + r, config.seed());
                    }
                } catch (RuntimeException e) {
                    readerErrors.incrementAndGet();
                    if (++inARow == READER_ERRORS_IN_A_ROW) {
                        problems.add("reader-" + r + " gave up after " + inARow + " errors in a row: " + e);
                        return;
                    }
                    LOG.warn("reader-{}: {}", r, e.toString());
                }
                checkReadingDone();
            }
        } finally {
            reader.close();
        }
    }

    private void checkReadingDone() {
        if (readingDone || writing.getCount() > 0 || ledger.markersSeen() < markersAcked.get()) {
            return;
        }
        if (!ledger.allRead((int) markersAcked.get())) {
            return;
        }
        for (Map.Entry<String, TxnState> t : txnOutcomes.entrySet()) {
            if (t.getValue() == TxnState.COMMITTED
                    && ledger.txnEventsRead(t.getKey()) < config.eventsPerTransaction()) {
                return;
            }
        }
        readingDoneNanos = System.nanoTime();
        readingDone = true;
    }

    // --- the end

    /**
     * Waits until every thread of the workload is done: written, read to the end, updated, appended.
     *
     * @param timeout how long to wait
     * @return true if done; false if not (a problem is recorded, with a thread dump)
     */
    public boolean awaitDone(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread t : tasks) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !t.join(Duration.ofNanos(left))) {
                String dump = ThreadDump.write("workload-not-done");
                Progress p = progress();
                problems.add("the workload was not done within " + timeout + " (" + t.getName() + " still runs; "
                        + p + "; thread dump: " + dump + ")");
                LOG.error("the workload is not done within {}: {}; thread dump in {}", timeout, p, dump);
                return false;
            }
        }
        return true;
    }

    /**
     * Checks everything the run wrote against what it read, the table and the byte stream (reading them through
     * the workload's clients). Call after {@link #awaitDone} returned true.
     *
     * @return the figures and the problems found
     */
    public WorkloadReport verify() {
        List<String> found = new ArrayList<>(problems);
        EventLedger.Account events = ledger.account();
        found.addAll(events.problems());
        int committed = 0;
        int aborted = 0;
        long txnEvents = 0;
        for (Map.Entry<String, TxnState> t : txnOutcomes.entrySet()) {
            int read = ledger.txnEventsRead(t.getKey());
            if (t.getValue() == TxnState.COMMITTED) {
                committed++;
                txnEvents += read;
                if (read != config.eventsPerTransaction()) {
                    found.add("committed transaction " + t.getKey() + ": " + read + " of "
                            + config.eventsPerTransaction() + " events read");
                }
            } else {
                aborted++;
                if (read != 0) {
                    found.add("transaction " + t.getKey() + " ended " + t.getValue() + " but " + read
                            + " of its events were read");
                }
            }
        }
        long tableUpdates = verifyTable(found);
        long bytes = verifyByteStream(found);
        long end = readingDone ? readingDoneNanos : System.nanoTime();
        WorkloadReport report = new WorkloadReport(config.seed(), Duration.ofNanos(end - startNanos),
                written(), largeWritten.get(), acked.get(), writeFailures.get(), events.read(), ledger.bytesRead(),
                events.lost(), events.duplicates(), events.outOfOrder(), events.corrupt(), committed, aborted,
                txnEvents, tableUpdates, tableConflicts.get(), tableAmbiguous.get(), bytes, flushes.get(),
                Duration.ofNanos(longestFlushNanos.get()), readerErrors.get(), operationErrors.get(),
                firstWriteFailure.get(), found);
        LOG.info("mixed workload in scope {}: {}", config.scope(), report);
        return report;
    }

    private long written() {
        progressLock.lock();
        try {
            return written;
        } finally {
            progressLock.unlock();
        }
    }

    private long verifyTable(List<String> found) {
        if (config.tableUpdaters() == 0) {
            return 0;
        }
        long total = 0;
        try (KeyValueTable table = clients.get(0).keyValueTable(config.scope(), TABLE)) {
            for (int k = 0; k < config.tableKeys(); k++) {
                long[] v = decode(table.get(tableKey(k)));
                long[] expected = new long[v.length];
                for (int u = 0; u < config.tableUpdaters(); u++) {
                    expected[1 + u] = tableSuccesses.get(u * config.tableKeys() + k);
                    expected[0] += expected[1 + u];
                }
                total += expected[0];
                if (!Arrays.equals(v, expected)) {
                    found.add("table key " + k + " holds " + Arrays.toString(v) + " (updates, then each updater's)"
                            + " where the successful updates were " + Arrays.toString(expected));
                }
            }
        } catch (RuntimeException e) {
            found.add("could not read the table back: " + e);
        }
        return total;
    }

    private long verifyByteStream(List<String> found) {
        long expected = byteStreamAppended.get();
        if (byteStreamBroken) {
            return 0;
        }
        try (ByteStreamReader reader = clients.get(0).newByteStreamReader(config.scope(), BYTES)) {
            long tail = reader.tailOffset();
            if (tail != expected) {
                found.add("the byte stream holds " + tail + " bytes where " + expected + " were appended");
                return 0;
            }
            long offset = 0;
            for (int c = 0; offset < expected; c++) {
                byte[] chunk = Payloads.chunk(c, config.byteStreamChunkBytes(), config.seed());
                byte[] got = reader.readNBytes(chunk.length);
                if (!Arrays.equals(got, chunk)) {
                    found.add("the byte stream differs in append " + c + " (at offset " + offset + ")");
                    return 0;
                }
                offset += chunk.length;
            }
            return offset;
        } catch (RuntimeException | java.io.IOException e) {
            found.add("could not read the byte stream back: " + e);
            return 0;
        }
    }

    /** Stops every thread of the workload and closes its clients. */
    @Override
    public void close() {
        closing = true;
        progressLock.lock();
        try {
            progressed.signalAll();
        } finally {
            progressLock.unlock();
        }
        for (Thread t : tasks) {
            t.interrupt();
        }
        for (Thread t : tasks) {
            try {
                if (!t.join(Duration.ofSeconds(30))) {
                    LOG.warn("workload thread {} did not end", t.getName());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (SluiceClient c : clients) {
            try {
                c.close();
            } catch (RuntimeException e) {
                LOG.warn("closing a workload client: {}", e.toString());
            }
        }
    }
}
