package io.sluice.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@link Storage} in a data directory on the local file system:
 *
 * <pre>
 * &lt;dataDir&gt;/resources/&lt;bucket&gt;/&lt;key&gt;/lock                      the resource's advisory lock file
 * &lt;dataDir&gt;/resources/&lt;bucket&gt;/&lt;key&gt;/&lt;version&gt;.log             write logs      ({@link LogFormat})
 * &lt;dataDir&gt;/resources/&lt;bucket&gt;/&lt;key&gt;/&lt;version&gt;.snap            snapshots       ({@link FileSnapshotStore})
 * &lt;dataDir&gt;/chunks/&lt;owner&gt;/&lt;chunk&gt;.chunk                        chunk data      ({@link FileChunkStore})
 * </pre>
 *
 * Bucket and key are encoded to one directory name each ({@link ResourceId}); versions and chunk numbers have 20
 * digits so that names sort like numbers. See {@code docs/storage.md} for durability, group commit, recovery and
 * locking. Thread-safe.
 */
public final class LocalStorage implements Storage {
    /** Default chunk rollover size: 64 MiB. */
    public static final long DEFAULT_CHUNK_ROLLOVER_BYTES = 64L << 20;

    private final Path dataDir;
    private final FileWriteLog writeLog;
    private final FileSnapshotStore snapshots;
    private final FileChunkStore chunks;
    private final AtomicBoolean closed = new AtomicBoolean();

    private LocalStorage(Path dataDir, Durability durability, long chunkRolloverBytes,
                         FileWriteLog.ForceHook forceHook, FileOpener files) {
        this.dataDir = dataDir;
        Path resources = dataDir.resolve("resources");
        this.writeLog = new FileWriteLog(resources, durability, forceHook, files);
        this.snapshots = new FileSnapshotStore(resources, files);
        this.chunks = new FileChunkStore(dataDir.resolve("chunks"), durability, chunkRolloverBytes, files);
    }

    /** Reports the write log's group commits (their write and force durations) to {@code metrics} from now on. */
    public void metrics(io.sluice.common.ServerMetrics metrics) {
        writeLog.metrics(metrics);
    }

    /**
     * Opens (creating it if needed) storage in {@code dataDir} with the default chunk rollover size. Blocks briefly
     * on I/O; takes no lock (resources are locked one by one).
     *
     * @throws StorageException if the directory cannot be created
     */
    public static LocalStorage open(Path dataDir, Durability durability) {
        return open(dataDir, durability, DEFAULT_CHUNK_ROLLOVER_BYTES);
    }

    /**
     * Opens (creating it if needed) storage in {@code dataDir}.
     *
     * @param chunkRolloverBytes chunk files are closed and a new one started before they would grow past this
     * @throws IllegalArgumentException if {@code chunkRolloverBytes <= 0}
     * @throws StorageException if the directory cannot be created
     */
    public static LocalStorage open(Path dataDir, Durability durability, long chunkRolloverBytes) {
        return open(dataDir, durability, chunkRolloverBytes, FileWriteLog.ForceHook.NONE, FileOpener.DEFAULT);
    }

    /**
     * Opens (creating it if needed) storage in {@code dataDir} whose data files are opened by {@code files} (tests
     * pass one that fails like a full disk).
     *
     * @throws StorageException if the directory cannot be created
     */
    public static LocalStorage open(Path dataDir, Durability durability, FileOpener files) {
        return open(dataDir, durability, DEFAULT_CHUNK_ROLLOVER_BYTES, FileWriteLog.ForceHook.NONE, files);
    }

    static LocalStorage open(Path dataDir, Durability durability, long chunkRolloverBytes,
                             FileWriteLog.ForceHook forceHook) {
        return open(dataDir, durability, chunkRolloverBytes, forceHook, FileOpener.DEFAULT);
    }

    static LocalStorage open(Path dataDir, Durability durability, long chunkRolloverBytes,
                             FileWriteLog.ForceHook forceHook, FileOpener files) {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(durability, "durability");
        Objects.requireNonNull(files, "files");
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new StorageException("cannot create data directory " + dataDir + ": " + e, e);
        }
        return new LocalStorage(dataDir.toAbsolutePath(), durability, chunkRolloverBytes, forceHook, files);
    }

    /** @return the data directory */
    public Path dataDir() {
        return dataDir;
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

    /** @return the file-system write log, for tests in this package */
    FileWriteLog fileWriteLog() {
        return writeLog;
    }

    /** @return the file-system snapshot store, for tests in this package */
    FileSnapshotStore fileSnapshots() {
        return snapshots;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                writeLog.close();
            } finally {
                chunks.close();
            }
        }
    }

    @Override
    public String toString() {
        return "LocalStorage[" + dataDir + "]";
    }
}
