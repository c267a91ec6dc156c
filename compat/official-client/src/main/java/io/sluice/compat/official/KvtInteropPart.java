package io.sluice.compat.official;

import static io.sluice.compat.official.KvtPart.await;
import static io.sluice.compat.official.KvtPart.failsConditionally;
import static io.sluice.compat.official.KvtPart.text;
import static io.sluice.compat.official.KvtPart.value;

import java.nio.ByteBuffer;
import java.util.TreeMap;

import io.pravega.client.KeyValueTableFactory;
import io.pravega.client.tables.IteratorItem;
import io.pravega.client.tables.KeyValueTable;
import io.pravega.client.tables.KeyValueTableClientConfiguration;
import io.pravega.client.tables.Put;
import io.pravega.client.tables.TableEntry;
import io.pravega.client.tables.TableKey;
import io.pravega.client.tables.Version;
import io.pravega.common.util.AsyncIterator;

/**
 * Mode {@code kvt-interop}: a key-value table shared with another client, on an EXISTING table
 * {@code --scope}/{@code --stream} with 8-byte primary and 4-byte secondary keys (nothing created or deleted).
 * Key (i, j) is primary key i (a long) and secondary key j (an int), for i &lt; {@code --events}, j &lt;
 * {@value #SECONDARY}.
 * <ul>
 *   <li>{@code --role write}: the official client puts {@code "official:i:j"} under (i, j) and reports each
 *       version's text ({@code versions}: {@code "i:j" -> "segmentId:version"});</li>
 *   <li>{@code --role read}: it checks (i, j) hold {@code "sluice:i:j"}, reports the versions it read, iterates
 *       primary key 0 (expects {@value #SECONDARY} entries), then puts {@code "official-cond:0:0"} under (0, 0) on
 *       the version read ({@code conditional_version}) and once more on that now stale version, which must fail.</li>
 * </ul>
 */
final class KvtInteropPart {
    static final int SECONDARY = 3;

    private KvtInteropPart() {
    }

    static boolean run(Run run, Report report) {
        Options o = run.options;
        Part part = new Part("kvt-interop");
        report.put("kvt-interop", part);
        part.start();
        try {
            part.put("table", o.scope() + "/" + o.stream());
            part.put("role", o.role());
            try (KeyValueTableFactory factory = KeyValueTableFactory.withScope(o.scope(), run.config);
                 KeyValueTable kvt = factory.forKeyValueTable(o.stream(),
                         KeyValueTableClientConfiguration.builder().build())) {
                if (o.role().equals("write")) {
                    write(run, part, kvt);
                } else {
                    read(run, part, kvt);
                }
            }
        } catch (Throwable t) {
            part.error(t);
        } finally {
            part.finish();
        }
        return part.ok();
    }

    private static void write(Run run, Part part, KeyValueTable kvt) throws Exception {
        run.phase("kvt-interop: writing");
        TreeMap<String, String> versions = new TreeMap<>();
        for (int i = 0; i < run.options.events(); i++) {
            for (int j = 0; j < SECONDARY; j++) {
                Version v = await(run, kvt.update(new Put(key(i, j), value("official:" + i + ":" + j))));
                versions.put(i + ":" + j, v.toString());
            }
        }
        part.put("versions", versions);
    }

    private static void read(Run run, Part part, KeyValueTable kvt) throws Exception {
        run.phase("kvt-interop: reading");
        TreeMap<String, String> versions = new TreeMap<>();
        int wrong = 0;
        for (int i = 0; i < run.options.events(); i++) {
            for (int j = 0; j < SECONDARY; j++) {
                TableEntry e = await(run, kvt.get(key(i, j)));
                if (e == null || !text(e.getValue()).equals("sluice:" + i + ":" + j)) {
                    wrong++;
                } else {
                    versions.put(i + ":" + j, e.getVersion().toString());
                }
            }
        }
        part.put("versions", versions);
        part.check(wrong == 0, wrong + " keys missing or with a wrong value");

        run.phase("kvt-interop: iterating primary key 0");
        int count = 0;
        AsyncIterator<IteratorItem<TableEntry>> it = kvt.iterator().maxIterationSize(2)
                .forPrimaryKey(ByteBuffer.allocate(8).putLong(0, 0)).entries();
        for (IteratorItem<TableEntry> item = await(run, it.getNext()); item != null; item = await(run, it.getNext())) {
            count += item.getItems().size();
        }
        part.checkEqual(SECONDARY, count, "entries of primary key 0");

        run.phase("kvt-interop: conditional updates");
        TableEntry e00 = await(run, kvt.get(key(0, 0)));
        part.check(e00 != null, "(0, 0) is missing");
        if (e00 != null) {
            Version v = await(run, kvt.update(new Put(key(0, 0), value("official-cond:0:0"), e00.getVersion())));
            part.put("conditional_version", v.toString());
            part.check(failsConditionally(run, kvt.update(new Put(key(0, 0), value("stale"), e00.getVersion()))),
                    "a put with a stale version succeeded");
        }
    }

    static TableKey key(long i, int j) {
        return new TableKey(ByteBuffer.allocate(8).putLong(0, i), ByteBuffer.allocate(4).putInt(0, j));
    }
}
