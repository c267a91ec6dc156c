package io.sluice.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * What the parts of one {@link SegmentContainer} share: its lock and the state it guards (the segments and their
 * bookkeeping), the log it writes to and the reader of its chunk files. The parts are the durability pipeline
 * ({@link ContainerPipeline}), the segment state machine ({@link ContainerChanges}), table segments
 * ({@link TableSegments}), reads at the tail ({@link TailReads}), queries ({@link ContainerQueries}) and snapshots
 * ({@link ContainerSnapshots}).
 *
 * <p>Every field but the final references is guarded by {@link #lock}; nothing under it blocks or does I/O.
 */
final class ContainerState {
    final int id;
    final SegmentContainer.Log log;
    final SegmentData.ChunkReader chunks;
    final ReentrantLock lock = new ReentrantLock();
    /** Guarded by lock. */
    final Map<String, Segment> segments = new HashMap<>();
    /** Guarded by lock. */
    long nextSegmentId;
    /**
     * Guarded by lock: writers (by segment) an append of which failed to become durable. Their later appends to that
     * segment are refused until they set up appends again, so an acknowledged append never follows a lost one.
     */
    final Map<String, Set<UUID>> failedWriters = new HashMap<>();
    /** Guarded by lock: ids of deleted segments whose chunk files can go once a snapshot no longer needs them. */
    final List<Long> droppedSegments = new ArrayList<>();

    /** Told of every change applied while serving (auto-scaling's rate tracker); replays are not observed. */
    volatile ContainerObserver observer = ContainerObserver.NONE;

    ContainerState(int id, SegmentContainer.Log log, SegmentData.ChunkReader chunks) {
        this.id = id;
        this.log = log;
        this.chunks = chunks;
    }

    /** Runs {@code action} under the lock. */
    void locked(Runnable action) {
        lock.lock();
        try {
            action.run();
        } finally {
            lock.unlock();
        }
    }

    /** @return what {@code action} computes under the lock */
    <T> T locked(Supplier<T> action) {
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: whether an earlier append of this writer to this segment failed (see {@link #failedWriters}). */
    boolean failedWriter(String segment, UUID writerId) {
        Set<UUID> writers = failedWriters.get(segment);
        return writers != null && writers.contains(writerId);
    }

    /** Under the lock: an append of this writer to this segment could not be made durable. */
    void writerFailed(String segment, UUID writerId) {
        failedWriters.computeIfAbsent(segment, k -> new HashSet<>()).add(writerId);
    }

    /** Under the lock: the writer set up its appends again, so they are accepted again. */
    void writerResumed(String segment, UUID writerId) {
        Set<UUID> failed = failedWriters.get(segment);
        if (failed != null && failed.remove(writerId) && failed.isEmpty()) {
            failedWriters.remove(segment);
        }
    }

    /** Under the lock: a segment went away; its stored data may be reclaimed after the next snapshot. */
    void dropped(Segment s) {
        droppedSegments.add(s.id);
        failedWriters.remove(s.name);
    }

    /** Sends a reply, first reading any file-backed bytes a SegmentRead still refers to (outside the lock). */
    void deliver(Object r, ReplySink sink) {
        sink.send(r instanceof DeferredRead d ? d.materialise(chunks) : (io.sluice.wire.Reply) r);
    }
}
