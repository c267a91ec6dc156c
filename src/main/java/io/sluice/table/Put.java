package io.sluice.table;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Writes a value under a key: unconditionally ({@code version} null), or only if the key is at {@code version}
 * (else {@link io.sluice.errors.BadKeyVersionException}, or {@link io.sluice.errors.NoSuchKeyException} if the key
 * is gone).
 *
 * @param key the key
 * @param value the value
 * @param version the version the key must be at, or {@code null} for none
 */
public record Put(TableKey key, ByteBuffer value, Version version) implements TableModification {
    /** @throws NullPointerException if the key or value is null */
    public Put {
        Objects.requireNonNull(key, "key");
        value = Objects.requireNonNull(value, "value").asReadOnlyBuffer();
    }

    /**
     * An unconditional put.
     *
     * @param key the key
     * @param value the value
     */
    public Put(TableKey key, ByteBuffer value) {
        this(key, value, null);
    }

    /** @return a read-only view of the value */
    @Override
    public ByteBuffer value() {
        return value.duplicate();
    }
}
