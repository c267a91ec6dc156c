package io.sluice.storage;

/**
 * One storage back end: write logs, snapshots and chunks, on disk ({@link LocalStorage}) or in memory
 * ({@link InMemoryStorage}). Thread-safe.
 */
public interface Storage extends AutoCloseable {

    /** @return the write-log service */
    WriteLogService writeLog();

    /** @return the snapshot service */
    SnapshotService snapshots();

    /** @return the chunk store */
    ChunkStore chunks();

    /**
     * Returns a new {@link ServerlessStorage} for the resource (bucket, key): the state holder through which one
     * owner loads, locks and writes it.
     *
     * @throws IllegalArgumentException if a name is not valid
     */
    default ServerlessStorage resource(String bucket, String key) {
        return new ServerlessStorage(snapshots(), writeLog(), bucket, key);
    }

    /**
     * Releases every lock this storage holds (after pending appends are written) and closes its files; in memory
     * there is nothing to release. Idempotent.
     */
    @Override
    void close();
}
