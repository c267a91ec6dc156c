package io.sluice.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.sluice.common.Retry;
import io.sluice.common.Threads;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.server.controller.ControllerEvent;
import io.sluice.server.controller.ControllerEventCodec;
import io.sluice.server.controller.ControllerStore;
import io.sluice.storage.ChunkStore;
import io.sluice.storage.Durability;
import io.sluice.storage.FileOpener;
import io.sluice.storage.LocalStorage;
import io.sluice.storage.LogReader;
import io.sluice.storage.ResourceLockedException;
import io.sluice.storage.ServerlessStorage;
import io.sluice.storage.StaleStateException;
import io.sluice.storage.Storage;
import io.sluice.wire.InvalidWireCommandException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a segment store on disk: one write-log + snapshot resource per container (bucket {@code containers}, key
 * {@code container-N}) and one for the controller's metadata, all under one data directory, following the
 * serverless-storage call order — load the latest snapshot, replay the write log, take the lock, replay what came
 * in meanwhile, then write. Snapshots are taken in the background once a container has logged
 * {@link #SNAPSHOT_AFTER_BYTES} since its last one, or once segments holding {@link #DROPPED_SNAPSHOT_BYTES} (at most
 * the snapshot threshold) were deleted since: segment data a snapshot covers moves to chunk files, and a snapshot is
 * what lets the logs and chunk files of deleted segments be deleted.
 *
 * <p>When a container's write log fails (a full disk), {@link DurableLog#resume} retries repairing it with a backoff
 * from {@link #RESUME_FIRST_WAIT} up to {@link #RESUME_MAX_WAIT} until it writes again.
 *
 * <p>The lock is in the storage: a second server on the same directory fails to start while the first runs, and
 * the operating system releases the lock when a server process dies. A <em>standby</em> (a non-null
 * {@code standbyPoll}) waits instead: it takes the locks one by one in one fixed order — container 0, 1, …, then the
 * controller's metadata — trying each again every {@code standbyPoll} while another server holds it, and recovers each
 * resource only once it holds its lock. So it reads nothing another server is still writing, and it returns (and the
 * server binds its ports) only once it holds every resource. Every server takes the locks in that order, so two
 * standbys never deadlock: whoever holds container 0 gets the rest once their holder lets go.
 */
final class DurableSegmentStore {
    private static final Logger LOG = LoggerFactory.getLogger(DurableSegmentStore.class);
    /** Default log bytes after which a container takes a snapshot. */
    static final long SNAPSHOT_AFTER_BYTES = 64L * 1024 * 1024;
    /** Bytes of deleted segments after which a container takes a snapshot to free their space (default). */
    static final long DROPPED_SNAPSHOT_BYTES = 1024 * 1024;
    /** First wait before retrying a write log that failed. */
    static final Duration RESUME_FIRST_WAIT = Duration.ofMillis(50);
    /** Longest wait between retries of a write log that failed: how long after space is back writes resume, at most. */
    static final Duration RESUME_MAX_WAIT = Duration.ofSeconds(1);
    /** The waits between repairs: doubling from the first to the longest; attempts are not bounded. */
    private static final Retry RESUME_BACKOFF = Retry.withExpBackoff(RESUME_FIRST_WAIT, 2, Integer.MAX_VALUE,
            RESUME_MAX_WAIT);

    private DurableSegmentStore() {
    }

    /**
     * Opens (creating or recovering) the store under {@code dir}.
     *
     * @throws IOException if the directory cannot be used
     * @throws IllegalStateException if the directory was written with another record format or another number of
     *     containers ({@link DataDirectoryLayout}), or another server holds it
     */
    static EmbeddedServer.StoreAndStorage open(Path dir, int containers, boolean fsync, long snapshotAfterBytes) throws IOException {
        return open(dir, containers, fsync, snapshotAfterBytes, FileOpener.DEFAULT);
    }

    /** Like {@link #open(Path, int, boolean, long)}, with the data files opened by {@code files} (tests). */
    static EmbeddedServer.StoreAndStorage open(Path dir, int containers, boolean fsync, long snapshotAfterBytes,
                                               FileOpener files) throws IOException {
        return open(dir, containers, fsync, snapshotAfterBytes, files, null, io.sluice.common.ServerMetrics.NONE);
    }

    /**
     * Like {@link #open(Path, int, boolean, long, FileOpener)}; with a non-null {@code standbyPoll} it waits, as a
     * standby, until no other server holds the directory's resources (see the class comment) instead of failing;
     * group commits are reported to {@code metrics}.
     *
     * @param standbyPoll how often a standby tries a lock another server holds; null: fail at once
     * @param metrics where group commits are reported ({@link io.sluice.common.ServerMetrics#NONE}: nowhere)
     * @throws io.sluice.errors.StreamingInterruptedException if interrupted while waiting as a standby
     */
    static EmbeddedServer.StoreAndStorage open(Path dir, int containers, boolean fsync, long snapshotAfterBytes,
                                               FileOpener files, Duration standbyPoll,
                                               io.sluice.common.ServerMetrics metrics) throws IOException {
        Files.createDirectories(dir);
        DataDirectoryLayout.check(dir, containers);
        LocalStorage storage = LocalStorage.open(dir, fsync ? Durability.FSYNC : Durability.OS_BUFFERED, files);
        storage.metrics(metrics);
        List<DurableLog> logs = new ArrayList<>();
        try {
            ChunkStore chunks = storage.chunks();
            SegmentData.ChunkReader reader = (chunk, from, dst, at, n) -> {
                ByteBuffer b = chunks.read(chunk.ref(), chunk.refOffset() + (int) (from - chunk.offset()), n);
                b.get(dst, at, n);
            };
            SegmentStore store = new SegmentStore(containers, i -> {
                ServerlessStorage resource = storage.resource("containers", "container-" + i);
                DurableLog log = new DurableLog(resource, chunks, i, snapshotAfterBytes);
                SegmentContainer container = new SegmentContainer(i, log, reader);
                log.recover(container, standbyPoll);
                logs.add(log);
                return container;
            });
            for (SegmentContainer c : store.containers()) {
                for (String t : c.transientSegments()) {
                    // their connections died with the previous process
                    store.deleteSegment(t);
                }
            }
            DurableControllerStore controllerStore = new DurableControllerStore(storage.resource("controller", "metadata"));
            // locked here, before the server binds its ports: two controllers must never write one metadata log
            controllerStore.takeOver(standbyPoll);
            if (standbyPoll != null) {
                LOG.info("standby: holds every container and the controller's metadata of {} now; recovered", dir);
            }
            AutoCloseable closer = () -> {
                logs.forEach(DurableLog::close);
                storage.close();
            };
            return new EmbeddedServer.StoreAndStorage(store, closer, controllerStore);
        } catch (RuntimeException e) {
            storage.close();
            throw e;
        }
    }

    /**
     * A standby's first steps on a resource: loads the latest snapshot, then takes the resource's lock, trying again
     * every {@code poll} while another server (process, or storage in this process) holds it, and loading the snapshot
     * again whenever the holder wrote a newer one meanwhile. Logs once that it waits and once that it took over.
     *
     * @return the latest snapshot, current now that the lock is held (the caller reads and closes it)
     * @throws io.sluice.errors.StreamingInterruptedException if interrupted while waiting
     */
    static Optional<InputStream> awaitLock(ServerlessStorage resource, Duration poll, String what) {
        Optional<InputStream> snapshot = resource.loadLatestSnapshot();
        boolean waited = false;
        try {
            while (true) {
                try {
                    resource.lock();
                    if (waited) {
                        LOG.info("standby: took over {}", what);
                    }
                    return snapshot;
                } catch (StaleStateException e) {
                    snapshot.ifPresent(DurableSegmentStore::closeQuietly);
                    snapshot = Optional.empty();
                    snapshot = resource.loadLatestSnapshot();
                    continue;
                } catch (ResourceLockedException e) {
                    if (!waited) {
                        LOG.info("standby: {} is held by another server ({}); trying again every {} ms", what,
                                e.getMessage(), poll.toMillis());
                        waited = true;
                    }
                }
                Thread.sleep(poll);
            }
        } catch (InterruptedException e) {
            snapshot.ifPresent(DurableSegmentStore::closeQuietly);
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while waiting, as a standby, for " + what, e);
        } catch (RuntimeException e) {
            snapshot.ifPresent(DurableSegmentStore::closeQuietly);
            throw e;
        }
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException e) {
            LOG.debug("closing a snapshot stream failed", e);
        }
    }

    /** A container's write log on a {@link ServerlessStorage} resource, with background snapshots. */
    static final class DurableLog implements SegmentContainer.Log {
        private final ServerlessStorage resource;
        private final ChunkStore chunks;
        private final int containerId;
        private final long snapshotAfterBytes;
        private final AtomicLong bytesSinceSnapshot = new AtomicLong();
        private final AtomicLong droppedSinceSnapshot = new AtomicLong();
        private final AtomicBoolean snapshotting = new AtomicBoolean();
        /** Set when a snapshot was asked for while one was being taken: it takes another. */
        private final AtomicBoolean snapshotAgain = new AtomicBoolean();
        private volatile SegmentContainer container;
        private volatile boolean closed;
        private volatile Thread snapshotThread;

        DurableLog(ServerlessStorage resource, ChunkStore chunks, int containerId, long snapshotAfterBytes) {
            this.snapshotAfterBytes = snapshotAfterBytes;
            this.resource = resource;
            this.chunks = chunks;
            this.containerId = containerId;
        }

        /** Recovery: snapshot, log, lock, log again — then the container may take changes. */
        void recover(SegmentContainer c) {
            recover(c, null);
        }

        /**
         * Recovery; with a non-null {@code standbyPoll} the lock is awaited first (snapshot, lock, log), so nothing is
         * read while another server may still write it.
         */
        void recover(SegmentContainer c, Duration standbyPoll) {
            Optional<InputStream> snapshot = standbyPoll == null ? resource.loadLatestSnapshot()
                    : awaitLock(resource, standbyPoll, "container " + containerId);
            long started = System.nanoTime();
            if (snapshot.isPresent()) {
                try (InputStream in = snapshot.get()) {
                    c.restore(ContainerImage.readFrom(in));
                } catch (IOException e) {
                    throw new IllegalStateException("cannot read the snapshot of container " + containerId + ": " + e.getMessage(), e);
                }
            }
            int replayed = replay(c);
            if (standbyPoll == null) {
                resource.lock();
                replayed += replay(c);
            }
            this.container = c;
            LOG.debug("container {} recovered ({} log entries after the snapshot) in {} ms", containerId, replayed,
                    (System.nanoTime() - started) / 1_000_000);
        }

        private int replay(SegmentContainer c) {
            int n = 0;
            try (LogReader r = resource.loadWriteLog()) {
                byte[] entry;
                while ((entry = r.next()) != null) {
                    c.replay(decode(entry, n));
                    bytesSinceSnapshot.addAndGet(entry.length);
                    n++;
                }
            }
            return n;
        }

        private ContainerOp decode(byte[] entry, int index) {
            try {
                return ContainerOp.decode(entry);
            } catch (InvalidWireCommandException e) {
                throw new IllegalStateException("container " + containerId + ": write log entry " + index
                        + " after the snapshot is not a record of format version " + ContainerOp.FORMAT_VERSION + ": "
                        + e.getMessage(), e);
            }
        }

        @Override
        public CompletableFuture<Void> append(byte[] entry) {
            CompletableFuture<Void> durable = resource.appendAsync(entry);
            if (bytesSinceSnapshot.addAndGet(entry.length) > snapshotAfterBytes) {
                requestSnapshot();
            }
            return durable;
        }

        @Override
        public void segmentDropped(long bytes) {
            if (droppedSinceSnapshot.addAndGet(bytes) >= Math.min(DROPPED_SNAPSHOT_BYTES, snapshotAfterBytes)) {
                requestSnapshot();
            }
        }

        /** Starts a snapshot in the background, or has the one being taken followed by another. Does not block. */
        private void requestSnapshot() {
            if (closed) {
                return;
            }
            if (snapshotting.compareAndSet(false, true)) {
                snapshotThread = Threads.startVirtual("sluice-snapshot-container-" + containerId, () -> {
                    do {
                        snapshotAgain.set(false);
                        snapshot();
                    } while (snapshotAgain.get() && !closed && !snapshotting.getAndSet(true));
                });
            } else {
                snapshotAgain.set(true);
            }
        }

        /**
         * Repairs the write log after a failed append, retrying with a growing wait (from {@link #RESUME_FIRST_WAIT}
         * to {@link #RESUME_MAX_WAIT}) until it writes again or the store closes. Does not block.
         */
        @Override
        public CompletableFuture<Void> resume() {
            CompletableFuture<Void> done = new CompletableFuture<>();
            Threads.startVirtual("sluice-wal-resume-container-" + containerId, () -> {
                int attempts = 0;
                while (!closed) {
                    attempts++;
                    try {
                        resource.resumeAppends().get();
                        LOG.info("container {}: write log repaired after {} attempt(s)", containerId, attempts);
                        done.complete(null);
                        return;
                    } catch (ExecutionException | RuntimeException e) {
                        Throwable why = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                        if (attempts == 1) {
                            LOG.warn("container {}: the write log still cannot write ({}); retrying every {} ms"
                                    + " at most", containerId, why.getMessage(), RESUME_MAX_WAIT.toMillis());
                        } else {
                            LOG.debug("container {}: write log not repaired yet: {}", containerId, why.getMessage());
                        }
                    } catch (InterruptedException e) {
                        break;
                    }
                    try {
                        Thread.sleep(RESUME_BACKOFF.backoff(attempts));
                    } catch (InterruptedException e) {
                        break;
                    }
                }
                done.completeExceptionally(new IllegalStateException("container " + containerId
                        + " closed before its write log was repaired"));
            });
            return done;
        }

        /** Takes one snapshot now (also used by tests); returns when it is stored. */
        void snapshot() {
            long started = System.nanoTime();
            try {
                ContainerImage image = container.beginSnapshot(() -> {
                    resource.incrementWriteLogVersion();
                    bytesSinceSnapshot.set(0);
                    droppedSinceSnapshot.set(0);
                }).join();
                ContainerImage stored = image.storeChunks(chunks);
                resource.snapshotTo(stored::writeTo);
                List<Long> reclaim = container.finishSnapshot(stored);
                for (long owner : reclaim) {
                    chunks.deleteOwner(owner);
                }
                LOG.debug("container {}: snapshot of {} segments in {} ms, {} chunk owners reclaimed", containerId,
                        stored.segments().size(), (System.nanoTime() - started) / 1_000_000, reclaim.size());
            } catch (RuntimeException e) {
                LOG.error("container {}: snapshot failed; the write log keeps everything", containerId, e);
            } finally {
                snapshotting.set(false);
            }
        }

        void close() {
            closed = true;
            Thread t = snapshotThread;
            if (t != null) {
                try {
                    t.join(30_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /**
     * The controller's event log on a {@link ServerlessStorage} resource. Keeps the events whose appends failed, in
     * order, to write them again in {@link #rewriteFailed()}.
     */
    static final class DurableControllerStore implements ControllerStore {
        private final ServerlessStorage resource;
        private final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
        /** Guarded by lock: encoded events whose appends failed, in log order. */
        private final List<byte[]> failed = new ArrayList<>();
        /** Guarded by lock: completes once the latest append has completed, either way. */
        private CompletableFuture<Void> last = CompletableFuture.completedFuture(null);

        /** The events read by {@link #takeOver}, handed out by {@link #recover()}; null before. */
        private volatile List<ControllerEvent> recovered;

        DurableControllerStore(ServerlessStorage resource) {
            this.resource = resource;
        }

        /**
         * Reads the metadata and takes its lock (snapshot, log, lock, log again; a standby awaits the lock first, as
         * {@link DurableSegmentStore#awaitLock} does). Called once, before {@link #recover()}.
         *
         * @param standbyPoll how often a standby tries the lock; null: fail at once if another server holds it
         */
        void takeOver(Duration standbyPoll) {
            List<ControllerEvent> events = new ArrayList<>();
            Optional<InputStream> snapshot = standbyPoll == null ? resource.loadLatestSnapshot()
                    : awaitLock(resource, standbyPoll, "the controller's metadata");
            snapshot.ifPresent(in -> {
                try (in) {
                    java.io.DataInputStream data = new java.io.DataInputStream(in);
                    int count = data.readInt();
                    for (int i = 0; i < count; i++) {
                        byte[] b = new byte[data.readInt()];
                        data.readFully(b);
                        events.add(ControllerEventCodec.decode(b));
                    }
                } catch (IOException e) {
                    throw new IllegalStateException("cannot read the controller's snapshot: " + e.getMessage(), e);
                }
            });
            read(events);
            if (standbyPoll == null) {
                resource.lock();
                read(events);
            }
            recovered = events;
        }

        @Override
        public List<ControllerEvent> recover() {
            if (recovered == null) {
                takeOver(null);
            }
            return recovered;
        }

        private void read(List<ControllerEvent> events) {
            try (LogReader r = resource.loadWriteLog()) {
                byte[] entry;
                while ((entry = r.next()) != null) {
                    events.add(ControllerEventCodec.decode(entry));
                }
            }
        }

        @Override
        public CompletableFuture<Void> append(ControllerEvent event) {
            return appendEncoded(ControllerEventCodec.encode(event));
        }

        private CompletableFuture<Void> appendEncoded(byte[] entry) {
            // completed by the log's writer thread in log order, so `failed` stays in log order
            CompletableFuture<Void> done = resource.appendAsync(entry).whenComplete((ok, e) -> {
                if (e != null) {
                    lock.lock();
                    try {
                        failed.add(entry);
                    } finally {
                        lock.unlock();
                    }
                }
            });
            lock.lock();
            try {
                last = done.handle((ok, e) -> null);
            } finally {
                lock.unlock();
            }
            return done;
        }

        /** Waits for appends in flight, repairs the log, then appends the failed events again, in order. */
        @Override
        public CompletableFuture<Void> rewriteFailed() {
            CompletableFuture<Void> previous;
            lock.lock();
            try {
                previous = last;
            } finally {
                lock.unlock();
            }
            return previous.thenCompose(v -> {
                List<byte[]> again;
                lock.lock();
                try {
                    again = List.copyOf(failed);
                    failed.clear();
                } finally {
                    lock.unlock();
                }
                CompletableFuture<Void> resumed = resource.resumeAppends();
                List<CompletableFuture<Void>> written = new ArrayList<>();
                written.add(resumed);
                for (byte[] entry : again) {
                    written.add(appendEncoded(entry));
                }
                return CompletableFuture.allOf(written.toArray(CompletableFuture[]::new));
            });
        }

        @Override
        public void close() {
            // the storage is closed with the server
        }
    }
}
