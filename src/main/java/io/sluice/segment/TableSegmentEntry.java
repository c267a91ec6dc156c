package io.sluice.segment;

import java.nio.ByteBuffer;

import io.sluice.wire.Bytes;

/**
 * A key of a table segment with its value and version: what a put writes (the version being its condition) and
 * what a read, an iteration or a delta read returns (the version being the entry's current one).
 *
 * @param key the key's bytes (a read-only view positioned at 0; not copied, so do not change the bytes while the
 *     record is in use)
 * @param value the value's bytes (likewise)
 * @param version {@link TableSegmentClient#NO_VERSION} (no condition), {@link TableSegmentClient#NOT_EXISTS} (the
 *     key must be absent), or a version the segment store gave (an offset in the table segment, 0 or more)
 */
public record TableSegmentEntry(ByteBuffer key, ByteBuffer value, long version) {

    /**
     * Takes read-only views of the remaining bytes of {@code key} and {@code value}.
     *
     * @throws NullPointerException if {@code key} or {@code value} is null
     * @throws IllegalArgumentException if {@code version} is negative but neither of the two constants
     */
    public TableSegmentEntry {
        key = Bytes.view(key, "key");
        value = Bytes.view(value, "value");
        TableSegmentClient.checkVersion(version);
    }

    /** @return an entry written whatever the key's version ({@link TableSegmentClient#NO_VERSION}) */
    public static TableSegmentEntry unversioned(ByteBuffer key, ByteBuffer value) {
        return new TableSegmentEntry(key, value, TableSegmentClient.NO_VERSION);
    }

    /** @return an entry written only if the key is absent ({@link TableSegmentClient#NOT_EXISTS}) */
    public static TableSegmentEntry notExists(ByteBuffer key, ByteBuffer value) {
        return new TableSegmentEntry(key, value, TableSegmentClient.NOT_EXISTS);
    }

    /** @return an entry written only if the key is at {@code version} */
    public static TableSegmentEntry versioned(ByteBuffer key, ByteBuffer value, long version) {
        return new TableSegmentEntry(key, value, version);
    }

    /** @return the key's bytes: a read-only view positioned at 0, of its own */
    @Override
    public ByteBuffer key() {
        return key.duplicate();
    }

    /** @return the value's bytes: a read-only view positioned at 0, of its own */
    @Override
    public ByteBuffer value() {
        return value.duplicate();
    }

    /** @return the key with this entry's version */
    public TableSegmentKey tableKey() {
        return new TableSegmentKey(key, version);
    }

    @Override
    public String toString() {
        return "TableSegmentEntry[key " + Bytes.describe(key) + ", value " + Bytes.describe(value) + ", version="
                + TableSegmentClient.describeVersion(version) + "]";
    }
}
