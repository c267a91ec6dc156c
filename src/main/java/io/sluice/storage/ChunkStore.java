package io.sluice.storage;

import java.nio.ByteBuffer;

/**
 * Append-only bulk data (segment bytes a snapshot covers), kept apart from snapshots so that snapshots stay
 * small. Data belongs to an owner (e.g. a segment's numeric id) and goes into that owner's current chunk; a chunk
 * that would grow past the rollover size is closed and a new one started, so one write is never split.
 *
 * <p>Thread-safe: writes and reads for the same or different owners may run concurrently. Every method may block on
 * I/O. Using an owner concurrently with {@link #deleteOwner} is undefined.
 */
public interface ChunkStore extends AutoCloseable {

    /**
     * Appends {@code data} (its remaining bytes; its position is not changed) to the owner's current chunk and
     * blocks until it is durable (see {@link Durability}).
     *
     * @param owner the owner id, {@code >= 0}
     * @return where the bytes are
     * @throws IllegalArgumentException if {@code owner} is negative
     * @throws StorageException if writing fails
     */
    ChunkRef write(long owner, ByteBuffer data);

    /**
     * Reads {@code length} bytes starting {@code offsetInRef} bytes into the range {@code ref} names.
     *
     * @return a new buffer holding exactly the bytes read (position 0, limit {@code length})
     * @throws IllegalArgumentException if the requested bytes are not inside {@code ref}
     * @throws StorageException if the chunk does not exist or reading fails
     */
    ByteBuffer read(ChunkRef ref, int offsetInRef, int length);

    /**
     * Deletes all of an owner's chunks. Does nothing for an owner without data.
     *
     * @throws StorageException if the deletion fails
     */
    void deleteOwner(long owner);

    /** Releases open files. Idempotent. */
    @Override
    void close();
}
