package io.sluice.cli;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.sluice.admin.KeyValueTableManager;
import io.sluice.client.SluiceClient;
import io.sluice.common.Threads;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.segment.TableSegmentClient;
import io.sluice.table.KeyValueTable;
import io.sluice.table.KeyValueTableConfiguration;
import io.sluice.table.Put;
import io.sluice.table.TableEntry;
import io.sluice.table.TableKey;

/**
 * The key-value table workload of {@code bench --kvt}, as the official-client driver's {@code bench --kvt}
 * (compat/official-client, KvtBenchPart) runs it, with the same JSON keys. On a new table of K partitions with
 * {@value #PRIMARY_KEY_BYTES}-byte primary and {@value #SECONDARY_KEY_BYTES}-byte secondary keys, C callers (virtual
 * threads; C = 1 is the latency run) share each phase's operations, every one awaited:
 *
 * <ol>
 *   <li>put: N unconditional single puts of S-byte values, keys (i, 0) for i &lt; N;</li>
 *   <li>get: N single gets of the same keys, each value checked;</li>
 *   <li>batch_put: ceil(N / B) atomic batches of B unconditional puts, batch b under primary key
 *       {@value #BATCH_PRIMARY_BASE} + b with secondary keys 0 to B - 1 (an atomic batch needs one primary key);</li>
 *   <li>batch_get: one {@code getAll} of each batch's B keys, every value checked.</li>
 * </ol>
 *
 * <p>A phase's time runs from the start of its callers to the end of the last; each operation's latency is its call
 * to its return; percentiles are nearest-rank. Keys are big-endian {@code long} primary and {@code int} secondary
 * keys; the value of (p, s) is S bytes, byte j being {@code (byte) (p * 31 + s * 17 + j)}. The first failed operation
 * stops the run's callers (the rest would each wait for their retries); the run then reports it and fails.
 */
final class KvtWorkload {
    /** Bytes of a primary key (a big-endian long). */
    static final int PRIMARY_KEY_BYTES = 8;
    /** Bytes of a secondary key (a big-endian int). */
    static final int SECONDARY_KEY_BYTES = 4;
    /** The primary key of the first batch; those of single puts are below it. */
    static final long BATCH_PRIMARY_BASE = 1L << 40;
    /** The most entries in one atomic batch (the segment store's limit). */
    static final int MAX_BATCH = TableSegmentClient.MAX_BATCH_SIZE;
    /** Wire bytes of an entry besides its key and value data (key and value headers). */
    private static final int ENTRY_OVERHEAD = 4 * Integer.BYTES + Long.BYTES;

    private KvtWorkload() {
    }

    /**
     * What to run.
     *
     * @param entries N: single puts and gets, and at least as many batched entries
     * @param size S: bytes per value
     * @param partitions K: the table's partitions
     * @param concurrency C: concurrent callers
     * @param batch B: entries per batch
     */
    record Settings(int entries, int size, int partitions, int concurrency, int batch) {
        /** @throws IllegalArgumentException naming the option that is out of range */
        Settings {
            check("--events", entries, 1, Integer.MAX_VALUE);
            check("--size", size, 0, TableSegmentClient.MAX_VALUE_LENGTH);
            check("--segments", partitions, 1, 1000);
            check("--kvt-concurrency", concurrency, 1, 10_000);
            check("--kvt-batch", batch, 1, MAX_BATCH);
            long batchBytes = (long) batch * (PRIMARY_KEY_BYTES + SECONDARY_KEY_BYTES + size + ENTRY_OVERHEAD);
            if (batchBytes > TableSegmentClient.MAX_BATCH_BYTES) {
                throw new IllegalArgumentException("--kvt-batch " + batch + " of --size " + size + " bytes makes "
                        + "batches of " + batchBytes + " bytes: at most " + TableSegmentClient.MAX_BATCH_BYTES
                        + " fit in one request");
            }
        }

        /** @return how many batches the batch phases run */
        int batches() {
            return (int) ((entries + (long) batch - 1) / batch);
        }

        private static void check(String option, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(option + " must be between " + min + " and " + max + ", but is "
                        + value);
            }
        }
    }

    /**
     * One phase's measurements.
     *
     * @param ops operations completed (failed ones included)
     * @param entriesPerOp entries each operation wrote or read
     * @param nanos the phase's time
     * @param micros every completed operation's latency, sorted
     * @param wrong reads that returned a missing or wrong value
     * @param failed operations that threw
     */
    record Phase(int ops, int entriesPerOp, long nanos, long[] micros, long wrong, long failed) {
        Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            double seconds = nanos / 1e9;
            m.put("ops", ops);
            m.put("entries", (long) ops * entriesPerOp);
            m.put("ops_per_s", seconds == 0 ? 0 : Math.round(ops / seconds));
            m.put("entries_per_s", seconds == 0 ? 0 : Math.round((long) ops * entriesPerOp / seconds));
            m.put("p50_us", Workload.percentile(micros, 0.50));
            m.put("p99_us", Workload.percentile(micros, 0.99));
            m.put("max_us", micros.length == 0 ? 0 : micros[micros.length - 1]);
            m.put("seconds", seconds);
            m.put("wrong", wrong);
            m.put("failed", failed);
            return m;
        }

        String line(String name) {
            double seconds = nanos / 1e9;
            long rate = seconds == 0 ? 0 : Math.round((long) ops * entriesPerOp / seconds);
            return String.format(Locale.ROOT, "%-9s %,d ops x %d in %.2f s: %,d entries/s, p50 %.2f ms, p99 %.2f ms",
                    name, ops, entriesPerOp, seconds, rate, Workload.percentile(micros, 0.50) / 1000.0,
                    Workload.percentile(micros, 0.99) / 1000.0);
        }
    }

    /** What the run did; {@code error} is the first failure, or null. */
    record Report(String table, Settings settings, Phase put, Phase get, Phase batchPut, Phase batchGet,
                  String error, String cleanupError, long totalNanos) {
        boolean ok() {
            return error == null && wrong() == 0 && put.ops() == settings.entries() && get.ops() == settings.entries()
                    && batchPut.ops() == settings.batches() && batchGet.ops() == settings.batches();
        }

        private long wrong() {
            return put.wrong() + get.wrong() + batchPut.wrong() + batchGet.wrong();
        }

        Map<String, Object> json(Map<String, Object> context) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("ok", ok());
            json.putAll(context);
            json.put("table", table);
            Map<String, Object> kvt = new LinkedHashMap<>();
            kvt.put("partitions", settings.partitions());
            kvt.put("concurrency", settings.concurrency());
            kvt.put("entries", settings.entries());
            kvt.put("size", settings.size());
            kvt.put("batch", settings.batch());
            kvt.put("batches", settings.batches());
            kvt.put("put", put.json());
            kvt.put("get", get.json());
            kvt.put("batch_put", batchPut.json());
            kvt.put("batch_get", batchGet.json());
            json.put("kvt", kvt);
            Map<String, Object> verify = new LinkedHashMap<>();
            verify.put("ok", ok());
            verify.put("wrong", wrong());
            verify.put("failed", put.failed() + get.failed() + batchPut.failed() + batchGet.failed());
            if (error != null) {
                verify.put("error", error);
            } else if (!ok()) {
                verify.put("error", wrong() + " reads returned a missing or wrong value");
            }
            json.put("verify", verify);
            json.put("cleanup", Workload.cleanupJson(cleanupError));
            json.put("total_ms", totalNanos / 1_000_000);
            return json;
        }

        List<String> lines() {
            List<String> lines = new ArrayList<>();
            lines.add(String.format(Locale.ROOT, "table     %s: %d partition%s, %,d entries of %,d bytes, %d caller%s, "
                    + "batches of %d", table, settings.partitions(), settings.partitions() == 1 ? "" : "s",
                    settings.entries(), settings.size(), settings.concurrency(), settings.concurrency() == 1 ? "" : "s",
                    settings.batch()));
            lines.add(put.line("put"));
            lines.add(get.line("get"));
            lines.add(batchPut.line("batch put"));
            lines.add(batchGet.line("batch get"));
            lines.add(ok() ? "verify    ok: every value read back as written" : "verify    FAILED: "
                    + (error != null ? error : wrong() + " reads returned a missing or wrong value"));
            if (cleanupError != null) {
                lines.add("cleanup   incomplete: " + cleanupError);
            }
            return lines;
        }
    }

    /** @return the key (primary, secondary) */
    static TableKey key(long primary, int secondary) {
        return new TableKey(ByteBuffer.allocate(PRIMARY_KEY_BYTES).putLong(0, primary),
                ByteBuffer.allocate(SECONDARY_KEY_BYTES).putInt(0, secondary));
    }

    /** @return the value of (primary, secondary): {@code size} bytes, byte j {@code (byte) (p * 31 + s * 17 + j)} */
    static ByteBuffer value(long primary, int secondary, int size) {
        byte[] b = new byte[size];
        int base = (int) (primary * 31 + secondary * 17L);
        for (int j = 0; j < size; j++) {
            b[j] = (byte) (base + j);
        }
        return ByteBuffer.wrap(b);
    }

    /** @return true if {@code e} is the entry of (primary, secondary) with its value */
    static boolean holds(TableEntry e, long primary, int secondary, int size) {
        if (e == null || e.value().remaining() != size) {
            return false;
        }
        ByteBuffer pk = e.key().primaryKey();
        ByteBuffer sk = e.key().secondaryKey();
        if (pk.remaining() != PRIMARY_KEY_BYTES || pk.getLong(pk.position()) != primary
                || sk.remaining() != SECONDARY_KEY_BYTES || sk.getInt(sk.position()) != secondary) {
            return false;
        }
        ByteBuffer v = e.value();
        int p = v.position();
        int base = (int) (primary * 31 + secondary * 17L);
        for (int j = 0; j < size; j++) {
            if (v.get(p + j) != (byte) (base + j)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Runs the workload: creates the scope (if missing) and the table, runs the four phases, and deletes what it
     * created (best effort). Blocks until done.
     *
     * @throws RuntimeException if the scope or table could not be created
     */
    static Report run(SluiceClient client, String scope, String table, Settings s) {
        long start = System.nanoTime();
        boolean scopeCreated = client.streamManager().createScope(scope);
        KeyValueTableManager tables = client.keyValueTableManager();
        if (!tables.createKeyValueTable(scope, table, KeyValueTableConfiguration.builder()
                .partitionCount(s.partitions()).primaryKeyLength(PRIMARY_KEY_BYTES)
                .secondaryKeyLength(SECONDARY_KEY_BYTES).build())) {
            throw new AlreadyExistsException("key-value table '" + scope + "/" + table + "' already exists");
        }
        Failure failure = new Failure();
        Phase put;
        Phase get;
        Phase batchPut;
        Phase batchGet;
        try (KeyValueTable kvt = client.keyValueTable(scope, table)) {
            int size = s.size();
            put = phase("put", s.entries(), 1, s.concurrency(), failure, i -> {
                kvt.update(new Put(key(i, 0), value(i, 0, size)));
                return true;
            });
            get = phase("get", s.entries(), 1, s.concurrency(), failure, i -> holds(kvt.get(key(i, 0)), i, 0, size));
            int batch = s.batch();
            batchPut = phase("batch put", s.batches(), batch, s.concurrency(), failure, b -> {
                long primary = BATCH_PRIMARY_BASE + b;
                List<Put> puts = new ArrayList<>(batch);
                for (int j = 0; j < batch; j++) {
                    puts.add(new Put(key(primary, j), value(primary, j, size)));
                }
                kvt.update(puts);
                return true;
            });
            batchGet = phase("batch get", s.batches(), batch, s.concurrency(), failure, b -> {
                long primary = BATCH_PRIMARY_BASE + b;
                List<TableKey> keys = new ArrayList<>(batch);
                for (int j = 0; j < batch; j++) {
                    keys.add(key(primary, j));
                }
                List<TableEntry> read = kvt.getAll(keys);
                boolean right = read.size() == batch;
                for (int j = 0; right && j < batch; j++) {
                    right = holds(read.get(j), primary, j, size);
                }
                return right;
            });
        }
        String cleanup = null;
        try {
            tables.deleteKeyValueTable(scope, table);
            if (scopeCreated) {
                client.streamManager().deleteScope(scope);
            }
        } catch (RuntimeException e) {
            cleanup = e.getMessage();
        }
        return new Report(scope + "/" + table, s, put, get, batchPut, batchGet, failure.first.get(), cleanup,
                System.nanoTime() - start);
    }

    /** One operation: number {@code i} of its phase; false if what it read was wrong. */
    @FunctionalInterface
    interface Op {
        boolean run(int i);
    }

    /** The first failure of a run, which stops its callers. Thread-safe. */
    private static final class Failure {
        private final AtomicReference<String> first = new AtomicReference<>();
        private final AtomicBoolean stop = new AtomicBoolean();

        void record(String phase, int i, RuntimeException e) {
            first.compareAndSet(null, phase + " " + i + " failed: " + e);
            stop.set(true);
        }
    }

    /**
     * Runs operations 0 to {@code ops - 1} with {@code concurrency} virtual threads, each taking the next number
     * until none is left or a failure stopped the run.
     */
    private static Phase phase(String name, int ops, int entriesPerOp, int concurrency, Failure failure, Op op) {
        long[] micros = new long[ops];
        AtomicInteger next = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        AtomicLong wrong = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        long t0 = System.nanoTime();
        try (ExecutorService callers = Threads.perTaskExecutor("sluice-kvt-bench-")) {
            for (int c = 0; c < Math.min(concurrency, ops); c++) {
                callers.execute(() -> {
                    for (int i = next.getAndIncrement(); i < ops && !failure.stop.get(); i = next.getAndIncrement()) {
                        long t = System.nanoTime();
                        try {
                            if (!op.run(i)) {
                                wrong.incrementAndGet();
                            }
                        } catch (RuntimeException e) {
                            failed.incrementAndGet();
                            failure.record(name, i, e);
                        }
                        micros[done.getAndIncrement()] = (System.nanoTime() - t) / 1000;
                    }
                });
            }
        }
        long nanos = System.nanoTime() - t0;
        long[] sorted = Arrays.copyOf(micros, done.get());
        Arrays.sort(sorted);
        return new Phase(done.get(), entriesPerOp, nanos, sorted, wrong.get(), failed.get());
    }
}
