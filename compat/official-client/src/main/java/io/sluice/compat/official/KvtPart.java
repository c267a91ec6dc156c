package io.sluice.compat.official;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.pravega.client.KeyValueTableFactory;
import io.pravega.client.admin.KeyValueTableManager;
import io.pravega.client.tables.ConditionalTableUpdateException;
import io.pravega.client.tables.Insert;
import io.pravega.client.tables.IteratorItem;
import io.pravega.client.tables.KeyValueTable;
import io.pravega.client.tables.KeyValueTableClientConfiguration;
import io.pravega.client.tables.KeyValueTableConfiguration;
import io.pravega.client.tables.Put;
import io.pravega.client.tables.Remove;
import io.pravega.client.tables.TableEntry;
import io.pravega.client.tables.TableKey;
import io.pravega.client.tables.Version;
import io.pravega.common.util.AsyncIterator;

/**
 * Part {@code kvt} of {@code verify}: a key-value table with {@value #PARTITIONS} partitions and a 4-byte primary key
 * (as in the golden capture); unconditional puts, gets, getAll, exists, conditional put (right and stale version),
 * insert (existing and new key), unconditional and conditional removes, and a full iteration of the entries left.
 */
final class KvtPart {
    static final int PARTITIONS = 2;
    static final int KEYS = 100;
    private static final int NEW_KEY = 1001;
    private static final int ABSENT_KEY = 1000;

    private KvtPart() {
    }

    static void run(Run run, Part part) throws Exception {
        Options o = run.options;
        String table = run.name("-kvt");
        part.put("table", o.scope() + "/" + table);
        part.put("partitions", PARTITIONS);
        part.put("keys", KEYS);
        run.phase("kvt: creating key-value table " + table);
        try (KeyValueTableManager manager = KeyValueTableManager.create(run.config)) {
            boolean created = manager.createKeyValueTable(o.scope(), table, KeyValueTableConfiguration.builder()
                    .partitionCount(PARTITIONS).primaryKeyLength(Integer.BYTES).secondaryKeyLength(0).build());
            if (!created) {
                throw new IllegalStateException("key-value table " + table + " already exists");
            }
            run.createdTable(table);
        }
        try (KeyValueTableFactory factory = KeyValueTableFactory.withScope(o.scope(), run.config);
             KeyValueTable kvt = factory.forKeyValueTable(table, KeyValueTableClientConfiguration.builder().build())) {
            exercise(run, part, kvt);
        }
    }

    private static void exercise(Run run, Part part, KeyValueTable kvt) throws Exception {
        run.phase("kvt: put/get");
        Map<Integer, Version> versions = new HashMap<>();
        long t0 = System.nanoTime();
        for (int k = 0; k < KEYS; k++) {
            versions.put(k, await(run, kvt.update(new Put(key(k), value("value-" + k)))));
        }
        part.put("put_ms", (System.nanoTime() - t0) / 1_000_000);
        long t1 = System.nanoTime();
        int wrong = 0;
        for (int k = 0; k < KEYS; k++) {
            TableEntry e = await(run, kvt.get(key(k)));
            if (e == null || !text(e.getValue()).equals("value-" + k) || !e.getVersion().equals(versions.get(k))
                    || !e.getKey().getPrimaryKey().equals(key(k).getPrimaryKey())) {
                wrong++;
            }
        }
        part.put("get_ms", (System.nanoTime() - t1) / 1_000_000);
        part.check(wrong == 0, wrong + " of " + KEYS + " gets returned a wrong key, value or version");

        List<TableKey> some = List.of(key(3), key(ABSENT_KEY), key(42));
        List<TableEntry> all = await(run, kvt.getAll(some));
        part.check(all.size() == 3 && all.get(0) != null && text(all.get(0).getValue()).equals("value-3")
                        && all.get(1) == null && all.get(2) != null && text(all.get(2).getValue()).equals("value-42"),
                "getAll(3, absent, 42) returned " + describe(all));
        part.check(await(run, kvt.exists(key(5))), "exists(5) is false after a put");
        part.check(!await(run, kvt.exists(key(ABSENT_KEY))), "exists(absent key) is true");

        run.phase("kvt: conditional updates");
        Version v0 = versions.get(0);
        Version v0b = await(run, kvt.update(new Put(key(0), value("value-0b"), v0)));
        part.check(!v0b.equals(v0), "a conditional put did not change the version");
        part.check(failsConditionally(run, kvt.update(new Put(key(0), value("stale"), v0))),
                "a put with a stale version succeeded");
        part.check(failsConditionally(run, kvt.update(new Insert(key(1), value("again")))),
                "an insert of an existing key succeeded");
        await(run, kvt.update(new Insert(key(NEW_KEY), value("new"))));
        TableEntry e0 = await(run, kvt.get(key(0)));
        part.check(e0 != null && text(e0.getValue()).equals("value-0b"),
                "after the conditional put, get(0) returned " + describe(e0));

        run.phase("kvt: removes and iteration");
        for (int k = KEYS / 2; k < KEYS; k++) {
            await(run, kvt.update(new Remove(key(k))));
        }
        part.check(failsConditionally(run, kvt.update(new Remove(key(0), v0))),
                "a remove with a stale version succeeded");
        await(run, kvt.update(new Remove(key(0), v0b)));
        part.check(await(run, kvt.get(key(60))) == null, "get(60) found a removed key");
        part.check(await(run, kvt.get(key(0))) == null, "get(0) found a conditionally removed key");
        part.check(!await(run, kvt.exists(key(99))), "exists(99) is true after its removal");
        // removing a key that is not there is not an error
        await(run, kvt.update(new Remove(key(ABSENT_KEY))));

        long t2 = System.nanoTime();
        Set<Integer> expected = new TreeSet<>();
        for (int k = 1; k < KEYS / 2; k++) {
            expected.add(k);
        }
        expected.add(NEW_KEY);
        Set<Integer> iterated = new TreeSet<>();
        int iterationWrong = 0;
        AsyncIterator<IteratorItem<TableEntry>> it = kvt.iterator().maxIterationSize(10).all().entries();
        for (IteratorItem<TableEntry> item = await(run, it.getNext()); item != null; item = await(run, it.getNext())) {
            for (TableEntry e : item.getItems()) {
                int k = e.getKey().getPrimaryKey().getInt(e.getKey().getPrimaryKey().position());
                if (!iterated.add(k)) {
                    iterationWrong++;
                }
                String want = k == NEW_KEY ? "new" : "value-" + k;
                if (!text(e.getValue()).equals(want)) {
                    iterationWrong++;
                }
            }
        }
        part.put("iterate_ms", (System.nanoTime() - t2) / 1_000_000);
        part.put("iterated", iterated.size());
        part.checkEqual(expected, iterated, "keys found by iterating the table");
        part.check(iterationWrong == 0, iterationWrong + " iterated entries duplicated or with a wrong value");
    }

    private static TableKey key(int k) {
        return new TableKey(ByteBuffer.allocate(Integer.BYTES).putInt(0, k));
    }

    static ByteBuffer value(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static String text(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] bytes = new byte[d.remaining()];
        d.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static String describe(TableEntry e) {
        return e == null ? "null" : "'" + text(e.getValue()) + "' (version " + e.getVersion() + ")";
    }

    private static String describe(List<TableEntry> entries) {
        List<String> out = new ArrayList<>();
        for (TableEntry e : entries) {
            out.add(describe(e));
        }
        return out.toString();
    }

    /** @return true if the update failed with a {@link ConditionalTableUpdateException} */
    static boolean failsConditionally(Run run, CompletableFuture<Version> update) throws Exception {
        try {
            update.get(run.remainingNanos(), TimeUnit.NANOSECONDS);
            return false;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            while (cause != null && !(cause instanceof ConditionalTableUpdateException)) {
                cause = cause.getCause();
            }
            if (cause == null) {
                throw e;
            }
            return true;
        }
    }

    static <T> T await(Run run, CompletableFuture<T> f) throws Exception {
        return f.get(run.remainingNanos(), TimeUnit.NANOSECONDS);
    }
}
