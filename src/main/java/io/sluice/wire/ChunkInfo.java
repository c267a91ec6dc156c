package io.sluice.wire;

import java.util.Objects;

/**
 * One long-term storage chunk of a segment, listed by {@link StorageChunksListed}. Not a command: a structure
 * nested in that reply's payload.
 *
 * <pre>
 * lengthInMetadata i64 | lengthInStorage i64 | startOffset i64 | chunkName UTF | existsInStorage bool
 * </pre>
 *
 * @param lengthInMetadata the chunk's length according to the segment's metadata
 * @param lengthInStorage the chunk's length in long-term storage
 * @param startOffset the segment offset of the chunk's first byte
 * @param chunkName the chunk's name in long-term storage
 * @param existsInStorage whether the chunk exists in long-term storage
 */
public record ChunkInfo(long lengthInMetadata, long lengthInStorage, long startOffset, String chunkName,
                        boolean existsInStorage) {
    /** Smallest encoded size: three int64, an empty UTF (2) and a bool (1). */
    static final int MIN_LENGTH = 3 * Long.BYTES + 2 + 1;

    /** Checks that the name is present. */
    public ChunkInfo {
        Objects.requireNonNull(chunkName, "chunkName");
    }

    /**
     * Writes this chunk's fields.
     *
     * @param out where to write
     */
    public void writeFields(WireOutput out) {
        out.writeLong(lengthInMetadata);
        out.writeLong(lengthInStorage);
        out.writeLong(startOffset);
        out.writeUtf(chunkName);
        out.writeBoolean(existsInStorage);
    }

    static ChunkInfo readFrom(WireInput in) {
        long lengthInMetadata = in.readLong("lengthInMetadata");
        long lengthInStorage = in.readLong("lengthInStorage");
        long startOffset = in.readLong("startOffset");
        String chunkName = in.readUtf("chunkName");
        boolean existsInStorage = in.readBoolean("existsInStorage");
        return new ChunkInfo(lengthInMetadata, lengthInStorage, startOffset, chunkName, existsInStorage);
    }
}
