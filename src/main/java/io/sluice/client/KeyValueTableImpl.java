package io.sluice.client;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

import io.sluice.auth.AccessOperation;
import io.sluice.common.KeyHash;
import io.sluice.common.Threads;
import io.sluice.controller.ControllerClient;
import io.sluice.controller.StreamSegments;
import io.sluice.errors.BadKeyVersionException;
import io.sluice.segment.DelegationTokenProvider;
import io.sluice.segment.SegmentCalls;
import io.sluice.segment.TableSegmentClient;
import io.sluice.segment.TableSegmentEntry;
import io.sluice.segment.TableSegmentKey;
import io.sluice.segment.TableSegmentPage;
import io.sluice.stream.Names;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.table.Insert;
import io.sluice.table.KeyValueTable;
import io.sluice.table.KeyValueTableConfiguration;
import io.sluice.table.KeyValueTableIterator;
import io.sluice.table.Put;
import io.sluice.table.Remove;
import io.sluice.table.TableEntry;
import io.sluice.table.TableKey;
import io.sluice.table.TableModification;
import io.sluice.table.Version;

/**
 * {@link KeyValueTable} on the table's partitions, one table segment each. The partitions are read from the controller
 * once (a key-value table never scales). A key's partition is the one whose key range holds the primary key's hash
 * ({@link KeyHash#tableKey}, as Pravega's client computes it); the key bytes in the segment are primary ‖ secondary.
 */
final class KeyValueTableImpl implements KeyValueTable {
    /** One partition: its segment id, upper key-range bound and table-segment client. */
    private record Partition(long segmentId, double high, TableSegmentClient client) {
    }

    private final String scope;
    private final String name;
    private final KeyValueTableConfiguration config;
    private final List<Partition> partitions;

    KeyValueTableImpl(String scope, String name, ControllerClient controller, SegmentCalls calls) {
        this.scope = Names.validateName("scope", scope);
        this.name = Names.validateKeyValueTable(name);
        this.config = controller.keyValueTableConfiguration(scope, name);
        StreamSegments segments = controller.keyValueTableSegments(scope, name);
        DelegationTokenProvider tokens = new DelegationTokenProvider(scope, name, AccessOperation.READ_WRITE,
                () -> controller.keyValueTableSegments(scope, name).delegationToken());
        tokens.offer(segments.delegationToken());
        List<Partition> list = new ArrayList<>();
        for (SegmentWithRange r : segments.ranges()) {
            Segment s = r.segment();
            // a table's partitions are the segments of its stream "<name>_kvtable"
            String qualified = new Segment(scope, name + "_kvtable", s.segmentId()).qualifiedName();
            list.add(new Partition(s.segmentId(), r.high(), new TableSegmentClient(calls, qualified, tokens)));
        }
        if (list.isEmpty()) {
            throw new IllegalStateException("controller returned no partitions for key-value table " + scope + "/"
                    + name);
        }
        this.partitions = List.copyOf(list);
    }

    @Override
    public String scope() {
        return scope;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public KeyValueTableConfiguration configuration() {
        return config;
    }

    // ---------------------------------------------------------------- updates

    @Override
    public Version update(TableModification modification) {
        Objects.requireNonNull(modification, "modification");
        return update(List.of(modification)).getFirst();
    }

    @Override
    public List<Version> update(List<? extends TableModification> modifications) {
        Objects.requireNonNull(modifications, "modifications");
        if (modifications.isEmpty()) {
            return List.of();
        }
        ByteBuffer primary = null;
        int removals = 0;
        for (int i = 0; i < modifications.size(); i++) {
            TableModification m = Objects.requireNonNull(modifications.get(i), "modification " + i);
            checkKey(m.key(), "modification " + i);
            if (primary == null) {
                primary = m.key().primaryKey();
            } else if (!primary.equals(m.key().primaryKey())) {
                throw new IllegalArgumentException("an atomic update of key-value table " + this + " needs one primary "
                        + "key: modification " + i + " has " + m.key() + ", modification 0 " + modifications.get(0)
                        .key() + " (update keys with different primary keys separately)");
            }
            if (m instanceof Remove) {
                removals++;
            }
        }
        if (removals != 0 && removals != modifications.size()) {
            throw new IllegalArgumentException("an atomic update of key-value table " + this + " cannot mix removals "
                    + "with inserts and puts: " + removals + " of " + modifications.size() + " are removals");
        }
        Partition p = partitionOf(primary);
        if (removals != 0) {
            List<TableSegmentKey> keys = new ArrayList<>(modifications.size());
            for (TableModification m : modifications) {
                Remove r = (Remove) m;
                ByteBuffer key = keyBytes(r.key());
                keys.add(r.version() == null ? TableSegmentKey.unversioned(key)
                        : TableSegmentKey.versioned(key, segmentVersion(p, r.version(), r.key())));
            }
            p.client().remove(keys);
            return Collections.nCopies(keys.size(), null);
        }
        List<TableSegmentEntry> entries = new ArrayList<>(modifications.size());
        for (TableModification m : modifications) {
            ByteBuffer key = keyBytes(m.key());
            entries.add(switch (m) {
                case Insert ins -> TableSegmentEntry.notExists(key, ins.value());
                case Put put -> put.version() == null ? TableSegmentEntry.unversioned(key, put.value())
                        : TableSegmentEntry.versioned(key, put.value(), segmentVersion(p, put.version(), put.key()));
                case Remove r -> throw new AssertionError("removals were handled above: " + r);
            });
        }
        List<Long> versions = p.client().put(entries);
        List<Version> out = new ArrayList<>(versions.size());
        versions.forEach(v -> out.add(new Version(p.segmentId(), v)));
        return out;
    }

    // ---------------------------------------------------------------- reads

    @Override
    public TableEntry get(TableKey key) {
        Objects.requireNonNull(key, "key");
        return getAll(List.of(key)).getFirst();
    }

    @Override
    public List<TableEntry> getAll(List<TableKey> keys) {
        Objects.requireNonNull(keys, "keys");
        Map<Partition, List<Integer>> byPartition = new LinkedHashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            TableKey k = Objects.requireNonNull(keys.get(i), "key " + i);
            checkKey(k, "key " + i);
            byPartition.computeIfAbsent(partitionOf(k.primaryKey()), x -> new ArrayList<>()).add(i);
        }
        // the partitions' reads (of at most MAX_BATCH_SIZE keys each) go out at once, as Pravega's client sends them
        TableEntry[] out = new TableEntry[keys.size()];
        List<Supplier<Void>> reads = new ArrayList<>();
        for (Map.Entry<Partition, List<Integer>> e : byPartition.entrySet()) {
            Partition p = e.getKey();
            List<Integer> indexes = e.getValue();
            for (int from = 0; from < indexes.size(); from += TableSegmentClient.MAX_BATCH_SIZE) {
                List<Integer> slice = indexes.subList(from, Math.min(indexes.size(),
                        from + TableSegmentClient.MAX_BATCH_SIZE));
                reads.add(() -> {
                    List<ByteBuffer> wire = slice.stream().map(i -> keyBytes(keys.get(i))).toList();
                    List<Optional<TableSegmentEntry>> read = p.client().get(wire);
                    for (int j = 0; j < slice.size(); j++) {
                        out[slice.get(j)] = read.get(j).map(s -> entry(p, s)).orElse(null);
                    }
                    return null;
                });
            }
        }
        Threads.all("sluice-kvt-read-", reads);
        return Collections.unmodifiableList(Arrays.asList(out));
    }

    @Override
    public boolean exists(TableKey key) {
        return get(key) != null;
    }

    @Override
    public KeyValueTableIterator iterator() {
        return new IteratorBuilder();
    }

    @Override
    public void close() {
        // the connections are the client's
    }

    @Override
    public String toString() {
        return scope + "/" + name;
    }

    // ---------------------------------------------------------------- helpers

    private void checkKey(TableKey key, String what) {
        Objects.requireNonNull(key, what);
        if (key.primaryKey().remaining() != config.primaryKeyLength()) {
            throw new IllegalArgumentException(what + " of key-value table " + this + " has a primary key of "
                    + key.primaryKey().remaining() + " bytes: the table's are " + config.primaryKeyLength());
        }
        if (key.secondaryKey().remaining() != config.secondaryKeyLength()) {
            throw new IllegalArgumentException(what + " of key-value table " + this + " has a secondary key of "
                    + key.secondaryKey().remaining() + " bytes: the table's are " + config.secondaryKeyLength());
        }
    }

    /** The partition whose key range holds the primary key's hash: the first with an upper bound at or above it. */
    private Partition partitionOf(ByteBuffer primaryKey) {
        double hash = KeyHash.tableKey(primaryKey);
        for (Partition p : partitions) {
            if (p.high() >= hash) {
                return p;
            }
        }
        return partitions.getLast();
    }

    private static ByteBuffer keyBytes(TableKey key) {
        ByteBuffer pk = key.primaryKey();
        ByteBuffer sk = key.secondaryKey();
        ByteBuffer b = ByteBuffer.allocate(pk.remaining() + sk.remaining());
        b.put(pk).put(sk).flip();
        return b;
    }

    private TableKey tableKey(ByteBuffer bytes) {
        ByteBuffer b = bytes.duplicate();
        int start = b.position();
        ByteBuffer pk = b.duplicate().limit(start + config.primaryKeyLength()).slice();
        ByteBuffer sk = b.position(start + config.primaryKeyLength()).slice();
        return new TableKey(pk, sk);
    }

    private TableEntry entry(Partition p, TableSegmentEntry e) {
        return new TableEntry(tableKey(e.key()), e.value(), new Version(p.segmentId(), e.version()));
    }

    private long segmentVersion(Partition p, Version v, TableKey key) {
        if (v.segmentId() != p.segmentId()) {
            throw new BadKeyVersionException("version " + v + " names segment " + v.segmentId() + " but key " + key
                    + " of key-value table " + this + " is in segment " + p.segmentId() + ": nothing was changed");
        }
        return v.segmentVersion();
    }

    private static ByteBuffer filled(ByteBuffer prefix, int length, byte fill, String what) {
        ByteBuffer b = ByteBuffer.allocate(length);
        if (prefix != null) {
            if (prefix.remaining() > length) {
                throw new IllegalArgumentException(what + " is " + prefix.remaining() + " bytes: at most " + length
                        + " allowed");
            }
            b.put(prefix.duplicate());
        }
        while (b.hasRemaining()) {
            b.put(fill);
        }
        return b.flip();
    }

    private static ByteBuffer concat(ByteBuffer a, ByteBuffer b) {
        return ByteBuffer.allocate(a.remaining() + b.remaining()).put(a.duplicate()).put(b.duplicate()).flip();
    }

    private static void checkLength(ByteBuffer b, int length, String what) {
        if (b != null && b.remaining() != length) {
            throw new IllegalArgumentException(what + " is " + b.remaining() + " bytes: the table's are " + length);
        }
    }

    /** A range of whole keys in some partitions. */
    private record Range(List<Partition> partitions, ByteBuffer from, ByteBuffer to) {
    }

    private final class IteratorBuilder implements KeyValueTableIterator {
        private int pageSize = DEFAULT_MAX_ITERATION_SIZE;

        @Override
        public KeyValueTableIterator maxIterationSize(int size) {
            if (size < 1) {
                throw new IllegalArgumentException("maxIterationSize must be at least 1: " + size);
            }
            this.pageSize = size;
            return this;
        }

        @Override
        public Selection forPrimaryKey(ByteBuffer primaryKey) {
            return forPrimaryKey(primaryKey, null, null);
        }

        @Override
        public Selection forPrimaryKey(ByteBuffer primaryKey, ByteBuffer fromSecondaryKey, ByteBuffer toSecondaryKey) {
            Objects.requireNonNull(primaryKey, "primaryKey");
            int sk = config.secondaryKeyLength();
            checkLength(primaryKey, config.primaryKeyLength(), "primary key");
            checkLength(fromSecondaryKey, sk, "fromSecondaryKey");
            checkLength(toSecondaryKey, sk, "toSecondaryKey");
            ByteBuffer from = concat(primaryKey, filled(fromSecondaryKey, sk, (byte) 0, "fromSecondaryKey"));
            ByteBuffer to = concat(primaryKey, filled(toSecondaryKey, sk, (byte) 0xFF, "toSecondaryKey"));
            return selection(new Range(List.of(partitionOf(primaryKey)), from, to));
        }

        @Override
        public Selection forPrefix(ByteBuffer primaryKeyPrefix) {
            Objects.requireNonNull(primaryKeyPrefix, "primaryKeyPrefix");
            int total = config.totalKeyLength();
            if (primaryKeyPrefix.remaining() > config.primaryKeyLength()) {
                throw new IllegalArgumentException("primaryKeyPrefix is " + primaryKeyPrefix.remaining()
                        + " bytes: a primary key of table " + KeyValueTableImpl.this + " is "
                        + config.primaryKeyLength());
            }
            return selection(new Range(partitions, filled(primaryKeyPrefix, total, (byte) 0, "primaryKeyPrefix"),
                    filled(primaryKeyPrefix, total, (byte) 0xFF, "primaryKeyPrefix")));
        }

        @Override
        public Selection forRange(ByteBuffer fromPrimaryKey, ByteBuffer toPrimaryKey) {
            int pk = config.primaryKeyLength();
            int total = config.totalKeyLength();
            checkLength(fromPrimaryKey, pk, "fromPrimaryKey");
            checkLength(toPrimaryKey, pk, "toPrimaryKey");
            ByteBuffer from = filled(fromPrimaryKey, total, (byte) 0, "fromPrimaryKey");
            ByteBuffer to = filled(toPrimaryKey, total, (byte) 0xFF, "toPrimaryKey");
            if (Arrays.compareUnsigned(bytes(from), bytes(to)) > 0) {
                throw new IllegalArgumentException("fromPrimaryKey is above toPrimaryKey in key-value table "
                        + KeyValueTableImpl.this);
            }
            return selection(new Range(partitions, from, to));
        }

        private Selection selection(Range range) {
            int size = pageSize;
            return new Selection() {
                @Override
                public Iterator<TableKey> keys() {
                    return new Flattening<>(range, p -> p.client().keyPages(range.from(), range.to(), size),
                            (p, k) -> tableKey(k.key()));
                }

                @Override
                public Iterator<TableEntry> entries() {
                    return new Flattening<>(range, p -> p.client().entryPages(range.from(), range.to(), size),
                            KeyValueTableImpl.this::entry);
                }
            };
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    /** Walks the partitions of a range one after another, page by page, item by item. Not thread-safe. */
    private static final class Flattening<S, T> implements Iterator<T> {
        private final Iterator<Partition> partitions;
        private final Function<Partition, Iterator<TableSegmentPage<S>>> pages;
        private final BiFunction<Partition, S, T> convert;
        private Partition partition;
        private Iterator<TableSegmentPage<S>> pageIterator = Collections.emptyIterator();
        private Iterator<S> items = Collections.emptyIterator();

        Flattening(Range range, Function<Partition, Iterator<TableSegmentPage<S>>> pages,
                   BiFunction<Partition, S, T> convert) {
            this.partitions = range.partitions().iterator();
            this.pages = pages;
            this.convert = convert;
        }

        @Override
        public boolean hasNext() {
            while (!items.hasNext()) {
                if (pageIterator.hasNext()) {
                    items = pageIterator.next().items().iterator();
                } else if (partitions.hasNext()) {
                    partition = partitions.next();
                    pageIterator = pages.apply(partition);
                } else {
                    return false;
                }
            }
            return true;
        }

        @Override
        public T next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return convert.apply(partition, items.next());
        }
    }
}
