package io.sluice.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Admin reply: a segment's long-term storage chunks, reply to {@link ListStorageChunks}. Wire type −6.
 *
 * <pre>
 * requestId i64 | count i32 | ChunkInfo × count
 * </pre>
 *
 * @param requestId the request's id
 * @param chunks the chunks, in segment order
 */
public record StorageChunksListed(long requestId, List<ChunkInfo> chunks) implements Reply {

    /** Checks that the list is present; copies it. */
    public StorageChunksListed {
        chunks = List.copyOf(Objects.requireNonNull(chunks, "chunks"));
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.STORAGE_CHUNKS_LISTED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeInt(chunks.size());
        for (ChunkInfo chunk : chunks) {
            chunk.writeFields(out);
        }
    }

    static StorageChunksListed readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        int count = in.readCount("chunks.count", ChunkInfo.MIN_LENGTH);
        List<ChunkInfo> chunks = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            chunks.add(ChunkInfo.readFrom(in));
        }
        return new StorageChunksListed(requestId, chunks);
    }
}
