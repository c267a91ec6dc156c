package io.sluice.table;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Writes a value under a key that must not exist yet; fails with {@link io.sluice.errors.BadKeyVersionException} if
 * it does.
 *
 * @param key the key
 * @param value the value
 */
public record Insert(TableKey key, ByteBuffer value) implements TableModification {
    /** @throws NullPointerException if an argument is null */
    public Insert {
        Objects.requireNonNull(key, "key");
        value = Objects.requireNonNull(value, "value").asReadOnlyBuffer();
    }

    /** @return a read-only view of the value */
    @Override
    public ByteBuffer value() {
        return value.duplicate();
    }
}
