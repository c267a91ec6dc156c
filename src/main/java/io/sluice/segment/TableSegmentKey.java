package io.sluice.segment;

import java.nio.ByteBuffer;

import io.sluice.wire.Bytes;

/**
 * A key of a table segment with a version: the condition a removal is made on, or the version an iteration found.
 *
 * @param key the key's bytes (a read-only view positioned at 0; not copied, so do not change the bytes while the
 *     record is in use)
 * @param version {@link TableSegmentClient#NO_VERSION} (no condition), {@link TableSegmentClient#NOT_EXISTS} (the
 *     key must be absent), or a version the segment store gave (an offset in the table segment, 0 or more)
 */
public record TableSegmentKey(ByteBuffer key, long version) {

    /**
     * Takes a read-only view of {@code key}'s remaining bytes.
     *
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalArgumentException if {@code version} is negative but neither of the two constants
     */
    public TableSegmentKey {
        key = Bytes.view(key, "key");
        TableSegmentClient.checkVersion(version);
    }

    /** @return a key with no condition ({@link TableSegmentClient#NO_VERSION}) */
    public static TableSegmentKey unversioned(ByteBuffer key) {
        return new TableSegmentKey(key, TableSegmentClient.NO_VERSION);
    }

    /** @return a key that must be absent ({@link TableSegmentClient#NOT_EXISTS}) */
    public static TableSegmentKey notExists(ByteBuffer key) {
        return new TableSegmentKey(key, TableSegmentClient.NOT_EXISTS);
    }

    /** @return a key that must be at {@code version} */
    public static TableSegmentKey versioned(ByteBuffer key, long version) {
        return new TableSegmentKey(key, version);
    }

    /** @return the key's bytes: a read-only view positioned at 0, of its own (moving it moves nothing else) */
    @Override
    public ByteBuffer key() {
        return key.duplicate();
    }

    @Override
    public String toString() {
        return "TableSegmentKey[" + Bytes.describe(key) + ", version=" + TableSegmentClient.describeVersion(version)
                + "]";
    }
}
