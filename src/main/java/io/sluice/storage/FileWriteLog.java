package io.sluice.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.common.ServerMetrics;
import io.sluice.common.Threads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link WriteLogService} on the file system. Each resource has a directory {@code <root>/<bucket>/<key>} (see
 * {@link ResourceId}) holding its lock file {@code lock} and one file per log version in the {@link LogFormat}.
 *
 * <p><b>Group commit.</b> Each log open for appending has one committer virtual thread and a queue. Appenders frame
 * their message (length + CRC32C, on their own thread), enqueue it and wait on a future. The committer takes
 * whatever has queued, writes it with one gathering write, forces the file once (under {@link Durability#FSYNC})
 * and completes every future of the batch: one flush covers every append that arrived while the previous one was
 * running, from every thread. Appenders never do I/O and no lock is held during I/O.
 *
 * <p><b>Space ahead.</b> Under {@link Durability#FSYNC} the committer keeps zeroed space past the last record
 * ({@link #RESERVE_BYTES} at a time, written with the batch that needs it and forced with it): a force then commits
 * the records without a new file size, which on ext4 saves a journal commit (a record written into existing space
 * and forced measured 87–115 µs at the median, one appended 136–151 µs; docs/benchmarks.md, issue 19's ninth
 * round). Zeros never read as a record (their checksum fails), so readers stop at the last record as at a torn tail;
 * the space is cut off when the log closes, and recovery cuts off what a crash left. If the disk has no room for the
 * zeros, the records are appended as before.
 *
 * <p><b>Recovery.</b> When a log is first opened for appending in this process (under the resource's lock), the
 * committer reads it through, keeps the records up to the last complete, checksummed one and truncates the rest (a
 * torn tail: a crash in the middle of a write, or unsynced data lost with the machine), logging at WARN how many
 * bytes it dropped (at INFO when they are all zeros: space reserved before a crash). Records after a bad one are
 * not trusted even if they look whole.
 *
 * <p><b>Failed writes.</b> If writing or forcing a batch fails (a full disk, an I/O error), its appends fail and the
 * committer at once truncates the file back to the end of the last durable record, so nothing of the failed batch
 * stays in the log to be replayed later. From then on every append to any log of the resource fails fast, in order,
 * until {@link #resumeAppends} has repaired the log (truncated it again and checked that the disk takes
 * {@link #PROBE_BYTES} more bytes): so once an append has failed, no append enqueued after it succeeds before the
 * owner has seen the failure and asked to resume.
 *
 * <p><b>Locking.</b> {@link #lock} takes an exclusive {@link FileChannel#tryLock()} on the resource's lock file
 * (an OS advisory lock): another process cannot take it while this one holds it, and the OS releases it when the
 * process dies, however it dies. Within the JVM a registry of held lock files refuses a second attempt before it
 * reaches the file (closing a second channel on the file would silently drop the POSIX lock). The lock file is never
 * deleted (deleting it would let two processes lock two different files); it holds the holder's pid for diagnosis.
 *
 * <p>Thread-safe.
 */
final class FileWriteLog implements WriteLogService, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FileWriteLog.class);
    /** Zeroed space written ahead of the records at a time, under {@link Durability#FSYNC}. */
    static final int RESERVE_BYTES = 1 << 20;
    /** What the reserved space is written from (never written to). */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 * 1024).asReadOnlyBuffer();
    /** Name of a resource's lock file. */
    static final String LOCK_FILE = "lock";
    /** Lock files held anywhere in this JVM, by real path. */
    private static final Map<Path, ResourceId> JVM_LOCKS = new ConcurrentHashMap<>();
    private static final Pending CLOSE = new Pending(ByteBuffer.allocate(0), new CompletableFuture<>());
    /** Bytes {@link #resumeAppends} writes (and removes again) after the last record: does the disk have room? */
    static final int PROBE_BYTES = 64 * 1024;

    /** Called before each data fsync of a commit; tests use it to hold a commit while appends pile up. */
    @FunctionalInterface
    interface ForceHook {
        /** No hook. */
        ForceHook NONE = () -> { };

        /** Runs on the committer thread before it forces a batch. */
        void beforeForce();
    }

    private final Path root;
    private final Durability durability;
    private final ForceHook forceHook;
    private final FileOpener files;
    private final ConcurrentHashMap<ResourceId, Held> held = new ConcurrentHashMap<>();
    private final LongAdder fsyncs = new LongAdder();
    /** Hears how long each group commit took ({@link ServerMetrics#NONE}: nothing is timed). */
    private volatile ServerMetrics metrics = ServerMetrics.NONE;
    private final LongAdder droppedTailBytes = new LongAdder();
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param root the directory under which resource directories live (created when needed)
     */
    FileWriteLog(Path root, Durability durability) {
        this(root, durability, ForceHook.NONE);
    }

    FileWriteLog(Path root, Durability durability, ForceHook forceHook) {
        this(root, durability, forceHook, FileOpener.DEFAULT);
    }

    FileWriteLog(Path root, Durability durability, ForceHook forceHook, FileOpener files) {
        this.root = Objects.requireNonNull(root, "root");
        this.durability = Objects.requireNonNull(durability, "durability");
        this.forceHook = Objects.requireNonNull(forceHook, "forceHook");
        this.files = Objects.requireNonNull(files, "files");
    }

    /** Reports each group commit's duration (write and force) to {@code metrics} from now on. */
    void metrics(ServerMetrics metrics) {
        this.metrics = java.util.Objects.requireNonNull(metrics, "metrics");
    }

    /** @return how many times this service forced a log file or directory to disk (for tests) */
    long fsyncCount() {
        return fsyncs.sum();
    }

    /** @return bytes recovery dropped from torn tails so far (for tests) */
    long droppedTailBytes() {
        return droppedTailBytes.sum();
    }

    /** @return the file of log {@code version} of the resource */
    Path logFile(String bucket, String key, long version) {
        return directory(new ResourceId(bucket, key)).resolve(LogFormat.fileName(checkVersion(version)));
    }

    @Override
    public void appendMessage(String bucket, String key, long version, byte[] msg) {
        Futures.await(appendMessageAsync(bucket, key, version, msg), "append to write log " + bucket + "|" + key);
    }

    @Override
    public CompletableFuture<Void> appendMessageAsync(String bucket, String key, long version, byte[] msg) {
        ResourceId id = new ResourceId(bucket, key);
        checkVersion(version);
        Objects.requireNonNull(msg, "msg");
        ByteBuffer record = LogFormat.encode(msg);
        Held h = held.get(id);
        if (null == h) {
            throw notLocked("appendMessage", id);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        h.lock.lock();
        try {
            if (!h.locked) {
                throw notLocked("appendMessage", id);
            }
            OpenLog log = h.logs.get(version);
            if (null == log) {
                log = new OpenLog(h, version);
                h.logs.put(version, log);
                log.start();
            }
            log.queue.add(new Pending(record, done));
        } finally {
            h.lock.unlock();
        }
        return done;
    }

    @Override
    public LogReader logReader(String bucket, String key, long version) {
        return logReaderFrom(bucket, key, version, 0);
    }

    @Override
    public LogReader logReaderFrom(String bucket, String key, long version, long offset) {
        ResourceId id = new ResourceId(bucket, key);
        checkVersion(version);
        if (offset < 0 || (offset > 0 && offset < LogFormat.HEADER_BYTES)) {
            throw new IllegalArgumentException("offset " + offset + " is not 0 or a record position (>= "
                    + LogFormat.HEADER_BYTES + ")");
        }
        Path file = directory(id).resolve(LogFormat.fileName(version));
        OpenLog open = openLog(id, version);
        FileChannel ch;
        try {
            ch = FileChannel.open(file, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new StorageException("write log " + id + " version " + version + " does not exist (" + file + ")");
        } catch (IOException e) {
            throw new StorageException("cannot open write log " + file + ": " + e, e);
        }
        try {
            if (ch.size() >= LogFormat.HEADER_BYTES) {
                checkHeader(ch, file);
            }
            RecordScanner.Limit limit = null == open
                    ? ch::size
                    : () -> {
                        long readable = open.readableLength;
                        return readable >= 0 && !open.closed.isDone() ? readable : ch.size();
                    };
            long start = offset == 0 ? LogFormat.HEADER_BYTES : offset;
            return new FileLogReader(file, ch, new RecordScanner(ch, start, limit));
        } catch (IOException e) {
            FileUtil.closeQuietly(ch);
            throw new StorageException("cannot read write log " + file + ": " + e, e);
        } catch (RuntimeException e) {
            FileUtil.closeQuietly(ch);
            throw e;
        }
    }

    @Override
    public void deleteLog(String bucket, String key, long version) {
        ResourceId id = new ResourceId(bucket, key);
        checkVersion(version);
        Held h = held.get(id);
        if (null == h) {
            throw notLocked("deleteLog", id);
        }
        OpenLog log;
        h.lock.lock();
        try {
            if (!h.locked) {
                throw notLocked("deleteLog", id);
            }
            log = h.logs.remove(version);
            if (null != log) {
                log.queue.add(CLOSE);
            }
        } finally {
            h.lock.unlock();
        }
        if (null != log) {
            log.closed.join();
        }
        Path file = h.dir.resolve(LogFormat.fileName(version));
        try {
            if (Files.deleteIfExists(file) && durability == Durability.FSYNC) {
                FileUtil.fsyncDirectoryQuietly(files, h.dir);
                fsyncs.increment();
            }
        } catch (IOException e) {
            throw new StorageException("cannot delete write log " + file + ": " + e, e);
        }
    }

    @Override
    public CompletableFuture<Void> resumeAppends(String bucket, String key) {
        ResourceId id = new ResourceId(bucket, key);
        Held h = held.get(id);
        if (null == h) {
            throw notLocked("resumeAppends", id);
        }
        StorageException seen;
        List<CompletableFuture<Void>> repaired = new ArrayList<>();
        h.lock.lock();
        try {
            if (!h.locked) {
                throw notLocked("resumeAppends", id);
            }
            seen = h.failure;
            for (OpenLog log : h.logs.values()) {
                CompletableFuture<Void> done = new CompletableFuture<>();
                log.queue.add(Pending.resume(done));
                repaired.add(done);
            }
        } finally {
            h.lock.unlock();
        }
        return CompletableFuture.allOf(repaired.toArray(CompletableFuture[]::new)).thenRun(() -> {
            h.lock.lock();
            try {
                if (h.failure == seen && null != seen) {
                    h.failure = null;
                    LOG.info("write logs of {} accept appends again", id);
                }
            } finally {
                h.lock.unlock();
            }
        });
    }

    @Override
    public List<Long> list(String bucket, String key) {
        return listVersions(directory(new ResourceId(bucket, key)), LogFormat.SUFFIX, "write logs");
    }

    @Override
    public void lock(String bucket, String key) {
        ResourceId id = new ResourceId(bucket, key);
        if (closed.get()) {
            throw new IllegalStateException("lock " + id + ": this storage is closed");
        }
        Held h = new Held(id, directory(id));
        if (null != held.putIfAbsent(id, h)) {
            throw new ResourceLockedException("resource " + id + " is already locked by this storage");
        }
        Path lockFile = null;
        FileChannel ch = null;
        boolean ok = false;
        try {
            Files.createDirectories(h.dir);
            lockFile = h.dir.toRealPath().resolve(LOCK_FILE);
            if (null != JVM_LOCKS.putIfAbsent(lockFile, id)) {
                lockFile = null;
                throw new ResourceLockedException("resource " + id
                        + " is locked by another storage instance in this process (same data directory)");
            }
            ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock fileLock;
            try {
                fileLock = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                throw new ResourceLockedException("resource " + id + " is locked in this process", e);
            }
            if (null == fileLock) {
                throw new ResourceLockedException("resource " + id + " is locked by another process"
                        + holder(ch) + " (lock file " + lockFile + ")");
            }
            byte[] pid = ("pid " + ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
            ch.truncate(0);
            FileUtil.writeFully(ch, ByteBuffer.wrap(pid), 0);
            h.lock.lock();
            try {
                h.lockFile = lockFile;
                h.lockChannel = ch;
                h.fileLock = fileLock;
                h.locked = true;
            } finally {
                h.lock.unlock();
            }
            ok = true;
            LOG.debug("locked {}", id);
        } catch (IOException e) {
            throw new StorageException("cannot lock resource " + id + " in " + h.dir + ": " + e, e);
        } finally {
            if (!ok) {
                FileUtil.closeQuietly(ch);
                if (null != lockFile) {
                    JVM_LOCKS.remove(lockFile, id);
                }
                held.remove(id, h);
            }
        }
    }

    @Override
    public void unlock(String bucket, String key) {
        ResourceId id = new ResourceId(bucket, key);
        Held h = held.get(id);
        if (null == h) {
            throw notLocked("unlock", id);
        }
        List<OpenLog> logs;
        FileChannel ch;
        FileLock fileLock;
        Path lockFile;
        h.lock.lock();
        try {
            if (!h.locked) {
                throw notLocked("unlock", id);
            }
            h.locked = false;
            logs = new ArrayList<>(h.logs.values());
            h.logs.clear();
            logs.forEach(log -> log.queue.add(CLOSE));
            ch = h.lockChannel;
            fileLock = h.fileLock;
            lockFile = h.lockFile;
        } finally {
            h.lock.unlock();
        }
        try {
            logs.forEach(log -> log.closed.join());
            try {
                fileLock.release();
            } catch (IOException e) {
                LOG.warn("releasing the lock of {} failed (closing its file releases it): {}", id, e.toString());
            }
            FileUtil.closeQuietly(ch);
        } finally {
            JVM_LOCKS.remove(lockFile, id);
            held.remove(id, h);
        }
        LOG.debug("unlocked {}", id);
    }

    /** Releases every lock this service holds, after the pending appends are written. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (ResourceId id : List.copyOf(held.keySet())) {
            try {
                unlock(id.bucket(), id.key());
            } catch (IllegalStateException e) {
                LOG.debug("not unlocking {} on close: {}", id, e.getMessage());
            }
        }
    }

    private Path directory(ResourceId id) {
        return root.resolve(id.relativeDirectory());
    }

    private OpenLog openLog(ResourceId id, long version) {
        Held h = held.get(id);
        if (null == h) {
            return null;
        }
        h.lock.lock();
        try {
            return h.logs.get(version);
        } finally {
            h.lock.unlock();
        }
    }

    static long checkVersion(long version) {
        if (version < 0) {
            throw new IllegalArgumentException("version must be >= 0, not " + version);
        }
        return version;
    }

    static List<Long> listVersions(Path dir, String suffix, String what) {
        List<Long> versions = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                long v = LogFormat.parseVersion(f.getFileName().toString(), suffix);
                if (v >= 0) {
                    versions.add(v);
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new StorageException("cannot list " + what + " in " + dir + ": " + e, e);
        }
        versions.sort(null);
        return versions;
    }

    /** @return whether bytes {@code [from, to)} of the file are all zero (as many of them as the file has) */
    private static boolean zeros(FileChannel ch, long from, long to) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(ZEROS.capacity());
        for (long at = from; at < to; at += b.capacity()) {
            b.clear().limit((int) Math.min(b.capacity(), to - at));
            boolean whole = FileUtil.readFully(ch, b, at);
            b.flip();
            if (b.mismatch(ZEROS.duplicate().limit(b.limit())) >= 0) {
                return false;
            }
            if (!whole) {
                return true;
            }
        }
        return true;
    }

    private static IllegalStateException notLocked(String operation, ResourceId id) {
        return new IllegalStateException(operation + " requires the lock of resource " + id
                + ", which this storage does not hold: call lock(bucket, key) first");
    }

    private static String holder(FileChannel ch) {
        try {
            ByteBuffer buf = ByteBuffer.allocate(64);
            ch.read(buf, 0);
            String text = new String(buf.array(), 0, buf.position(), StandardCharsets.US_ASCII).trim();
            return text.isEmpty() ? "" : " (" + text + ")";
        } catch (IOException e) {
            return "";
        }
    }

    static void checkHeader(FileChannel ch, Path file) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(LogFormat.HEADER_BYTES);
        if (!FileUtil.readFully(ch, header, 0)) {
            throw new CorruptedDataException("write log " + file + " has no complete header");
        }
        int magic = header.getInt(0);
        int format = header.getInt(4);
        if (magic != LogFormat.MAGIC || format != LogFormat.FORMAT_VERSION) {
            throw new CorruptedDataException(String.format(
                    "%s is not a Sluice write log of format %d (magic %08x, format %d)",
                    file, LogFormat.FORMAT_VERSION, magic, format));
        }
    }

    /** A framed record waiting for its commit, or (with no record) a request to resume after a failure. */
    private record Pending(ByteBuffer record, CompletableFuture<Void> done) {
        static Pending resume(CompletableFuture<Void> done) {
            return new Pending(null, done);
        }

        boolean isResume() {
            return null == record;
        }
    }

    /** A resource whose lock this service holds (or is taking). */
    private static final class Held {
        final ResourceId id;
        final Path dir;
        final ReentrantLock lock = new ReentrantLock();
        /** Guarded by {@code lock}: true from a successful lock() until unlock() begins. */
        boolean locked;
        /** Guarded by {@code lock}: logs open for appending, by version. */
        final Map<Long, OpenLog> logs = new HashMap<>();
        /** Guarded by {@code lock}. */
        Path lockFile;
        /** Guarded by {@code lock}. */
        FileChannel lockChannel;
        /** Guarded by {@code lock}. */
        FileLock fileLock;
        /** The first failure of an append to any of the resource's logs, until {@link #resumeAppends} clears it. */
        volatile StorageException failure;

        Held(ResourceId id, Path dir) {
            this.id = id;
            this.dir = dir;
        }
    }

    /** One log open for appending: its queue and its committer thread. */
    private final class OpenLog implements Runnable {
        final Held owner;
        final long version;
        final Path file;
        final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
        final CompletableFuture<Void> closed = new CompletableFuture<>();
        /** Bytes a reader in this process may read (written, and forced under FSYNC); -1 until recovered. */
        volatile long readableLength = -1;
        // Confined to the committer thread:
        private FileChannel channel;
        private StorageException failure;
        /** Whether {@link #open} completed (the header is written or checked, a torn tail truncated). */
        private boolean opened;
        /** Whether this log created its file and has not yet forced the directory entry (kept across a failed open). */
        private boolean directoryUnsynced;
        private long end;
        /** The file's length as this committer made it: {@link #end} plus zeroed space after it (FSYNC only). */
        private long allocated;

        OpenLog(Held owner, long version) {
            this.owner = owner;
            this.version = version;
            this.file = owner.dir.resolve(LogFormat.fileName(version));
        }

        void start() {
            Threads.startVirtual("sluice-wal-" + owner.id + "-" + version, this);
        }

        @Override
        public void run() {
            try {
                open();
            } catch (StorageException e) {
                fail(e);
                LOG.error("cannot open write log {}: {}", file, e.getMessage());
            } catch (IOException | RuntimeException e) {
                fail(new StorageException("cannot open write log " + file + ": " + e, e));
                LOG.error("cannot open write log {}: {}", file, e.toString());
            }
            List<Pending> batch = new ArrayList<>();
            boolean closing = false;
            try {
                while (!closing) {
                    batch.clear();
                    batch.add(takeUninterruptibly());
                    queue.drainTo(batch);
                    if (batch.getLast() == CLOSE) {
                        // unlock/deleteLog enqueue CLOSE last, after removing this log from the map
                        batch.removeLast();
                        closing = true;
                    }
                    process(batch);
                }
            } finally {
                trimReserve();
                FileUtil.closeQuietly(channel);
                closed.complete(null);
            }
        }

        private Pending takeUninterruptibly() {
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        return queue.take();
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private void open() throws IOException {
            channel = files.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            long size = channel.size();
            if (size < LogFormat.HEADER_BYTES) {
                if (size > 0) {
                    LOG.warn("write log {}: torn header, truncated {} bytes and wrote it again", file, size);
                    droppedTailBytes.add(size);
                    channel.truncate(0);
                }
                FileUtil.writeFully(channel, LogFormat.header(), 0);
                end = LogFormat.HEADER_BYTES;
                if (durability == Durability.FSYNC) {
                    channel.force(true);
                    fsyncs.increment();
                    directoryUnsynced = true;
                }
            } else {
                checkHeader(channel, file);
                RecordScanner scanner = new RecordScanner(channel, LogFormat.HEADER_BYTES, () -> size);
                while (null != scanner.next()) {
                    // read to the last good record
                }
                end = scanner.position();
                if (end < size) {
                    if (zeros(channel, end, size)) {
                        LOG.info("write log {}: truncated {} bytes of zeros after the last record at offset {} (space"
                                + " reserved before a crash, or a torn tail that wrote nothing)", file, size - end, end);
                    } else {
                        LOG.warn("write log {}: torn tail ({} at offset {}), truncated {} bytes", file,
                                scanner.stop(), end, size - end);
                    }
                    channel.truncate(end);
                    if (durability == Durability.FSYNC) {
                        channel.force(true);
                        fsyncs.increment();
                    }
                    droppedTailBytes.add(size - end);
                }
            }
            if (directoryUnsynced) {
                // the new file's directory entry: until it is durable nothing in the file is (a failure here fails
                // the appends, and the log's repair opens it again and retries this)
                FileUtil.fsyncDirectory(files, owner.dir);
                fsyncs.increment();
                directoryUnsynced = false;
            }
            channel.position(end);
            allocated = end;
            readableLength = end;
            opened = true;
        }

        /** Commits the batch's records in order; a resume request takes effect where it is in the queue. */
        private void process(List<Pending> batch) {
            int from = 0;
            for (int i = 0; i < batch.size(); i++) {
                if (batch.get(i).isResume()) {
                    if (i > from) {
                        commit(batch.subList(from, i));
                    }
                    resume(batch.get(i).done());
                    from = i + 1;
                }
            }
            if (from < batch.size()) {
                commit(batch.subList(from, batch.size()));
            }
        }

        private void commit(List<Pending> batch) {
            StorageException failed = null != failure ? failure : owner.failure;
            if (null != failed) {
                batch.forEach(p -> p.done().completeExceptionally(failed));
                return;
            }
            ByteBuffer[] buffers = new ByteBuffer[batch.size()];
            long total = 0;
            for (int i = 0; i < buffers.length; i++) {
                buffers[i] = batch.get(i).record();
                total += buffers[i].remaining();
            }
            ServerMetrics timing = metrics;
            long started = timing == ServerMetrics.NONE ? 0 : System.nanoTime();
            try {
                if (durability == Durability.FSYNC) {
                    reserve(end + total);
                }
                long written = 0;
                while (written < total) {
                    written += channel.write(buffers);
                }
                if (durability == Durability.FSYNC) {
                    forceHook.beforeForce();
                    channel.force(true);
                    fsyncs.increment();
                }
                if (timing != ServerMetrics.NONE) {
                    timing.durableFlush(System.nanoTime() - started);
                }
            } catch (IOException | RuntimeException e) {
                fail(new StorageException("writing write log " + file + " failed; its resource accepts no more"
                        + " appends until resumeAppends() repairs it: " + e, e));
                LOG.error("writing write log {} failed: {}", file, e.toString());
                // what the failed write left after the last durable record must not stay in the log; cut it off
                // before the appenders hear of the failure
                try {
                    cutBackToEnd();
                } catch (IOException | RuntimeException again) {
                    LOG.warn("write log {}: cannot truncate the failed batch yet (retried on resume): {}", file,
                            again.toString());
                }
                batch.forEach(p -> p.done().completeExceptionally(failure));
                return;
            }
            end += total;
            allocated = Math.max(allocated, end); // appended past the space ahead when there was no room for it
            readableLength = end;
            batch.forEach(p -> p.done().complete(null));
        }

        private void fail(StorageException e) {
            failure = e;
            owner.lock.lock();
            try {
                if (null == owner.failure) {
                    owner.failure = e;
                }
            } finally {
                owner.lock.unlock();
            }
        }

        /** Truncates the file to the last durable record and forces that (the file may have grown past it). */
        private void cutBackToEnd() throws IOException {
            if (channel.size() > end) {
                channel.truncate(end);
                channel.force(true);
                fsyncs.increment();
            }
            allocated = end;
            channel.position(end);
        }

        /**
         * Makes the file at least {@code needed} bytes long with zeros past {@link #end}, {@link #RESERVE_BYTES} more
         * than that when it grows, so the records written next land in space the file has. Forced with those records.
         * Where the disk has no room for the zeros, it gives back what it wrote of them and leaves the records to be
         * appended (a write that fails then fails as it would have).
         */
        private void reserve(long needed) {
            if (needed <= allocated) {
                return;
            }
            long target = needed + RESERVE_BYTES;
            long at = allocated; // never before end: the file holds at least the records
            try {
                while (at < target) {
                    int n = (int) Math.min(ZEROS.capacity(), target - at);
                    FileUtil.writeFully(channel, ZEROS.duplicate().limit(n), at);
                    at += n;
                }
                allocated = target;
            } catch (IOException | RuntimeException e) {
                LOG.debug("write log {}: no room for {} bytes of space ahead ({}); appending", file, target - allocated,
                        e.toString());
                try {
                    channel.truncate(allocated);
                } catch (IOException | RuntimeException again) {
                    LOG.debug("write log {}: giving the space back failed: {}", file, again.toString());
                }
            }
        }

        /** When the log closes: cuts off the zeroed space after the last record (a crash leaves it to recovery). */
        private void trimReserve() {
            if (!opened || channel == null || allocated <= end || !channel.isOpen()) {
                return;
            }
            try {
                channel.truncate(end);
                allocated = end;
            } catch (IOException | RuntimeException e) {
                LOG.debug("write log {}: cutting off the space ahead failed ({}); recovery will", file, e.toString());
            }
        }

        /**
         * Repairs this log after a failure: opens it again if opening failed, drops whatever failed writes left after
         * the last durable record, and checks that the disk takes {@link #PROBE_BYTES} more bytes (written, forced
         * and truncated away again). A log that has not failed has nothing to do.
         */
        private void resume(CompletableFuture<Void> done) {
            if (null == failure) {
                done.complete(null);
                return;
            }
            try {
                if (!opened) {
                    FileUtil.closeQuietly(channel);
                    channel = null;
                    open();
                }
                cutBackToEnd();
                FileUtil.writeFully(channel, ByteBuffer.allocate(PROBE_BYTES), end);
                channel.force(true);
                channel.truncate(end);
                channel.force(true);
                fsyncs.add(2);
                allocated = end;
                channel.position(end);
            } catch (IOException | RuntimeException e) {
                if (opened) {
                    try {
                        cutBackToEnd();
                    } catch (IOException | RuntimeException again) {
                        LOG.debug("write log {}: truncating after a failed probe failed too: {}", file,
                                again.toString());
                    }
                }
                done.completeExceptionally(new StorageException("write log " + file + " still cannot be written: "
                        + e, e));
                return;
            }
            LOG.info("write log {} repaired at offset {}", file, end);
            failure = null;
            done.complete(null);
        }
    }

    /** Reads a log file; see {@link LogReader}. */
    private static final class FileLogReader implements LogReader {
        private final Path file;
        private final FileChannel channel;
        private final RecordScanner scanner;

        FileLogReader(Path file, FileChannel channel, RecordScanner scanner) {
            this.file = file;
            this.channel = channel;
            this.scanner = scanner;
        }

        @Override
        public byte[] next() {
            try {
                return scanner.next();
            } catch (IOException e) {
                throw new StorageException("cannot read write log " + file + ": " + e, e);
            }
        }

        @Override
        public long position() {
            return scanner.position();
        }

        @Override
        public void close() {
            FileUtil.closeQuietly(channel);
        }
    }
}
