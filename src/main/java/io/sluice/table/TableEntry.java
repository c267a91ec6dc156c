package io.sluice.table;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * An entry of a key-value table as read: its key, value and current version.
 *
 * @param key the key
 * @param value the value (a read-only view)
 * @param version the key's version, usable in a conditional update
 */
public record TableEntry(TableKey key, ByteBuffer value, Version version) {

    /**
     * @throws NullPointerException if an argument is null
     */
    public TableEntry {
        Objects.requireNonNull(key, "key");
        value = Objects.requireNonNull(value, "value").asReadOnlyBuffer();
        Objects.requireNonNull(version, "version");
    }

    /** @return a read-only view of the value (its own position) */
    @Override
    public ByteBuffer value() {
        return value.duplicate();
    }
}
