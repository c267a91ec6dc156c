package io.sluice.storage;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Versioned, append-only write logs of messages, several per resource, and the resource's exclusive lock. A
 * resource is a (bucket, key) pair; each of its logs has a version (0, 1, 2, ...), and
 * {@link ServerlessStorage} decides which version receives appends. Modelled on FeatureBase DAX's
 * {@code WriteLogService}.
 *
 * <p>Names: {@code bucket} and {@code key} are relative names made of {@code /}-separated parts; empty names,
 * empty parts, {@code .} and {@code ..} parts, absolute paths, backslashes and control characters are rejected
 * with an {@link IllegalArgumentException}. Versions are {@code >= 0}.
 *
 * <p>Changing a resource's logs ({@code appendMessage*}, {@link #deleteLog}) requires holding its lock through
 * this service ({@link #lock}); reading and listing do not.
 *
 * <p>Thread-safety: implementations are thread-safe. Appends to one log from any number of threads are
 * written in the order they were enqueued; a message is written whole or, after a crash, not at all.
 */
public interface WriteLogService {

    /**
     * Appends a message to log {@code version} of the resource (creating the log if needed) and blocks until it
     * is durable (see {@link Durability}).
     *
     * @param msg the message; it is copied before this method returns
     * @throws IllegalStateException if this service does not hold the resource's lock
     * @throws IllegalArgumentException for a bad name or version, or a message over the size limit
     * @throws StorageException if writing fails (the message may or may not be in the log)
     * @throws io.sluice.errors.StreamingInterruptedException if interrupted while waiting (the message may still
     *         be written)
     */
    void appendMessage(String bucket, String key, long version, byte[] msg);

    /**
     * Enqueues a message for appending to log {@code version}; returns at once. Messages are written in the
     * order their calls returned. Stages attached to the future without an executor run on the log's writer
     * thread: keep them short.
     *
     * @param msg the message; it is copied before this method returns
     * @return completes when the message is durable, or exceptionally with a {@link StorageException}
     * @throws IllegalStateException if this service does not hold the resource's lock
     * @throws IllegalArgumentException for a bad name or version, or a message over the size limit
     */
    CompletableFuture<Void> appendMessageAsync(String bucket, String key, long version, byte[] msg);

    /**
     * Opens a reader at the start of log {@code version}.
     *
     * @throws StorageException if the log does not exist or cannot be read
     */
    LogReader logReader(String bucket, String key, long version);

    /**
     * Opens a reader at {@code offset} of log {@code version}.
     *
     * @param offset 0 for the start, or a value returned by {@link LogReader#position()} of this log
     * @throws IllegalArgumentException if {@code offset} is negative (or, where the implementation can tell,
     *         not a message boundary)
     * @throws StorageException if the log does not exist or cannot be read
     */
    LogReader logReaderFrom(String bucket, String key, long version, long offset);

    /**
     * Deletes log {@code version}, waiting first for appends already enqueued to it. Deleting a log that does
     * not exist does nothing.
     *
     * @throws IllegalStateException if this service does not hold the resource's lock
     * @throws StorageException if the deletion fails
     */
    void deleteLog(String bucket, String key, long version);

    /**
     * After an append to one of the resource's logs failed (a full disk, an I/O error), makes the logs accept appends
     * again. Once an append has failed, every append to the resource enqueued after it fails too, in order, until
     * this succeeds; appends enqueued after this call are written only if it succeeds. Repairing drops whatever the
     * failed writes left after the last durable record (so a restart reads only what was acknowledged) and checks that
     * the disk takes writes again. Returns at once; does nothing (and succeeds) if no append has failed.
     *
     * @return completes when the logs accept appends again, or exceptionally with a {@link StorageException} if they
     *         still cannot be written (call again later: appends keep failing meanwhile)
     * @throws IllegalStateException if this service does not hold the resource's lock
     */
    CompletableFuture<Void> resumeAppends(String bucket, String key);

    /**
     * Lists the resource's log versions.
     *
     * @return the versions in ascending order; empty if there are none
     * @throws StorageException if listing fails
     */
    List<Long> list(String bucket, String key);

    /**
     * Takes the resource's exclusive lock for this service. Does not wait: fails at once if it is held.
     *
     * @throws ResourceLockedException if another process holds it, or it is already held in this process
     * @throws StorageException if the lock cannot be attempted (I/O failure)
     */
    void lock(String bucket, String key);

    /**
     * Releases the resource's lock, after waiting for every append already enqueued to its logs.
     *
     * @throws IllegalStateException if this service does not hold the lock
     */
    void unlock(String bucket, String key);
}
