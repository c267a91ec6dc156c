package io.sluice.storage;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@link ChunkStore} in memory: every write becomes its own chunk (nothing to roll over). Thread-safe; copying
 * bytes is the only work done under its lock.
 */
final class MemoryChunkStore implements ChunkStore {
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}: owner to chunk number to bytes. */
    private final Map<Long, Map<Long, byte[]>> owners = new HashMap<>();
    /** Guarded by {@code lock}. */
    private final Map<Long, Long> nextChunk = new HashMap<>();

    @Override
    public ChunkRef write(long owner, ByteBuffer data) {
        if (owner < 0) {
            throw new IllegalArgumentException("owner must be >= 0, not " + owner);
        }
        Objects.requireNonNull(data, "data");
        byte[] bytes = new byte[data.remaining()];
        data.duplicate().get(bytes);
        lock.lock();
        try {
            long chunk = nextChunk.merge(owner, 1L, Long::sum) - 1;
            owners.computeIfAbsent(owner, o -> new HashMap<>()).put(chunk, bytes);
            return new ChunkRef(owner, chunk, 0, bytes.length);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public ByteBuffer read(ChunkRef ref, int offsetInRef, int length) {
        Objects.requireNonNull(ref, "ref");
        if (offsetInRef < 0 || length < 0 || (long) offsetInRef + length > ref.length()) {
            throw new IllegalArgumentException("cannot read " + length + " bytes at " + offsetInRef + " of " + ref);
        }
        byte[] bytes;
        lock.lock();
        try {
            Map<Long, byte[]> chunks = owners.get(ref.owner());
            bytes = null == chunks ? null : chunks.get(ref.chunk());
        } finally {
            lock.unlock();
        }
        if (null == bytes) {
            throw new StorageException("chunk " + ref.chunk() + " of owner " + ref.owner() + " does not exist");
        }
        if (ref.offset() + ref.length() > bytes.length) {
            throw new CorruptedDataException("chunk " + ref.chunk() + " of owner " + ref.owner()
                    + " is shorter than " + ref + " says");
        }
        ByteBuffer out = ByteBuffer.allocate(length);
        out.put(bytes, (int) ref.offset() + offsetInRef, length);
        return out.flip();
    }

    @Override
    public void deleteOwner(long owner) {
        lock.lock();
        try {
            owners.remove(owner);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
    }
}
