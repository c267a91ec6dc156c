package io.sluice.client;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import io.sluice.auth.AccessOperation;
import io.sluice.common.Deadline;
import io.sluice.controller.ControllerClient;
import io.sluice.errors.BadKeyVersionException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.NoSuchKeyException;
import io.sluice.errors.NoSuchScopeException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.segment.DelegationTokenProvider;
import io.sluice.segment.SegmentCalls;
import io.sluice.segment.TableSegmentChanges;
import io.sluice.segment.TableSegmentClient;
import io.sluice.segment.TableSegmentEntry;
import io.sluice.state.SynchronizerConfig;
import io.sluice.stream.Names;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.Serializer;
import io.sluice.table.TableSynchronizer;

/**
 * {@link TableSynchronizer} on a table segment {@code scope/_SYNC<name>/0.#epoch.0} (a segment name the controller
 * locates like a stream's first segment; no stream of that name exists).
 *
 * <h2>What the table holds</h2>
 * <ul>
 *   <li>a user key is {@code [0x01][key bytes]}, with the value {@code [0x01][value bytes]}, or {@code [0x00]} for a
 *       tombstone (the key was removed);</li>
 *   <li>a marker key is {@code [0x00][16 bytes: a synchronizer's random id]} with the value {@code [i64 sequence]}:
 *       the sequence number of that synchronizer's last write, written unconditionally in every batch it writes.</li>
 * </ul>
 *
 * <p>The local copy is an immutable {@link Local} replaced under {@link #lock}, never held across I/O. Writes of one
 * instance are serialised by {@link #writePermit} (a semaphore, not a lock: it is held across the requests), which
 * makes the marker's sequence number say which write of this instance was applied last.
 */
final class TableSynchronizerImpl<K, V> implements TableSynchronizer<K, V> {
    /** Largest serialized key: the table's limit less the prefix byte. */
    static final int MAX_KEY_BYTES = TableSegmentClient.MAX_KEY_LENGTH - 1;
    private static final byte USER_KEY = 1;
    private static final byte MARKER_KEY = 0;
    private static final byte LIVE = 1;
    private static final byte TOMBSTONE = 0;
    private static final int DELTA_ENTRIES = 1000;

    /**
     * One key as the local copy knows it.
     *
     * @param key the user's key, null for a marker key
     * @param value the user's value, null for a tombstone (or a marker key)
     * @param stored the value's bytes as stored in the table
     * @param version the entry's version
     */
    private record Item<K, V>(K key, V value, ByteBuffer stored, long version) {
    }

    /**
     * The local copy: every key read, by its stored bytes, and the user's view of the live ones.
     *
     * @param position where the next delta read starts
     */
    private record Local<K, V>(long position, Map<ByteBuffer, Item<K, V>> items, Map<K, V> view) {
    }

    /** What one attempt of a write wants written, and what the call returns if it is applied. */
    private record Attempt<R>(List<TableSegmentEntry> entries, R result) {
    }

    private final String scope;
    private final String name;
    private final TableSegmentClient table;
    private final Serializer<K> keySerializer;
    private final Serializer<V> valueSerializer;
    private final ByteBuffer markerKey;
    private final Duration updateTimeout;
    private final Semaphore writePermit = new Semaphore(1);
    /** Guarded by writePermit. */
    private long sequence;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by lock. */
    private Local<K, V> local = new Local<>(0, Map.of(), Map.of());

    TableSynchronizerImpl(String scope, String name, TableSegmentClient table, Serializer<K> keySerializer,
                          Serializer<V> valueSerializer, SynchronizerConfig config) {
        this.scope = scope;
        this.name = name;
        this.table = table;
        this.keySerializer = keySerializer;
        this.valueSerializer = valueSerializer;
        this.updateTimeout = config.updateTimeout();
        UUID id = UUID.randomUUID();
        this.markerKey = ByteBuffer.allocate(1 + 16).put(MARKER_KEY).putLong(id.getMostSignificantBits())
                .putLong(id.getLeastSignificantBits()).flip().asReadOnlyBuffer();
    }

    /**
     * Opens (creating it if needed) the table synchronizer {@code name} of {@code scope} and reads it. Blocks.
     *
     * @throws NoSuchScopeException if the scope does not exist
     * @throws IllegalArgumentException if a name is invalid
     */
    static <K, V> TableSynchronizerImpl<K, V> open(String scope, String name, Serializer<K> keySerializer,
                                                   Serializer<V> valueSerializer, SynchronizerConfig config,
                                                   ControllerClient controller, SegmentCalls calls) {
        Names.validateName("scope", scope);
        Names.validateUserStream(Objects.requireNonNull(name, "name"));
        Objects.requireNonNull(keySerializer, "keySerializer");
        Objects.requireNonNull(valueSerializer, "valueSerializer");
        Objects.requireNonNull(config, "config");
        if (!controller.scopeExists(scope)) {
            throw new NoSuchScopeException("scope '" + scope + "' does not exist: create it before table synchronizer '"
                    + name + "'");
        }
        ScopedStream resource = ScopedStream.of(scope, tableStreamName(name));
        DelegationTokenProvider tokens = DelegationTokenProvider.fromController(controller, resource,
                AccessOperation.READ_WRITE);
        TableSegmentClient table = new TableSegmentClient(calls, Segment.of(resource, 0, 0).qualifiedName(), tokens);
        table.create();
        TableSynchronizerImpl<K, V> sync = new TableSynchronizerImpl<>(scope, name, table, keySerializer,
                valueSerializer, config);
        sync.fetchUpdates();
        return sync;
    }

    /** @return the name of the (never created) stream whose first segment name the table segment takes */
    static String tableStreamName(String name) {
        return "_SYNC" + name;
    }

    @Override
    public String scope() {
        return scope;
    }

    @Override
    public String name() {
        return name;
    }

    private Local<K, V> local() {
        lock.lock();
        try {
            return local;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Map<K, V> snapshot() {
        return local().view();
    }

    @Override
    public Optional<V> get(K key) {
        Objects.requireNonNull(key, "key");
        return Optional.ofNullable(local().view().get(key));
    }

    // ---------------------------------------------------------------- reading

    @Override
    public void fetchUpdates() {
        long from = local().position();
        long at = from;
        List<TableSegmentChanges> batches = new ArrayList<>();
        while (true) {
            TableSegmentClient.DeltaRead d = table.readDelta(at, DELTA_ENTRIES);
            TableSegmentChanges c = d.changes();
            if (c.reset()) {
                batches.clear();
            }
            batches.add(c);
            boolean progressed = c.position() > at;
            at = c.position();
            if (d.reachedEnd() || !progressed) {
                break;
            }
        }
        boolean reset = batches.get(0).reset();
        List<Item<K, V>> items = new ArrayList<>();
        List<ByteBuffer> keys = new ArrayList<>();
        for (TableSegmentChanges c : batches) {
            for (TableSegmentEntry e : c.entries()) {
                keys.add(e.key());
                items.add(decode(e));
            }
        }
        merge(keys, items, at, reset);
    }

    /** Applies decoded entries under the lock: a key's newest version wins, whatever the order of arrival. */
    private void merge(List<ByteBuffer> keys, List<Item<K, V>> items, long position, boolean reset) {
        lock.lock();
        try {
            Map<ByteBuffer, Item<K, V>> next = new HashMap<>(reset ? Map.of() : local.items());
            boolean changed = reset;
            for (int i = 0; i < keys.size(); i++) {
                Item<K, V> known = next.get(keys.get(i));
                if (known == null || known.version() < items.get(i).version()) {
                    next.put(keys.get(i), items.get(i));
                    changed = true;
                }
            }
            long at = reset ? position : Math.max(position, local.position());
            if (changed) {
                Map<K, V> view = new HashMap<>();
                for (Item<K, V> item : next.values()) {
                    if (item.key() != null && item.value() != null) {
                        view.put(item.key(), item.value());
                    }
                }
                local = new Local<>(at, Collections.unmodifiableMap(next), Collections.unmodifiableMap(view));
            } else if (at != local.position()) {
                local = new Local<>(at, local.items(), local.view());
            }
        } finally {
            lock.unlock();
        }
    }

    private Item<K, V> decode(TableSegmentEntry e) {
        ByteBuffer k = e.key();
        ByteBuffer v = e.value();
        if (k.remaining() == 0) {
            throw malformed("an empty key", e);
        }
        byte kind = k.get(k.position());
        if (kind == MARKER_KEY) {
            return new Item<>(null, null, v, e.version());
        }
        if (kind != USER_KEY || v.remaining() == 0) {
            throw malformed("a key of kind " + kind + " or an empty value", e);
        }
        K key = keySerializer.deserialize(k.slice(k.position() + 1, k.remaining() - 1).asReadOnlyBuffer());
        byte state = v.get(v.position());
        if (state == TOMBSTONE) {
            return new Item<>(key, null, v, e.version());
        }
        if (state != LIVE) {
            throw malformed("a value of kind " + state, e);
        }
        V value = valueSerializer.deserialize(v.slice(v.position() + 1, v.remaining() - 1).asReadOnlyBuffer());
        return new Item<>(Objects.requireNonNull(key, "the key serializer returned null"),
                Objects.requireNonNull(value, "the value serializer returned null"), v, e.version());
    }

    private ProtocolException malformed(String what, TableSegmentEntry e) {
        return new ProtocolException("table segment " + table.segment() + " holds " + what + " (" + e + "): it is not"
                + " a table synchronizer's");
    }

    // ---------------------------------------------------------------- writing

    @Override
    public Map<K, V> update(Function<? super Map<K, V>, ? extends Map<K, V>> fn) {
        Objects.requireNonNull(fn, "fn");
        write(seen -> {
            Tracking<K, V> view = new Tracking<>(seen.view());
            Map<K, V> out = fn.apply(view);
            return plan(seen, out == null ? Map.of() : out, view);
        });
        return snapshot();
    }

    @Override
    public boolean insert(K key, V value) {
        ByteBuffer k = encodeKey(key);
        ByteBuffer v = encodeValue(Objects.requireNonNull(value, "value"));
        return write(seen -> {
            Item<K, V> item = seen.items().get(k);
            if (item != null && item.value() != null) {
                return new Attempt<>(List.of(), false);
            }
            return new Attempt<>(List.of(TableSegmentEntry.versioned(k, v, versionOf(item))), true);
        });
    }

    @Override
    public boolean remove(K key) {
        ByteBuffer k = encodeKey(key);
        return write(seen -> {
            Item<K, V> item = seen.items().get(k);
            if (item == null || item.value() == null) {
                return new Attempt<>(List.of(), false);
            }
            return new Attempt<>(List.of(TableSegmentEntry.versioned(k, tombstone(), item.version())), true);
        });
    }

    /** The entries an update writes: its own, then the keys it read but did not write, on their versions. */
    private Attempt<Boolean> plan(Local<K, V> seen, Map<K, V> out, Tracking<K, V> view) {
        Map<ByteBuffer, TableSegmentEntry> batch = new LinkedHashMap<>();
        for (Map.Entry<K, V> e : out.entrySet()) {
            ByteBuffer k = encodeKey(e.getKey());
            Item<K, V> item = seen.items().get(k);
            boolean absent = item == null || item.value() == null;
            if (e.getValue() == null && absent) {
                continue; // removing an absent key changes nothing; if it was read, it is checked below
            }
            ByteBuffer v = e.getValue() == null ? tombstone() : encodeValue(e.getValue());
            batch.put(k, TableSegmentEntry.versioned(k, v, versionOf(item)));
        }
        if (batch.isEmpty()) {
            return new Attempt<>(List.of(), false);
        }
        Set<Object> read = view.readAll() ? new HashSet<>(seen.view().keySet()) : new HashSet<>();
        read.addAll(view.read());
        for (Object o : read) {
            ByteBuffer k;
            try {
                @SuppressWarnings("unchecked")
                K key = (K) o;
                k = encodeKey(key);
            } catch (ClassCastException e) {
                continue; // the function asked for a key of another type: it cannot be in the map
            }
            if (!batch.containsKey(k)) {
                Item<K, V> item = seen.items().get(k);
                batch.put(k, item == null ? TableSegmentEntry.notExists(k, tombstone())
                        : TableSegmentEntry.versioned(k, item.stored(), item.version()));
            }
        }
        if (batch.size() >= TableSegmentClient.MAX_BATCH_SIZE) {
            throw new IllegalArgumentException("an update of table synchronizer " + scope + "/" + name + " writes or"
                    + " reads " + batch.size() + " keys; at most " + (TableSegmentClient.MAX_BATCH_SIZE - 1)
                    + " fit in one atomic batch");
        }
        return new Attempt<>(List.copyOf(batch.values()), true);
    }

    /**
     * Writes what {@code planner} plans for the current local copy, with this instance's marker, until the write is
     * applied (or the planner has nothing to write), fetching again after every conflict.
     */
    private <R> R write(Function<Local<K, V>, Attempt<R>> planner) {
        Deadline deadline = Deadline.after(updateTimeout);
        try {
            writePermit.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while waiting for another write of table "
                    + "synchronizer " + scope + "/" + name, e);
        }
        try {
            long seq = ++sequence;
            R pending = null;
            for (int conflicts = 0; ; conflicts++) {
                fetchUpdates();
                Local<K, V> seen = local();
                if (conflicts > 0 && applied(seen, seq)) {
                    // the previous attempt was applied although its reply said otherwise (a resent request)
                    return pending;
                }
                Attempt<R> attempt = planner.apply(seen);
                if (attempt.entries().isEmpty()) {
                    return attempt.result();
                }
                List<TableSegmentEntry> entries = new ArrayList<>(attempt.entries());
                entries.add(TableSegmentEntry.unversioned(markerKey,
                        ByteBuffer.allocate(Long.BYTES).putLong(0, seq)));
                pending = attempt.result();
                try {
                    List<Long> versions = table.put(entries);
                    List<ByteBuffer> keys = new ArrayList<>(entries.size());
                    List<Item<K, V>> items = new ArrayList<>(entries.size());
                    for (int i = 0; i < entries.size(); i++) {
                        TableSegmentEntry e = entries.get(i);
                        keys.add(e.key());
                        items.add(decode(TableSegmentEntry.versioned(e.key(), e.value(), versions.get(i))));
                    }
                    merge(keys, items, 0, false);
                    return pending;
                } catch (BadKeyVersionException | NoSuchKeyException e) {
                    if (deadline.expired()) {
                        throw new DeadlineExceededException("a write to table synchronizer " + scope + "/" + name
                                + " lost " + (conflicts + 1) + " races to other writers within " + updateTimeout, e);
                    }
                }
            }
        } finally {
            writePermit.release();
        }
    }

    private boolean applied(Local<K, V> seen, long seq) {
        Item<K, V> marker = seen.items().get(markerKey);
        return marker != null && marker.stored().remaining() == Long.BYTES
                && marker.stored().getLong(marker.stored().position()) == seq;
    }

    private static long versionOf(Item<?, ?> item) {
        return item == null ? TableSegmentClient.NOT_EXISTS : item.version();
    }

    private ByteBuffer encodeKey(K key) {
        Objects.requireNonNull(key, "key");
        ByteBuffer b = Objects.requireNonNull(keySerializer.serialize(key), "the key serializer returned null");
        if (b.remaining() < 1 || b.remaining() > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key " + key + " of table synchronizer " + scope + "/" + name
                    + " serializes to " + b.remaining() + " bytes; 1 to " + MAX_KEY_BYTES + " are allowed");
        }
        return ByteBuffer.allocate(1 + b.remaining()).put(USER_KEY).put(b.duplicate()).flip().asReadOnlyBuffer();
    }

    private ByteBuffer encodeValue(V value) {
        ByteBuffer b = Objects.requireNonNull(valueSerializer.serialize(value), "the value serializer returned null");
        if (1 + b.remaining() > TableSegmentClient.MAX_VALUE_LENGTH) {
            throw new IllegalArgumentException("a value of table synchronizer " + scope + "/" + name + " serializes to "
                    + b.remaining() + " bytes; at most " + (TableSegmentClient.MAX_VALUE_LENGTH - 1) + " are allowed");
        }
        return ByteBuffer.allocate(1 + b.remaining()).put(LIVE).put(b.duplicate()).flip().asReadOnlyBuffer();
    }

    private static ByteBuffer tombstone() {
        return ByteBuffer.wrap(new byte[] {TOMBSTONE}).asReadOnlyBuffer();
    }

    @Override
    public void close() {
        // nothing is held between calls: each write and fetch is complete when it returns
    }

    @Override
    public String toString() {
        return "TableSynchronizer[" + scope + "/" + name + " on " + table.segment() + "]";
    }

    /**
     * The read-only map an update's function sees; it records which keys the function read. Confined to the thread
     * running the function.
     */
    private static final class Tracking<K, V> extends AbstractMap<K, V> {
        private final Map<K, V> map;
        private final Set<Object> read = new HashSet<>();
        private boolean readAll;

        Tracking(Map<K, V> map) {
            this.map = map;
        }

        Set<Object> read() {
            return read;
        }

        boolean readAll() {
            return readAll;
        }

        private void note(Object key) {
            if (key != null) {
                read.add(key);
            }
        }

        @Override
        public V get(Object key) {
            note(key);
            return map.get(key);
        }

        @Override
        public boolean containsKey(Object key) {
            note(key);
            return map.containsKey(key);
        }

        @Override
        public V getOrDefault(Object key, V defaultValue) {
            note(key);
            return map.getOrDefault(key, defaultValue);
        }

        @Override
        public Set<Map.Entry<K, V>> entrySet() {
            readAll = true;
            return map.entrySet();
        }

        @Override
        public int size() {
            readAll = true;
            return map.size();
        }

        @Override
        public boolean isEmpty() {
            readAll = true;
            return map.isEmpty();
        }
    }
}
