package io.sluice.storage;

/**
 * Reads the whole messages of a write log in the order they were appended. Not thread-safe: one consumer.
 *
 * <p>A reader only returns messages that are complete and pass their checksum; it stops at the end of the log
 * or at the first record that fails (a torn tail, see {@link WriteLogService}). Reading may block on disk I/O.
 */
public interface LogReader extends AutoCloseable {

    /**
     * Returns the next message.
     *
     * @return the next message, or {@code null} at the end of what is readable now (a log still being written
     *         may have more later)
     * @throws StorageException if reading fails
     * @throws CorruptedDataException if the log file is not a write log
     */
    byte[] next();

    /**
     * Where this reader is: the byte offset in the log just after the last message {@link #next()} returned.
     * Passing it to {@link WriteLogService#logReaderFrom} resumes after that message.
     *
     * @return the offset of the next message to read
     */
    long position();

    /** Releases the reader's file handle. Idempotent; never throws. */
    @Override
    void close();
}
