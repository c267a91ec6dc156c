package io.sluice.storage;

import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state of one resource (bucket, key) as one owner sees it while it loads, takes over and writes the resource:
 * the latest snapshot plus the write logs after it. Modelled on FeatureBase DAX's {@code storage.Resource}; this
 * class enforces its call order.
 *
 * <h2>The call order</h2>
 * <ol>
 *   <li>{@link #loadLatestSnapshot()}: the state starts from the newest snapshot (or from nothing).</li>
 *   <li>{@link #loadWriteLog()}: every message in the logs newer than that snapshot, oldest log first. Each call
 *       returns only messages no earlier call returned.</li>
 *   <li>{@link #lock()}: exclusive ownership. Fails with {@link ResourceLockedException} while someone else holds
 *       the lock, and with {@link StaleStateException} if a snapshot was written since step 1 (start over).</li>
 *   <li>{@link #loadWriteLog()} again: what was written between step 2 and the lock.</li>
 *   <li>{@link #append}/{@link #appendAsync} messages; from time to time {@link #incrementWriteLogVersion()} (new
 *       appends go to the next log) and then {@link #snapshot}/{@link #snapshotTo} of the state as it was at the
 *       increment: the snapshot is stored at the previous log version, after which the logs it covers (and older
 *       snapshots) are deleted.</li>
 *   <li>{@link #unlock()}: hands the resource over; this instance is then finished.</li>
 * </ol>
 * Every call out of order throws an {@link IllegalStateException} naming the rule it breaks:
 * <ul>
 *   <li>{@code loadLatestSnapshot} is allowed only before {@code lock} (it may be repeated to start over);</li>
 *   <li>{@code loadWriteLog} requires {@code loadLatestSnapshot} first, and is not allowed once this instance has
 *       written (appended, incremented or snapshotted): its state already holds everything in the log;</li>
 *   <li>{@code lock} requires {@code loadLatestSnapshot} first (it checks the snapshot state against what was
 *       loaded), and is not allowed while locked; after a {@link StaleStateException} it requires
 *       {@code loadLatestSnapshot} again;</li>
 *   <li>{@code append}, {@code appendAsync} and {@code incrementWriteLogVersion} require {@code lock} and then
 *       {@code loadWriteLog};</li>
 *   <li>{@code snapshot} and {@code snapshotTo} require the same, and an {@code incrementWriteLogVersion} since
 *       the last snapshot; one at a time;</li>
 *   <li>{@code unlock} requires {@code lock}; nothing is allowed after {@code unlock}.</li>
 * </ul>
 *
 * <p>The caller keeps its state and the log consistent: a message is applied to the state and appended together,
 * and the snapshot state is captured at the {@code incrementWriteLogVersion} call (every message appended before the
 * increment is in the snapshot, none after it). This class guarantees the log side: an append that returned before
 * the increment began is in the previous log, one that started after it is in the next.
 *
 * <p>Thread-safety: the instance's bookkeeping is guarded by a lock (never held during I/O), so
 * {@code append}/{@code appendAsync} may be called from many threads at once and alongside a snapshot being written;
 * the other methods are steps of one sequence, called in order. Methods block on I/O unless stated otherwise.
 */
public final class ServerlessStorage {
    private static final Logger LOG = LoggerFactory.getLogger(ServerlessStorage.class);
    private static final String ORDER =
            "the order is loadLatestSnapshot, loadWriteLog, lock, loadWriteLog, then append";

    private enum Phase { NEW, LOADED, LOCKED, CLOSED }

    private final SnapshotService snapshots;
    private final WriteLogService writeLog;
    private final String bucket;
    private final String key;
    private final String name;

    private final ReentrantLock stateLock = new ReentrantLock();
    /**
     * Appends hold the read side from their state check until their message is enqueued (enqueueing does no I/O);
     * incrementWriteLogVersion and unlock take the write side. So an append that returned before the increment began
     * is in the previous log, and none can slip into a log that a snapshot is about to delete.
     */
    private final ReentrantReadWriteLock appendGate = new ReentrantReadWriteLock();
    /** Guarded by {@code stateLock}. */
    private Phase phase = Phase.NEW;
    /** Guarded by {@code stateLock}: the snapshot the state is based on (loaded, or written by this instance); -1 for none. */
    private long snapshotVersion = -1;
    /** Guarded by {@code stateLock}: loadWriteLog has returned everything before (cursorVersion, cursorPosition). */
    private long cursorVersion;
    /** Guarded by {@code stateLock}: a byte offset in log cursorVersion; 0 for its start. */
    private long cursorPosition;
    /** Guarded by {@code stateLock}. */
    private boolean logLoadedSinceLock;
    /** Guarded by {@code stateLock}: this instance has appended, incremented or snapshotted. */
    private boolean writing;
    /** Guarded by {@code stateLock}: the log version appends go to; -1 until loadWriteLog after lock. */
    private long writeVersion = -1;
    /** Guarded by {@code stateLock}. */
    private boolean lockInProgress;
    /** Guarded by {@code stateLock}. */
    private boolean snapshotInProgress;

    /**
     * Creates the state holder of resource (bucket, key). Does no I/O.
     *
     * @throws IllegalArgumentException if a name is not valid (see {@link WriteLogService})
     */
    public ServerlessStorage(SnapshotService snapshots, WriteLogService writeLog, String bucket, String key) {
        this.snapshots = Objects.requireNonNull(snapshots, "snapshots");
        this.writeLog = Objects.requireNonNull(writeLog, "writeLog");
        this.name = new ResourceId(bucket, key).toString();
        this.bucket = bucket;
        this.key = key;
    }

    /** @return the resource's bucket */
    public String bucket() {
        return bucket;
    }

    /** @return the resource's key */
    public String key() {
        return key;
    }

    /** @return whether this instance holds the resource's lock. Does not block. */
    public boolean isLocked() {
        stateLock.lock();
        try {
            return phase == Phase.LOCKED;
        } finally {
            stateLock.unlock();
        }
    }

    /** @return the version of the snapshot the state is based on, or -1 if none. Does not block. */
    public long snapshotVersion() {
        stateLock.lock();
        try {
            return snapshotVersion;
        } finally {
            stateLock.unlock();
        }
    }

    /** @return the log version appends go to, or -1 before {@code loadWriteLog} after {@code lock}. Does not block. */
    public long writeLogVersion() {
        stateLock.lock();
        try {
            return writeVersion;
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * Step 1: opens the newest snapshot and positions the log cursor just after it.
     *
     * @return the snapshot's bytes (the caller closes the stream), or empty if there is none
     * @throws IllegalStateException if called after {@code lock}
     * @throws CorruptedDataException if the newest snapshot fails its checks
     * @throws StorageException if listing or opening fails
     */
    public Optional<InputStream> loadLatestSnapshot() {
        stateLock.lock();
        try {
            requireBeforeLock("loadLatestSnapshot");
        } finally {
            stateLock.unlock();
        }
        List<Long> versions = snapshots.list(bucket, key);
        long latest = versions.isEmpty() ? -1 : versions.getLast();
        InputStream data = latest < 0 ? null : snapshots.read(bucket, key, latest);
        stateLock.lock();
        try {
            requireBeforeLock("loadLatestSnapshot");
            phase = Phase.LOADED;
            snapshotVersion = latest;
            cursorVersion = latest + 1;
            cursorPosition = 0;
        } catch (IllegalStateException e) {
            FileUtil.closeQuietly(data);
            throw e;
        } finally {
            stateLock.unlock();
        }
        LOG.debug("{}: loaded snapshot version {}", name, latest);
        return Optional.ofNullable(data);
    }

    /**
     * Steps 2 and 4: returns a reader of the messages written since the snapshot that no earlier call returned, in
     * order across every log newer than the snapshot. A message counts as returned once the reader's
     * {@code next()} has returned it; read one reader to its end before calling again.
     *
     * @return the reader (possibly empty); the caller closes it
     * @throws IllegalStateException before {@code loadLatestSnapshot}, or once this instance has written
     * @throws StaleStateException if a log this instance was reading was deleted meanwhile
     * @throws StorageException if listing fails (reading may fail later, from the reader)
     */
    public LogReader loadWriteLog() {
        long snap;
        long fromVersion;
        long fromPosition;
        stateLock.lock();
        try {
            switch (phase) {
                case NEW -> throw misuse("loadWriteLog requires loadLatestSnapshot() first: " + ORDER);
                case CLOSED -> throw closed("loadWriteLog");
                case LOADED, LOCKED -> { }
            }
            if (writing) {
                throw misuse("loadWriteLog is not allowed once this instance has appended, incremented the log "
                        + "version or snapshotted: its state already holds everything in the log");
            }
            snap = snapshotVersion;
            fromVersion = cursorVersion;
            fromPosition = cursorPosition;
        } finally {
            stateLock.unlock();
        }
        List<Long> versions = writeLog.list(bucket, key).stream().filter(v -> v > snap).toList();
        if (fromPosition > 0 && !versions.contains(fromVersion)) {
            throw new StaleStateException("resource " + name + ": write log version " + fromVersion
                    + " was deleted after it was read; load the latest snapshot and the write log again");
        }
        ArrayDeque<Long> toRead = new ArrayDeque<>(versions.stream().filter(v -> v >= fromVersion).toList());
        stateLock.lock();
        try {
            if (phase == Phase.LOCKED) {
                logLoadedSinceLock = true;
                writeVersion = versions.isEmpty() ? snap + 1 : Math.max(versions.getLast(), snap + 1);
            }
        } finally {
            stateLock.unlock();
        }
        return new CursorReader(toRead, fromVersion, fromPosition);
    }

    /**
     * Step 3: takes the resource's exclusive lock, then checks that the newest snapshot is still the one loaded.
     * Also deletes logs and snapshots that the loaded snapshot makes obsolete (left over by a crash).
     *
     * @throws IllegalStateException before {@code loadLatestSnapshot}, or when already locked
     * @throws ResourceLockedException if someone else holds the lock (retrying later may succeed)
     * @throws StaleStateException if a snapshot was written since loading; the lock is released and
     *         {@code loadLatestSnapshot} must be called again
     * @throws StorageException if locking fails
     */
    public void lock() {
        long snap;
        stateLock.lock();
        try {
            switch (phase) {
                case NEW -> throw misuse("lock requires loadLatestSnapshot() first (the lock checks that the snapshot"
                        + " state has not changed since it was loaded): " + ORDER);
                case LOCKED -> throw misuse("lock: this instance already holds the lock");
                case CLOSED -> throw closed("lock");
                case LOADED -> { }
            }
            if (lockInProgress) {
                throw misuse("lock: another lock() call on this instance is in progress");
            }
            lockInProgress = true;
            snap = snapshotVersion;
        } finally {
            stateLock.unlock();
        }
        try {
            writeLog.lock(bucket, key);
            boolean ok = false;
            try {
                List<Long> snaps = snapshots.list(bucket, key);
                long latest = snaps.isEmpty() ? -1 : snaps.getLast();
                if (latest != snap) {
                    throw new StaleStateException("resource " + name + ": snapshot version " + latest
                            + " was written after version " + snap + " was loaded; load the latest snapshot and the"
                            + " write log again");
                }
                deleteObsolete(snap, snaps);
                ok = true;
            } finally {
                if (!ok) {
                    unlockQuietly();
                }
            }
            stateLock.lock();
            try {
                phase = Phase.LOCKED;
                logLoadedSinceLock = false;
            } finally {
                stateLock.unlock();
            }
            LOG.debug("{}: locked", name);
        } catch (StaleStateException e) {
            stateLock.lock();
            try {
                phase = Phase.NEW;
            } finally {
                stateLock.unlock();
            }
            throw e;
        } finally {
            stateLock.lock();
            try {
                lockInProgress = false;
            } finally {
                stateLock.unlock();
            }
        }
    }

    /**
     * Step 5: appends a message to the current write log and blocks until it is durable.
     *
     * @throws IllegalStateException unless locked and loaded after the lock
     * @throws StorageException if writing fails
     * @throws io.sluice.errors.StreamingInterruptedException if interrupted while waiting
     */
    public void append(byte[] msg) {
        Futures.await(appendAsync(msg), "append to " + name);
    }

    /**
     * Step 5: enqueues a message for the current write log; does not wait for the disk. Messages are written in
     * the order of the calls.
     *
     * @return completes when the message is durable, or exceptionally with a {@link StorageException}
     * @throws IllegalStateException (at once) unless locked and loaded after the lock
     */
    public CompletableFuture<Void> appendAsync(byte[] msg) {
        Objects.requireNonNull(msg, "msg");
        appendGate.readLock().lock();
        try {
            long version;
            stateLock.lock();
            try {
                requireReady("append");
                writing = true;
                version = writeVersion;
            } finally {
                stateLock.unlock();
            }
            return writeLog.appendMessageAsync(bucket, key, version, msg);
        } finally {
            appendGate.readLock().unlock();
        }
    }

    /**
     * After an append failed (a full disk, an I/O error): makes the write log accept appends again, once it can. Until
     * then every append fails, in order, so none made after a failed one is written while the caller has not seen the
     * failure. See {@link WriteLogService#resumeAppends}. Does not wait for the disk.
     *
     * @return completes when appends are accepted again, or exceptionally with a {@link StorageException} if the log
     *         still cannot be written (call again later)
     * @throws IllegalStateException unless locked and loaded after the lock
     */
    public CompletableFuture<Void> resumeAppends() {
        stateLock.lock();
        try {
            requireReady("resumeAppends");
        } finally {
            stateLock.unlock();
        }
        return writeLog.resumeAppends(bucket, key);
    }

    /**
     * Starts the next write log: appends after this call go to it, and the next snapshot is stored at the version
     * before it. Appends that returned before this call began are in the previous log; concurrent {@code appendAsync}
     * calls finish enqueueing first. Capture the state to snapshot at the same moment. Does no I/O.
     *
     * @return the new write-log version
     * @throws IllegalStateException unless locked and loaded after the lock
     */
    public long incrementWriteLogVersion() {
        appendGate.writeLock().lock();
        try {
            stateLock.lock();
            try {
                requireReady("incrementWriteLogVersion");
                writing = true;
                writeVersion++;
                return writeVersion;
            } finally {
                stateLock.unlock();
            }
        } finally {
            appendGate.writeLock().unlock();
        }
    }

    /**
     * Stores the state captured at the last {@link #incrementWriteLogVersion()} as the snapshot at the previous log
     * version, then deletes the logs it covers and older snapshots. {@code data} is read to its end, not closed.
     *
     * @return the snapshot's version
     * @throws IllegalStateException unless locked and loaded after the lock, and incremented since the last snapshot
     * @throws StorageException if storing fails (nothing changed then); failures to delete obsolete files are logged
     *         and retried by later snapshots and locks
     */
    public long snapshot(InputStream data) {
        Objects.requireNonNull(data, "data");
        return snapshotTo(data::transferTo);
    }

    /**
     * Like {@link #snapshot(InputStream)}, with the snapshot's bytes written by {@code writer}.
     *
     * @return the snapshot's version
     */
    public long snapshotTo(SnapshotWriter writer) {
        Objects.requireNonNull(writer, "writer");
        long version;
        stateLock.lock();
        try {
            requireReady("snapshot");
            if (snapshotInProgress) {
                throw misuse("snapshot: another snapshot of this resource is being written");
            }
            version = writeVersion - 1;
            if (version <= snapshotVersion) {
                throw misuse("snapshot requires incrementWriteLogVersion() since the last snapshot (version "
                        + snapshotVersion + "): the snapshot is stored at the log version before the current one ("
                        + writeVersion + ")");
            }
            snapshotInProgress = true;
            writing = true;
        } finally {
            stateLock.unlock();
        }
        try {
            snapshots.writeTo(bucket, key, version, writer);
            stateLock.lock();
            try {
                snapshotVersion = version;
            } finally {
                stateLock.unlock();
            }
            LOG.debug("{}: wrote snapshot version {}", name, version);
            deleteObsolete(version, null);
            return version;
        } finally {
            stateLock.lock();
            try {
                snapshotInProgress = false;
            } finally {
                stateLock.unlock();
            }
        }
    }

    /**
     * Step 6: releases the lock, after every append already made is written. This instance is finished.
     *
     * @throws IllegalStateException unless locked, or while a snapshot is being written
     */
    public void unlock() {
        appendGate.writeLock().lock();
        try {
            stateLock.lock();
            try {
                switch (phase) {
                    case NEW, LOADED -> throw misuse("unlock requires lock() first");
                    case CLOSED -> throw closed("unlock");
                    case LOCKED -> { }
                }
                if (snapshotInProgress) {
                    throw misuse("unlock while a snapshot is being written: wait for snapshot() to return");
                }
                phase = Phase.CLOSED;
            } finally {
                stateLock.unlock();
            }
        } finally {
            appendGate.writeLock().unlock();
        }
        writeLog.unlock(bucket, key);
        LOG.debug("{}: unlocked", name);
    }

    @Override
    public String toString() {
        return "ServerlessStorage[" + name + "]";
    }

    /** Deletes logs at or below {@code snap} and snapshots below it; logs what it cannot delete. */
    private void deleteObsolete(long snap, List<Long> knownSnapshots) {
        if (snap < 0) {
            return;
        }
        try {
            for (long v : writeLog.list(bucket, key)) {
                if (v <= snap) {
                    writeLog.deleteLog(bucket, key, v);
                }
            }
            for (long v : null == knownSnapshots ? snapshots.list(bucket, key) : knownSnapshots) {
                if (v < snap) {
                    snapshots.delete(bucket, key, v);
                }
            }
        } catch (StorageException e) {
            LOG.warn("{}: could not delete files that snapshot {} makes obsolete (retried later): {}", name, snap,
                    e.getMessage());
        }
    }

    private void unlockQuietly() {
        try {
            writeLog.unlock(bucket, key);
        } catch (RuntimeException e) {
            LOG.warn("{}: releasing the lock after a failed lock() failed: {}", name, e.toString());
        }
    }

    /** Called with {@code lock} held. */
    private void requireBeforeLock(String operation) {
        switch (phase) {
            case LOCKED -> throw misuse(operation + " is only allowed before lock(): " + ORDER);
            case CLOSED -> throw closed(operation);
            case NEW, LOADED -> { }
        }
        if (lockInProgress) {
            throw misuse(operation + " is only allowed before lock(), and lock() is in progress");
        }
    }

    /** Called with {@code lock} held. */
    private void requireReady(String operation) {
        switch (phase) {
            case NEW, LOADED -> throw misuse(operation + " requires lock() (and loadWriteLog() after it): " + ORDER);
            case CLOSED -> throw closed(operation);
            case LOCKED -> { }
        }
        if (!logLoadedSinceLock) {
            throw misuse(operation + " requires loadWriteLog() after lock(), to pick up what was written before the"
                    + " lock was taken: " + ORDER);
        }
    }

    private IllegalStateException misuse(String rule) {
        return new IllegalStateException(name + ": " + rule);
    }

    private IllegalStateException closed(String operation) {
        return new IllegalStateException(name + ": " + operation + " after unlock(): this instance is finished;"
                + " create a new one to take the resource again");
    }

    /** Moves the cursor forward to just after a returned message. */
    private void advance(long version, long position) {
        stateLock.lock();
        try {
            if (version > cursorVersion || (version == cursorVersion && position > cursorPosition)) {
                cursorVersion = version;
                cursorPosition = position;
            }
        } finally {
            stateLock.unlock();
        }
    }

    /** Reads the listed logs in order, from the cursor, moving the cursor as it returns messages. */
    private final class CursorReader implements LogReader {
        private final ArrayDeque<Long> versions;
        private final long startVersion;
        private final long startPosition;
        private LogReader current;
        private long currentVersion = -1;
        private long position;

        CursorReader(ArrayDeque<Long> versions, long startVersion, long startPosition) {
            this.versions = versions;
            this.startVersion = startVersion;
            this.startPosition = startPosition;
            this.position = startPosition;
        }

        @Override
        public byte[] next() {
            while (true) {
                if (null == current) {
                    Long v = versions.poll();
                    if (null == v) {
                        return null;
                    }
                    currentVersion = v;
                    current = v == startVersion && startPosition > 0
                            ? writeLog.logReaderFrom(bucket, key, v, startPosition)
                            : writeLog.logReader(bucket, key, v);
                }
                byte[] msg = current.next();
                if (null != msg) {
                    position = current.position();
                    advance(currentVersion, position);
                    return msg;
                }
                if (versions.isEmpty()) {
                    return null;
                }
                current.close();
                current = null;
            }
        }

        @Override
        public long position() {
            return position;
        }

        @Override
        public void close() {
            if (null != current) {
                current.close();
                current = null;
            }
            versions.clear();
        }
    }
}
