package io.sluice.wire;

import java.util.Objects;

/**
 * One key with its value, nested in {@link TableEntries} (Pravega uses a {@code Map.Entry} here).
 *
 * <pre>
 * key TableKey | value TableValue
 * </pre>
 *
 * @param key the key and its version
 * @param value the value
 */
public record TableEntry(TableKey key, TableValue value) {
    /** Bytes the smallest encoding takes (empty key, empty value). */
    static final int MIN_WIRE_BYTES = TableKey.MIN_WIRE_BYTES + TableValue.MIN_WIRE_BYTES;

    /** Checks that both halves are present. */
    public TableEntry {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
    }

    /**
     * Writes the key, then the value.
     *
     * @param out where to write
     */
    public void writeFields(WireOutput out) {
        key.writeFields(out);
        value.writeFields(out);
    }

    static TableEntry readFrom(WireInput in) {
        TableKey key = TableKey.readFrom(in);
        TableValue value = TableValue.readFrom(in);
        return new TableEntry(key, value);
    }
}
