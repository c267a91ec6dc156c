package io.sluice.storage;

/**
 * Where a {@link ChunkStore#write} put its bytes: a contiguous range of one chunk of one owner. Small enough to
 * keep in snapshots and log messages.
 *
 * @param owner the owner id given to {@code write}
 * @param chunk the chunk's number within the owner
 * @param offset the range's first byte within the chunk
 * @param length the range's length in bytes
 */
public record ChunkRef(long owner, long chunk, long offset, int length) {
    /**
     * @throws IllegalArgumentException if any component is negative
     */
    public ChunkRef {
        if (owner < 0 || chunk < 0 || offset < 0 || length < 0) {
            throw new IllegalArgumentException("chunk ref components must be >= 0: owner=" + owner + " chunk=" + chunk
                    + " offset=" + offset + " length=" + length);
        }
    }
}
