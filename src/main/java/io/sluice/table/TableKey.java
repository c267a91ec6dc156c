package io.sluice.table;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The key of a key-value table entry: a primary key (which picks the partition) and an optional secondary key, each
 * exactly as long as the table's {@link KeyValueTableConfiguration} says. Entries that share a primary key live in
 * one partition and can be updated together atomically. Both buffers are read from position to limit and never
 * moved; the record keeps read-only views of them.
 *
 * @param primaryKey the primary key bytes
 * @param secondaryKey the secondary key bytes; empty (or {@code null}, taken as empty) for tables without one
 */
public record TableKey(ByteBuffer primaryKey, ByteBuffer secondaryKey) {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();

    /**
     * @throws NullPointerException if {@code primaryKey} is null
     */
    public TableKey {
        primaryKey = Objects.requireNonNull(primaryKey, "primaryKey").asReadOnlyBuffer();
        secondaryKey = secondaryKey == null ? EMPTY : secondaryKey.asReadOnlyBuffer();
    }

    /**
     * A key without a secondary key.
     *
     * @param primaryKey the primary key bytes
     */
    public TableKey(ByteBuffer primaryKey) {
        this(primaryKey, null);
    }

    /** @return a read-only view of the primary key (its own position, so callers may read it) */
    @Override
    public ByteBuffer primaryKey() {
        return primaryKey.duplicate();
    }

    /** @return a read-only view of the secondary key, empty if there is none */
    @Override
    public ByteBuffer secondaryKey() {
        return secondaryKey.duplicate();
    }

    @Override
    public String toString() {
        return "TableKey[" + hex(primaryKey) + (secondaryKey.hasRemaining() ? "|" + hex(secondaryKey) : "") + "]";
    }

    static String hex(ByteBuffer b) {
        StringBuilder s = new StringBuilder();
        for (int i = b.position(); i < b.limit() && s.length() < 64; i++) {
            s.append(String.format("%02x", b.get(i)));
        }
        return b.remaining() > 32 ? s + "..." : s.toString();
    }
}
