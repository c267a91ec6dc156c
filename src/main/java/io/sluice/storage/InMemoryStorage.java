package io.sluice.storage;

/**
 * {@link Storage} in memory, for tests and {@code --in-memory} servers: the same contract as
 * {@link LocalStorage} (locks exclude each other within this instance), nothing survives the instance.
 * Thread-safe.
 */
public final class InMemoryStorage implements Storage {
    private final MemoryWriteLog writeLog = new MemoryWriteLog();
    private final MemorySnapshotStore snapshots = new MemorySnapshotStore();
    private final MemoryChunkStore chunks = new MemoryChunkStore();

    /** Creates an empty storage. */
    public InMemoryStorage() {
    }

    @Override
    public WriteLogService writeLog() {
        return writeLog;
    }

    @Override
    public SnapshotService snapshots() {
        return snapshots;
    }

    @Override
    public ChunkStore chunks() {
        return chunks;
    }

    /** Does nothing: there is nothing to release. */
    @Override
    public void close() {
    }
}
