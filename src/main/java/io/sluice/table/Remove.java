package io.sluice.table;

import java.util.Objects;

/**
 * Removes a key: unconditionally ({@code version} null; a missing key is no error), or only if the key is at
 * {@code version} (else {@link io.sluice.errors.BadKeyVersionException}, or
 * {@link io.sluice.errors.NoSuchKeyException} if it is gone).
 *
 * @param key the key
 * @param version the version the key must be at, or {@code null} for none
 */
public record Remove(TableKey key, Version version) implements TableModification {
    /** @throws NullPointerException if the key is null */
    public Remove {
        Objects.requireNonNull(key, "key");
    }

    /**
     * An unconditional removal.
     *
     * @param key the key
     */
    public Remove(TableKey key) {
        this(key, null);
    }
}
