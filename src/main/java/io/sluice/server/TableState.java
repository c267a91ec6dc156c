package io.sluice.server;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

import io.sluice.wire.Bytes;
import io.sluice.wire.TableEntry;
import io.sluice.wire.TableKey;
import io.sluice.wire.TableValue;

/**
 * The contents of a table segment: keys (sorted as unsigned bytes) with their value and version. A version is
 * the table segment's length when the entry was written, as on a real Pravega server, so versions grow with
 * every update. {@link #entryCount()} is exact (a real server's drifts). Accessed only under the container lock.
 */
final class TableState {
    /** Bytes an entry adds to the table segment's length besides its key and value (Pravega's entry header). */
    static final int ENTRY_HEADER_BYTES = 17;
    /** The longest key a real segment store takes ({@code TableStore.MAXIMUM_KEY_LENGTH}). */
    static final int MAX_KEY_BYTES = 8192;
    /** The most an entry (header, key, value) may take ({@code EntrySerializer.MAX_SERIALIZATION_LENGTH}, 1 MiB). */
    static final int MAX_ENTRY_BYTES = 1024 * 1024;

    /** An immutable byte-string key ordered as unsigned bytes. */
    record Key(byte[] bytes) implements Comparable<Key> {
        static Key of(ByteBuffer b) {
            return new Key(Bytes.toArray(b));
        }

        @Override
        public int compareTo(Key o) {
            return Arrays.compareUnsigned(bytes, o.bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(bytes, k.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        ByteBuffer buffer() {
            return Bytes.wrap(bytes);
        }
    }

    /** A value and the version it was written at. */
    record Value(byte[] bytes, long version) {
    }

    /** Why a conditional change was refused. */
    enum Refusal {
        KEY_DOES_NOT_EXIST, BAD_KEY_VERSION, WRONG_TABLE_OFFSET, BAD_KEY_LENGTH, KEY_TOO_LONG, ENTRY_TOO_LONG
    }

    private final int keyLength;
    private final TreeMap<Key, Value> entries = new TreeMap<>();
    private long length;

    TableState(int keyLength) {
        this.keyLength = keyLength;
    }

    int keyLength() {
        return keyLength;
    }

    long length() {
        return length;
    }

    long entryCount() {
        return entries.size();
    }

    NavigableMap<Key, Value> entries() {
        return entries;
    }

    /** Restores from a snapshot. */
    void restore(long length, Map<Key, Value> contents) {
        this.length = length;
        entries.clear();
        entries.putAll(contents);
    }

    /** @return why the key cannot be used in this table, or {@code null} */
    Refusal checkKeyLength(ByteBuffer key) {
        return keyLength > 0 && key.remaining() != keyLength ? Refusal.BAD_KEY_LENGTH : null;
    }

    /**
     * Checks the sizes of an update batch as a real segment store does (the key alone, then header, key and value).
     *
     * @return the first refusal, or {@code null}
     */
    static Refusal checkSizes(List<TableEntry> batch) {
        for (TableEntry e : batch) {
            int key = e.key().data().remaining();
            if (key > MAX_KEY_BYTES) {
                return Refusal.KEY_TOO_LONG;
            }
            if ((long) ENTRY_HEADER_BYTES + key + e.value().data().remaining() > MAX_ENTRY_BYTES) {
                return Refusal.ENTRY_TOO_LONG;
            }
        }
        return null;
    }

    /**
     * Checks an update or removal batch without changing anything.
     *
     * @param tableSegmentOffset −1, or the length the table must have
     * @return the first refusal, or {@code null} if the whole batch applies
     */
    Refusal check(List<TableKey> keys, long tableSegmentOffset) {
        if (tableSegmentOffset != -1 && tableSegmentOffset != length) {
            return Refusal.WRONG_TABLE_OFFSET;
        }
        for (TableKey k : keys) {
            if (k.data().remaining() > MAX_KEY_BYTES) {
                return Refusal.KEY_TOO_LONG;
            }
            if (checkKeyLength(k.data()) != null) {
                return Refusal.BAD_KEY_LENGTH;
            }
            long expected = k.keyVersion();
            if (expected == TableKey.NO_VERSION) {
                continue;
            }
            Value current = entries.get(Key.of(k.data()));
            if (expected == TableKey.NOT_EXISTS) {
                if (current != null) {
                    return Refusal.BAD_KEY_VERSION;
                }
            } else if (current == null) {
                return Refusal.KEY_DOES_NOT_EXIST;
            } else if (current.version() != expected) {
                return Refusal.BAD_KEY_VERSION;
            }
        }
        return null;
    }

    /** Applies a checked update batch; returns the new versions in order. */
    List<Long> update(List<TableEntry> batch) {
        List<Long> versions = new ArrayList<>(batch.size());
        for (TableEntry e : batch) {
            long version = length;
            ByteBuffer key = e.key().data();
            ByteBuffer value = e.value().data();
            entries.put(Key.of(key), new Value(Bytes.toArray(value), version));
            length += ENTRY_HEADER_BYTES + key.remaining() + value.remaining();
            versions.add(version);
        }
        return versions;
    }

    /** Applies a checked removal batch (missing keys are fine). */
    void remove(List<TableKey> keys) {
        for (TableKey k : keys) {
            ByteBuffer key = k.data();
            if (entries.remove(Key.of(key)) != null) {
                length += ENTRY_HEADER_BYTES + key.remaining();
            }
        }
    }

    /** @return the entry of each key, in order: a missing key comes back with version NOT_EXISTS and an empty value */
    List<TableEntry> read(List<TableKey> keys) {
        List<TableEntry> out = new ArrayList<>(keys.size());
        for (TableKey k : keys) {
            Value v = entries.get(Key.of(k.data()));
            out.add(v == null
                    ? new TableEntry(new TableKey(k.data(), TableKey.NOT_EXISTS), TableValue.EMPTY)
                    : new TableEntry(new TableKey(k.data(), v.version()), new TableValue(Bytes.wrap(v.bytes()))));
        }
        return out;
    }

    /**
     * One page of an ordered scan.
     *
     * @param after resume strictly after this key ({@code null} to start at {@code from}); a key outside
     *     {@code [from, to]} is taken for its position (before the range: from its start; after it: nothing)
     * @param from lowest key to include ({@code null} = no bound)
     * @param to highest key to include ({@code null} = no bound); not below {@code from}
     * @param maxItems page size, at least 1
     * @return the page, in key order
     */
    List<Map.Entry<Key, Value>> scan(Key after, Key from, Key to, int maxItems, int maxBytes) {
        NavigableMap<Key, Value> view = entries;
        if (after != null && (from == null || after.compareTo(from) >= 0)) {
            if (to != null && after.compareTo(to) >= 0) {
                return List.of();
            }
            view = view.tailMap(after, false);
        } else if (from != null) {
            view = view.tailMap(from, true);
        }
        if (to != null) {
            view = view.headMap(to, true);
        }
        List<Map.Entry<Key, Value>> page = new ArrayList<>();
        int bytes = 0;
        for (Map.Entry<Key, Value> e : view.entrySet()) {
            if (page.size() >= maxItems || (bytes > 0 && bytes + e.getKey().bytes().length + e.getValue().bytes().length > maxBytes)) {
                break;
            }
            page.add(e);
            bytes += e.getKey().bytes().length + e.getValue().bytes().length;
        }
        return page;
    }

    /** @return live entries whose version is at least {@code fromPosition}, oldest first, at most {@code max} */
    List<Map.Entry<Key, Value>> since(long fromPosition, int max) {
        List<Map.Entry<Key, Value>> all = new ArrayList<>();
        for (Map.Entry<Key, Value> e : entries.entrySet()) {
            if (e.getValue().version() >= fromPosition) {
                all.add(e);
            }
        }
        all.sort(Comparator.comparingLong(e -> e.getValue().version()));
        return all.size() > max ? all.subList(0, max) : all;
    }

    /** @return the table-segment bytes an entry takes */
    static long entrySize(Map.Entry<Key, Value> e) {
        return ENTRY_HEADER_BYTES + e.getKey().bytes().length + e.getValue().bytes().length;
    }
}
