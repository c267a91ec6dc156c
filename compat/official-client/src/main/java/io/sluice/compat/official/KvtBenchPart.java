package io.sluice.compat.official;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.pravega.client.KeyValueTableFactory;
import io.pravega.client.admin.KeyValueTableManager;
import io.pravega.client.tables.KeyValueTable;
import io.pravega.client.tables.KeyValueTableClientConfiguration;
import io.pravega.client.tables.KeyValueTableConfiguration;
import io.pravega.client.tables.Put;
import io.pravega.client.tables.TableEntry;
import io.pravega.client.tables.TableKey;
import io.pravega.client.tables.TableModification;

/**
 * Mode {@code bench --kvt}: the key-value table workload of Sluice's {@code bench --kvt} (KvtWorkload in
 * src/main/java/io/sluice/cli) with the official client, same keys, values and JSON. On a new table of --segments
 * partitions with 8-byte primary and 4-byte secondary keys, --kvt-concurrency callers (threads; the driver is built
 * for Java 17) share each phase's operations, every one awaited ({@code .get()}):
 * <ol>
 *   <li>put: --events unconditional single puts of --size-byte values, keys (i, 0);</li>
 *   <li>get: a get of each of those keys, the value checked;</li>
 *   <li>batch_put: ceil(events / B) atomic batches of B puts (B = --kvt-batch), batch b under primary key
 *       2^40 + b, secondary keys 0 to B - 1;</li>
 *   <li>batch_get: a getAll of each batch's B keys, every value checked.</li>
 * </ol>
 * The value of (p, s) is --size bytes, byte j {@code (byte) (p * 31 + s * 17 + j)}. The first failed operation stops
 * the callers.
 */
final class KvtBenchPart {
    private static final int PRIMARY_KEY_BYTES = 8;
    private static final int SECONDARY_KEY_BYTES = 4;
    private static final long BATCH_PRIMARY_BASE = 1L << 40;

    private KvtBenchPart() {
    }

    /** One operation: number {@code i} of its phase; false if what it read was wrong. */
    private interface Op {
        boolean run(int i) throws Exception;
    }

    static boolean run(Run run, Report report) throws Exception {
        Options o = run.options;
        int entries = o.events();
        int size = o.size();
        int batch = o.kvtBatch();
        int batches = (int) ((entries + (long) batch - 1) / batch);
        String table = run.name("-kvt");
        report.put("table", o.scope() + "/" + table);
        run.phase("bench --kvt: creating key-value table " + table);
        try (KeyValueTableManager manager = KeyValueTableManager.create(run.config)) {
            if (!manager.createKeyValueTable(o.scope(), table, KeyValueTableConfiguration.builder()
                    .partitionCount(o.segments()).primaryKeyLength(PRIMARY_KEY_BYTES)
                    .secondaryKeyLength(SECONDARY_KEY_BYTES).build())) {
                throw new IllegalStateException("key-value table " + table + " already exists");
            }
            run.createdTable(table);
        }
        AtomicReference<String> failure = new AtomicReference<>();
        Map<String, Object> kvt = new LinkedHashMap<>();
        kvt.put("partitions", o.segments());
        kvt.put("concurrency", o.kvtConcurrency());
        kvt.put("entries", entries);
        kvt.put("size", size);
        kvt.put("batch", batch);
        kvt.put("batches", batches);
        long wrong = 0;
        long failed = 0;
        boolean complete = true;
        try (KeyValueTableFactory factory = KeyValueTableFactory.withScope(o.scope(), run.config);
             KeyValueTable t = factory.forKeyValueTable(table, KeyValueTableClientConfiguration.builder().build())) {
            List<Map<String, Object>> phases = new ArrayList<>();
            run.phase("bench --kvt: " + entries + " puts");
            phases.add(phase(run, "put", entries, 1, failure, i -> {
                await(run, t.update(new Put(key(i, 0), value(i, 0, size))));
                return true;
            }));
            run.phase("bench --kvt: " + entries + " gets");
            phases.add(phase(run, "get", entries, 1, failure, i -> holds(await(run, t.get(key(i, 0))), i, 0, size)));
            run.phase("bench --kvt: " + batches + " batches of " + batch + " puts");
            phases.add(phase(run, "batch_put", batches, batch, failure, b -> {
                long primary = BATCH_PRIMARY_BASE + b;
                List<TableModification> puts = new ArrayList<>(batch);
                for (int j = 0; j < batch; j++) {
                    puts.add(new Put(key(primary, j), value(primary, j, size)));
                }
                await(run, t.update(puts));
                return true;
            }));
            run.phase("bench --kvt: " + batches + " getAll of " + batch + " keys");
            phases.add(phase(run, "batch_get", batches, batch, failure, b -> {
                long primary = BATCH_PRIMARY_BASE + b;
                List<TableKey> keys = new ArrayList<>(batch);
                for (int j = 0; j < batch; j++) {
                    keys.add(key(primary, j));
                }
                List<TableEntry> read = await(run, t.getAll(keys));
                boolean right = read.size() == batch;
                for (int j = 0; right && j < batch; j++) {
                    right = holds(read.get(j), primary, j, size);
                }
                return right;
            }));
            String[] names = {"put", "get", "batch_put", "batch_get"};
            int[] expected = {entries, entries, batches, batches};
            for (int p = 0; p < names.length; p++) {
                Map<String, Object> m = phases.get(p);
                kvt.put(names[p], m);
                wrong += (Long) m.get("wrong");
                failed += (Long) m.get("failed");
                complete &= ((Integer) m.get("ops")) == expected[p];
            }
        }
        report.put("kvt", kvt);
        boolean ok = failure.get() == null && wrong == 0 && complete;
        Map<String, Object> verify = new LinkedHashMap<>();
        verify.put("ok", ok);
        verify.put("wrong", wrong);
        verify.put("failed", failed);
        if (failure.get() != null) {
            verify.put("error", failure.get());
        } else if (!ok) {
            verify.put("error", wrong + " reads returned a missing or wrong value");
        }
        report.put("verify", verify);
        return ok;
    }

    private static Map<String, Object> phase(Run run, String name, int ops, int entriesPerOp,
                                             AtomicReference<String> failure, Op op) throws InterruptedException {
        int concurrency = Math.min(run.options.kvtConcurrency(), ops);
        long[] micros = new long[ops];
        AtomicInteger next = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        AtomicLong wrong = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean(failure.get() != null);
        ExecutorService callers = Executors.newFixedThreadPool(concurrency);
        long t0 = System.nanoTime();
        for (int c = 0; c < concurrency; c++) {
            callers.execute(() -> {
                for (int i = next.getAndIncrement(); i < ops && !stop.get(); i = next.getAndIncrement()) {
                    long t = System.nanoTime();
                    try {
                        if (!op.run(i)) {
                            wrong.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failed.incrementAndGet();
                        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                        failure.compareAndSet(null, name + " " + i + " failed: " + Part.describe(cause));
                        stop.set(true);
                    }
                    micros[done.getAndIncrement()] = (System.nanoTime() - t) / 1000;
                }
            });
        }
        callers.shutdown();
        if (!callers.awaitTermination(run.remainingNanos(), TimeUnit.NANOSECONDS)) {
            failure.compareAndSet(null, name + ": the callers did not finish in time");
            callers.shutdownNow();
        }
        long nanos = System.nanoTime() - t0;
        long[] sorted = Arrays.copyOf(micros, done.get());
        Arrays.sort(sorted);
        int n = sorted.length;
        double seconds = nanos / 1e9;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ops", n);
        m.put("entries", (long) n * entriesPerOp);
        m.put("ops_per_s", seconds == 0 ? 0 : Math.round(n / seconds));
        m.put("entries_per_s", seconds == 0 ? 0 : Math.round((long) n * entriesPerOp / seconds));
        m.put("p50_us", percentile(sorted, 0.50));
        m.put("p99_us", percentile(sorted, 0.99));
        m.put("max_us", n == 0 ? 0 : sorted[n - 1]);
        m.put("seconds", seconds);
        m.put("wrong", wrong.get());
        m.put("failed", failed.get());
        Driver.LOG.info("bench --kvt {}: {} ops, {} entries/s, p50 {} us, p99 {} us", name, n,
                m.get("entries_per_s"), m.get("p50_us"), m.get("p99_us"));
        return m;
    }

    private static TableKey key(long primary, int secondary) {
        return new TableKey(ByteBuffer.allocate(PRIMARY_KEY_BYTES).putLong(0, primary),
                ByteBuffer.allocate(SECONDARY_KEY_BYTES).putInt(0, secondary));
    }

    private static ByteBuffer value(long primary, int secondary, int size) {
        byte[] b = new byte[size];
        int base = (int) (primary * 31 + secondary * 17L);
        for (int j = 0; j < size; j++) {
            b[j] = (byte) (base + j);
        }
        return ByteBuffer.wrap(b);
    }

    private static boolean holds(TableEntry e, long primary, int secondary, int size) {
        if (e == null || e.getValue().remaining() != size) {
            return false;
        }
        ByteBuffer pk = e.getKey().getPrimaryKey();
        ByteBuffer sk = e.getKey().getSecondaryKey();
        if (pk.remaining() != PRIMARY_KEY_BYTES || pk.getLong(pk.position()) != primary
                || sk.remaining() != SECONDARY_KEY_BYTES || sk.getInt(sk.position()) != secondary) {
            return false;
        }
        ByteBuffer v = e.getValue();
        int p = v.position();
        int base = (int) (primary * 31 + secondary * 17L);
        for (int j = 0; j < size; j++) {
            if (v.get(p + j) != (byte) (base + j)) {
                return false;
            }
        }
        return true;
    }

    private static <T> T await(Run run, CompletableFuture<T> f) throws Exception {
        try {
            return f.get(run.remainingNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("no reply before the run's deadline", e);
        }
    }

    /** Nearest-rank percentile of sorted values. */
    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
