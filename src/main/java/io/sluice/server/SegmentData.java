package io.sluice.server;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The bytes of one segment: a list of chunks covering {@code [startOffset, length)}. Recent data sits in memory
 * chunks; data a snapshot covers sits in chunk files ({@link StoredChunk}). Only the container's apply step
 * changes it (under the container lock); readers copy what they need under the same lock.
 *
 * <p>Memory chunks are filled up to {@link #MEMORY_CHUNK_BYTES} and never change once a newer chunk exists, so a
 * snapshot can hand them to a background writer.
 */
final class SegmentData {
    static final int MEMORY_CHUNK_BYTES = 1024 * 1024;
    /** Full-size chunks' buffers, made ahead of the appends that need them; shared by every segment in the JVM. */
    private static final ChunkBuffers FULL_CHUNKS = new ChunkBuffers(MEMORY_CHUNK_BYTES, 2);

    /** A piece of the segment: {@code [offset, offset + length)}. */
    sealed interface Chunk permits MemoryChunk, StoredChunk {
        long offset();

        int length();
    }

    /**
     * Bytes in memory. The last memory chunk of a segment may still grow. They live outside the Java heap (a direct
     * buffer), as a Pravega segment store's cache does: the heap's collector never copies a segment's data from one
     * generation to the next (with 1 MiB chunks on the heap, G1 spent 50-90 ms a pause evacuating them while a
     * writer filled the in-memory server), and the memory comes back when the chunk is no longer referenced.
     */
    static final class MemoryChunk implements Chunk {
        private final long offset;
        private final ByteBuffer bytes;
        private int length;

        /** @param bytes empty, direct, and this chunk's alone */
        MemoryChunk(long offset, ByteBuffer bytes) {
            this.offset = offset;
            this.bytes = bytes;
        }

        @Override
        public long offset() {
            return offset;
        }

        @Override
        public int length() {
            return length;
        }

        int capacity() {
            return bytes.capacity();
        }

        int free() {
            return bytes.capacity() - length;
        }

        void append(ByteBuffer src, int n) {
            bytes.put(length, src, src.position(), n);
            src.position(src.position() + n);
            length += n;
        }

        /** @return the first {@code n} bytes (stable once written), read-only */
        ByteBuffer view(int n) {
            return bytes.slice(0, n).asReadOnlyBuffer();
        }

        /** @return {@code n} bytes from segment offset {@code from} (written, so stable), read-only */
        ByteBuffer view(long from, int n) {
            return bytes.slice((int) (from - offset), n).asReadOnlyBuffer();
        }

        void copy(long from, byte[] dst, int dstOffset, int n) {
            bytes.get((int) (from - offset), dst, dstOffset, n);
        }
    }

    /**
     * Bytes in a chunk file.
     *
     * @param offset the segment offset of the first byte
     * @param length the number of bytes
     * @param ref the chunk-store range holding them
     * @param refOffset where they start within {@code ref}
     */
    record StoredChunk(long offset, int length, io.sluice.storage.ChunkRef ref, int refOffset) implements Chunk {
    }

    /** Reads stored chunks; the container supplies the implementation backed by its chunk files. */
    interface ChunkReader {
        void read(StoredChunk chunk, long from, byte[] dst, int dstOffset, int n);
    }

    private final List<Chunk> chunks = new ArrayList<>();
    private long startOffset;
    private long length;

    long startOffset() {
        return startOffset;
    }

    long length() {
        return length;
    }

    List<Chunk> chunks() {
        return chunks;
    }

    /** Appends the remaining bytes of {@code src}; {@code src} itself is left as it was. */
    void append(ByteBuffer src) {
        ByteBuffer b = src.duplicate();
        int n = b.remaining();
        while (b.hasRemaining()) {
            MemoryChunk last = chunks.isEmpty() ? null
                    : chunks.get(chunks.size() - 1) instanceof MemoryChunk m && m.free() > 0 ? m : null;
            if (last == null) {
                // chunks double in size up to 1 MiB: segments with a few small events stay small
                int previous = chunks.isEmpty() ? 0 : chunks.get(chunks.size() - 1) instanceof MemoryChunk m ? m.capacity() : 0;
                int capacity = Math.min(MEMORY_CHUNK_BYTES, Math.max(b.remaining(), Math.max(4096, previous * 2)));
                last = new MemoryChunk(length + (n - b.remaining()), newChunkBuffer(capacity));
                chunks.add(last);
            }
            last.append(b, Math.min(last.free(), b.remaining()));
        }
        length += n;
    }

    /** A full-size chunk's buffer comes ready; making the one before a full-size chunk has the next one made. */
    private static ByteBuffer newChunkBuffer(int capacity) {
        if (capacity == MEMORY_CHUNK_BYTES) {
            return FULL_CHUNKS.take();
        }
        if (capacity >= MEMORY_CHUNK_BYTES / 2) {
            FULL_CHUNKS.prepare();
        }
        return ByteBuffer.allocateDirect(capacity);
    }

    /** Reads {@code n} bytes from {@code from} into a new array; the caller checks the range. */
    byte[] read(long from, int n, ChunkReader stored) {
        byte[] out = new byte[n];
        int done = 0;
        int i = findChunk(from);
        while (done < n) {
            Chunk c = chunks.get(i++);
            long at = from + done;
            int take = (int) Math.min(n - done, c.offset() + c.length() - at);
            switch (c) {
                case MemoryChunk m -> m.copy(at, out, done, take);
                case StoredChunk s -> stored.read(s, at, out, done, take);
            }
            done += take;
        }
        return out;
    }

    /** @return the chunk holding {@code offset}, which must lie in {@code [startOffset, length)} */
    Chunk chunkAt(long offset) {
        return chunks.get(findChunk(offset));
    }

    private int findChunk(long offset) {
        int lo = 0;
        int hi = chunks.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (chunks.get(mid).offset() <= offset) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** Drops whole chunks that lie before {@code offset}; the start moves to {@code offset}. */
    List<Chunk> truncate(long offset) {
        startOffset = offset;
        List<Chunk> dropped = new ArrayList<>();
        while (!chunks.isEmpty() && chunks.get(0).offset() + chunks.get(0).length() <= offset && chunks.size() > 1) {
            dropped.add(chunks.remove(0));
        }
        return dropped;
    }

    /** Appends every byte of {@code other} (a merge): stored chunks are re-referenced, memory chunks copied. */
    void appendAll(SegmentData other, ChunkReader stored) {
        for (Chunk c : other.chunks) {
            long from = Math.max(c.offset(), other.startOffset);
            int n = (int) (c.offset() + c.length() - from);
            if (n <= 0) {
                continue;
            }
            switch (c) {
                case MemoryChunk m -> append(m.view(from, n));
                case StoredChunk s -> {
                    chunks.add(new StoredChunk(length, n, s.ref(), s.refOffset() + (int) (from - s.offset())));
                    length += n;
                }
            }
        }
    }

    /** Restores state from a snapshot. */
    void restore(long startOffset, long length, List<StoredChunk> stored) {
        this.chunks.clear();
        this.chunks.addAll(stored);
        this.startOffset = startOffset;
        this.length = length;
    }

    /** Replaces memory chunks now written to files by their stored form. */
    void replace(Chunk old, StoredChunk stored) {
        int i = chunks.indexOf(old);
        if (i >= 0) {
            chunks.set(i, stored);
        }
    }
}
