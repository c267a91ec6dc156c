package io.sluice.server;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import io.sluice.server.controller.SegmentAdmin;
import io.sluice.wire.AppendSetup;
import io.sluice.wire.Bytes;
import io.sluice.wire.ConditionalCheckFailed;
import io.sluice.wire.CreateSegment;
import io.sluice.wire.CreateTableSegment;
import io.sluice.wire.DataAppended;
import io.sluice.wire.DeleteSegment;
import io.sluice.wire.DeleteTableSegment;
import io.sluice.wire.ErrorMessage;
import io.sluice.wire.GetSegmentAttribute;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.GetTableSegmentInfo;
import io.sluice.wire.LocateOffset;
import io.sluice.wire.MergeSegments;
import io.sluice.wire.MergeSegmentsBatch;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.OffsetLocated;
import io.sluice.wire.OperationUnsupported;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.ReadTable;
import io.sluice.wire.ReadTableEntries;
import io.sluice.wire.ReadTableEntriesDelta;
import io.sluice.wire.ReadTableKeys;
import io.sluice.wire.RemoveTableKeys;
import io.sluice.wire.Reply;
import io.sluice.wire.Request;
import io.sluice.wire.SealSegment;
import io.sluice.wire.SegmentAlreadyExists;
import io.sluice.wire.SegmentAttribute;
import io.sluice.wire.SegmentAttributeUpdated;
import io.sluice.wire.SegmentCreated;
import io.sluice.wire.SegmentDeleted;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentIsTruncated;
import io.sluice.wire.SegmentPolicyUpdated;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.SegmentSealed;
import io.sluice.wire.SegmentTruncated;
import io.sluice.wire.SegmentsBatchMerged;
import io.sluice.wire.SegmentsMerged;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.StreamSegmentInfo;
import io.sluice.wire.TableEntries;
import io.sluice.wire.TableEntriesDeltaRead;
import io.sluice.wire.TableEntriesRead;
import io.sluice.wire.TableEntriesUpdated;
import io.sluice.wire.TableEntry;
import io.sluice.wire.TableKey;
import io.sluice.wire.TableKeyBadVersion;
import io.sluice.wire.TableKeyDoesNotExist;
import io.sluice.wire.TableKeysRead;
import io.sluice.wire.TableKeysRemoved;
import io.sluice.wire.TableRead;
import io.sluice.wire.TableSegmentInfo;
import io.sluice.wire.TableSegmentNotEmpty;
import io.sluice.wire.TableValue;
import io.sluice.wire.TruncateSegment;
import io.sluice.wire.UpdateSegmentAttribute;
import io.sluice.wire.UpdateSegmentPolicy;
import io.sluice.wire.UpdateTableEntries;
import io.sluice.wire.WireProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A set of segments whose changes share one write log. Every change is first written to the log; once the log
 * says it is durable, changes are applied to the in-memory state strictly in log order, and only then are
 * replies sent and the data made visible to readers. Reads and other queries see applied state only, and wait
 * behind changes already submitted (so a client reads its own acknowledged writes).
 *
 * <p><b>When the log cannot write</b> (a full disk, an I/O error), the changes whose entries failed are not applied
 * and are answered with an {@link ErrorMessage} saying why ({@link #cannotWriteReply}); the log guarantees they are
 * not in it, so the state still equals the log. Every change submitted after that is answered the same way at once,
 * without reaching the log, until the log says it accepts appends again ({@link Log#resume}, which retries); reads
 * and queries keep being answered from the applied state meanwhile. A writer one of whose appends failed gets no
 * later append of it to that segment accepted until it sets up its appends again (SetupAppend), so acknowledged
 * appends never follow a lost one.
 *
 * <p>Thread-safe. One lock guards all state; nothing under it blocks or does I/O (log appends only enqueue;
 * file-backed chunks are read after the lock is released).
 */
final class SegmentContainer {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentContainer.class);
    /** Largest reply to one ReadSegment, as on a real segment store. */
    static final int MAX_READ_BYTES = 2 * 1024 * 1024;
    /** Spacing of remembered append boundaries, for LocateOffset. */
    private static final long BOUNDARY_SPACING = 64 * 1024;
    private static final int MAX_TABLE_REPLY_BYTES = 2 * 1024 * 1024;

    /** The durable log the container writes its changes to. */
    interface Log {
        /**
         * Queues an entry; must not block. The future completes when the entry is durable.
         *
         * @param entry the encoded change
         */
        CompletableFuture<Void> append(byte[] entry);

        /**
         * Called once after an append failed and before any further one: makes the log accept appends again,
         * retrying as long as it takes. Appends made before this call have failed or will fail; must not block.
         *
         * @return completes when the log accepts appends again
         */
        default CompletableFuture<Void> resume() {
            return CompletableFuture.completedFuture(null);
        }

        /**
         * Called (outside the container lock) when a deleted segment held {@code bytes} of data: their space comes
         * back once a snapshot no longer refers to them, so the log may take one soon. Must not block.
         */
        default void segmentDropped(long bytes) {
        }
    }

    /** A log that keeps nothing: changes are "durable" at once (the in-memory server). */
    static final Log NO_LOG = entry -> CompletableFuture.completedFuture(null);

    /** A change submitted and not yet applied. */
    private static final class Pending {
        final ContainerOp op;
        final CompletableFuture<Object> result = new CompletableFuture<>();
        final List<Runnable> after = new ArrayList<>(0);
        /** Run under the lock right after this change is applied, before the next one (snapshot capture). */
        final List<Runnable> onApplied = new ArrayList<>(0);
        boolean durable;
        boolean applied;
        /** Why the log could not make this change durable; null if it did. */
        Throwable failed;
        Object value;

        Pending(ContainerOp op) {
            this.op = op;
        }
    }

    /** What applying an Append did. */
    sealed interface AppendResult {
        /** The data was appended: acknowledge with this reply. */
        record Appended(DataAppended ack) implements AppendResult {
        }

        /** The writer had already appended this event number: nothing changed. */
        record Duplicate(UUID writerId, long eventNumber, long lastStored, long length) implements AppendResult {
        }

        /** The append was refused (sealed, missing, condition failed). */
        record Refused(Reply reply) implements AppendResult {
        }
    }

    private final int id;
    private final Log log;
    private final SegmentData.ChunkReader chunks;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by lock. */
    private final Map<String, Segment> segments = new HashMap<>();
    /** Guarded by lock: submitted changes in log order. */
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    /** Guarded by lock. */
    private long nextSegmentId;
    /** Guarded by lock: why the log cannot write; set when an entry failed, cleared when the log resumes. */
    private Throwable cannotWrite;
    /** Guarded by lock: completes when the log accepts appends again (complete while it does). */
    private CompletableFuture<Void> writable = CompletableFuture.completedFuture(null);
    /**
     * Guarded by lock: writers (by segment) an append of which failed to become durable. Their later appends to that
     * segment are refused until they set up appends again, so an acknowledged append never follows a lost one.
     */
    private final Map<String, java.util.Set<UUID>> failedWriters = new HashMap<>();
    /** Guarded by lock: ids of deleted segments whose chunk files can go once a snapshot no longer needs them. */
    private final List<Long> droppedSegments = new ArrayList<>();

    /** Told of every change applied while serving (auto-scaling's rate tracker); replays are not observed. */
    private volatile ContainerObserver observer = ContainerObserver.NONE;

    SegmentContainer(int id, Log log, SegmentData.ChunkReader chunks) {
        this.id = id;
        this.log = log;
        this.chunks = chunks;
    }

    int id() {
        return id;
    }

    void observe(ContainerObserver o) {
        this.observer = java.util.Objects.requireNonNull(o, "observer");
    }

    // ---------------------------------------------------------------- changes

    /** Completions of applied changes and their effects, run outside the lock in order by {@link #runCompletions}. */
    private final ConcurrentLinkedQueue<Runnable> completions = new ConcurrentLinkedQueue<>();
    /** Claims on running {@link #completions}: the thread that takes it from 0 runs them until none is left. */
    private final AtomicInteger completing = new AtomicInteger();

    /**
     * Writes a change to the log and applies it once durable.
     *
     * @return completes with the change's result (a {@link Reply}, or an {@link AppendResult} for appends)
     */
    CompletableFuture<Object> submit(ContainerOp op) {
        byte[] entry = ContainerOp.encode(op);
        Pending p = new Pending(op);
        CompletableFuture<Void> durable;
        lock.lock();
        try {
            if (cannotWrite != null) {
                // nothing reaches the log until it resumes: the future is new, so completing it runs no callback here
                p.result.complete(failureResult(op, cannotWrite));
                return p.result;
            }
            if (op instanceof ContainerOp.Append a && failedWriter(a)) {
                p.result.complete(new AppendResult.Refused(new ErrorMessage(a.requestId(), a.segment(),
                        "the segment store lost earlier appends of writer " + a.writerId() + " to "
                                + WireText.abbreviate(a.segment())
                                + " (it could not write them); set up the appends again to resend them",
                        ErrorMessage.ErrorCode.UNSPECIFIED)));
                return p.result;
            }
            pending.add(p);
            // appended under the lock so that log order is the order of `pending`
            try {
                durable = log.append(entry);
            } catch (RuntimeException e) {
                // answered like an entry the log could not write, so `pending` never holds one that nothing completes
                durable = CompletableFuture.failedFuture(e);
            }
        } finally {
            lock.unlock();
        }
        durable.whenComplete((ok, err) -> onDurable(p, err));
        return p.result;
    }

    private void onDurable(Pending p, Throwable err) {
        boolean resume = false;
        lock.lock();
        try {
            p.durable = true;
            if (err != null) {
                p.failed = err instanceof java.util.concurrent.CompletionException && err.getCause() != null
                        ? err.getCause() : err;
                if (cannotWrite == null) {
                    cannotWrite = p.failed;
                    writable = new CompletableFuture<>();
                    resume = true;
                    LOG.error("segment container {}: the write log cannot write ({}); answering changes with an error"
                            + " until it can again", id, reason(p.failed));
                }
            }
            List<Runnable> effects = new ArrayList<>();
            List<Pending> done = new ArrayList<>();
            // in log order; a failed entry is not in the log (the log cut it off), so it is skipped here too and the
            // state stays what a replay of the log gives
            while (!pending.isEmpty() && pending.peek().durable) {
                Pending head = pending.poll();
                if (head.failed == null) {
                    head.value = apply(head.op, effects);
                    head.applied = true;
                    observer.applied(head.op, head.value, segments.get(head.op.segment()));
                } else {
                    head.value = failureResult(head.op, head.failed);
                    if (head.op instanceof ContainerOp.Append a) {
                        failedWriters.computeIfAbsent(a.segment(), k -> new java.util.HashSet<>()).add(a.writerId());
                    }
                }
                head.onApplied.forEach(Runnable::run);
                done.add(head);
                effects.addAll(head.after);
            }
            // queued under the lock, so in the order the changes were applied
            for (Pending d : done) {
                completions.add(() -> d.result.complete(d.value));
            }
            completions.addAll(effects);
        } finally {
            lock.unlock();
        }
        if (resume) {
            log.resume().whenComplete((ok, e) -> resumed(e));
        }
        runCompletions();
    }

    /** The log accepts appends again (or gave up: the server is closing). */
    private void resumed(Throwable err) {
        CompletableFuture<Void> w;
        lock.lock();
        try {
            if (err != null) {
                LOG.debug("segment container {}: the write log did not resume: {}", id, err.toString());
                return;
            }
            cannotWrite = null;
            w = writable;
        } finally {
            lock.unlock();
        }
        LOG.info("segment container {}: the write log writes again; accepting changes", id);
        w.complete(null);
    }

    /** @return completes when the container accepts changes (at once unless its log cannot write now) */
    CompletableFuture<Void> writable() {
        lock.lock();
        try {
            return writable.copy();
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: whether an earlier append of this writer to this segment failed (see {@link #failedWriters}). */
    private boolean failedWriter(ContainerOp.Append a) {
        java.util.Set<UUID> writers = failedWriters.get(a.segment());
        return writers != null && writers.contains(a.writerId());
    }

    /** The answer to a change that the log could not make durable. */
    private Object failureResult(ContainerOp op, Throwable why) {
        ErrorMessage reply = cannotWriteReply(requestIdOf(op), op.segment(), why);
        return op instanceof ContainerOp.Append ? new AppendResult.Refused(reply) : reply;
    }

    /**
     * The reply to a change while the log cannot write: an {@link ErrorMessage} (a real segment store closes the
     * connection on a storage failure instead, which tells a client nothing). Its text starts with "the segment
     * store cannot write: " and then says why, e.g. "no space left on device".
     */
    static ErrorMessage cannotWriteReply(long requestId, String segment, Throwable why) {
        return new ErrorMessage(requestId, segment, "the segment store cannot write: " + reason(why)
                + " (it accepts changes again once it can)", ErrorMessage.ErrorCode.UNSPECIFIED);
    }

    /** @return the innermost message of a failure, starting lower-case ("no space left on device") */
    static String reason(Throwable why) {
        Throwable t = why;
        String message = null;
        while (t != null) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                message = t.getMessage();
            }
            if (t.getCause() == t) {
                break;
            }
            t = t.getCause();
        }
        if (message == null) {
            return why.getClass().getSimpleName();
        }
        String m = message.strip();
        return m.length() > 1 && Character.isUpperCase(m.charAt(0)) && Character.isLowerCase(m.charAt(1))
                ? Character.toLowerCase(m.charAt(0)) + m.substring(1) : m;
    }

    /**
     * Completes changes and runs their effects outside the lock (callers' continuations must never run under it), one
     * thread at a time and in the order the changes were applied. Two threads that applied changes one after the other
     * would otherwise race to complete them, and a connection could acknowledge a writer's later append before an
     * earlier one (the official client fails the connection on that: "Missed ack from server").
     */
    private void runCompletions() {
        if (completing.getAndIncrement() != 0) {
            return;   // the thread that runs them now runs ours too
        }
        int claimed = 1;
        do {
            for (Runnable r = completions.poll(); r != null; r = completions.poll()) {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    LOG.error("segment container {}: completing a change failed", id, e);
                }
            }
            claimed = completing.addAndGet(-claimed);
        } while (claimed != 0);
    }

    /**
     * Runs {@code action} once every change submitted so far has been applied (at once if none is pending). The
     * action runs under the container lock: it must be quick and must not block.
     */
    void afterPending(Runnable action) {
        lock.lock();
        try {
            if (!pending.isEmpty()) {
                pending.peekLast().after.add(() -> runLocked(action));
                return;
            }
            action.run();
        } finally {
            lock.unlock();
        }
    }

    private void runLocked(Runnable action) {
        lock.lock();
        try {
            action.run();
        } finally {
            lock.unlock();
        }
    }

    /** Applies a log entry during recovery; replies are discarded. */
    void replay(ContainerOp op) {
        lock.lock();
        try {
            apply(op, new ArrayList<>());
        } finally {
            lock.unlock();
        }
    }

    /** Applies one change. Called under the lock; effects (replies to parked reads) run after unlocking. */
    private Object apply(ContainerOp op, List<Runnable> effects) {
        try {
            return switch (op) {
                case ContainerOp.Append a -> applyAppend(a, effects);
                case ContainerOp.CreateTransient t -> create(t.segment(), Segment.Kind.TRANSIENT, 0, t.timestampMillis(),
                        t.requestId());
                case ContainerOp.Wire w -> applyWire(w.request(), w.timestampMillis(), effects);
            };
        } catch (RuntimeException e) {
            // a bug must not wedge the container: report it to the client and carry on with the next change
            LOG.error("segment container {}: applying {} failed", id, op, e);
            return new ErrorMessage(requestIdOf(op), op.segment(), "internal error: " + WireText.abbreviate(e.toString()),
                    ErrorMessage.ErrorCode.UNSPECIFIED);
        }
    }

    private static long requestIdOf(ContainerOp op) {
        return switch (op) {
            case ContainerOp.Append a -> a.requestId();
            case ContainerOp.CreateTransient t -> t.requestId();
            case ContainerOp.Wire w -> w.request().requestId();
        };
    }

    private Reply create(String name, Segment.Kind kind, int keyLength, long time, long requestId) {
        if (segments.containsKey(name)) {
            return new SegmentAlreadyExists(requestId, name, "");
        }
        Segment s = new Segment(name, ((long) id << 40) | nextSegmentId++, kind, keyLength);
        s.lastModifiedMillis = time;
        segments.put(name, s);
        return new SegmentCreated(requestId, name);
    }

    private AppendResult applyAppend(ContainerOp.Append a, List<Runnable> effects) {
        Segment s = segments.get(a.segment());
        if (s == null || s.isTable()) {
            return new AppendResult.Refused(new NoSuchSegment(a.requestId(), a.segment(), "", -1));
        }
        long last = s.attributes.getOrDefault(a.writerId(), WireProtocol.NULL_ATTRIBUTE_VALUE);
        if (last != WireProtocol.NULL_ATTRIBUTE_VALUE && a.eventNumber() <= last) {
            return new AppendResult.Duplicate(a.writerId(), a.eventNumber(), last, s.length());
        }
        if (s.sealed) {
            return new AppendResult.Refused(new SegmentIsSealed(a.requestId(), s.name, "", a.eventNumber()));
        }
        if (a.expectedOffset() != ContainerOp.Append.UNCONDITIONAL && a.expectedOffset() != s.length()) {
            return new AppendResult.Refused(new ConditionalCheckFailed(a.writerId(), a.eventNumber(), a.requestId()));
        }
        long start = s.data.length();
        Map.Entry<Long, Boolean> lastBoundary = s.boundaries.lastEntry();
        if (lastBoundary == null || start - lastBoundary.getKey() >= BOUNDARY_SPACING) {
            s.boundaries.put(start, Boolean.TRUE);
        }
        s.data.append(a.data());
        s.attributes.put(a.writerId(), a.eventNumber());
        s.lastModifiedMillis = a.timestampMillis();
        wakeParkedReads(s, effects);
        return new AppendResult.Appended(new DataAppended(a.requestId(), a.writerId(), a.eventNumber(), last, s.length()));
    }

    private Reply applyWire(Request request, long time, List<Runnable> effects) {
        return switch (request) {
            case CreateSegment c -> {
                Reply r = create(c.segment(), Segment.Kind.STREAM, 0, time, c.requestId());
                if (r instanceof SegmentCreated) {
                    Segment s = segments.get(c.segment());
                    s.scaleType = c.scaleType();
                    s.targetRate = c.targetRate();
                    s.rolloverSizeBytes = c.rolloverSizeBytes();
                }
                yield r;
            }
            case CreateTableSegment c -> create(c.segment(), Segment.Kind.TABLE, Math.max(0, c.keyLength()), time, c.requestId());
            case SealSegment c -> {
                Segment s = segments.get(c.segment());
                if (s == null) {
                    yield new NoSuchSegment(c.requestId(), c.segment(), "", -1);
                }
                if (s.sealed) {
                    yield new SegmentIsSealed(c.requestId(), c.segment(), "", -1);
                }
                s.sealed = true;
                s.lastModifiedMillis = time;
                releaseParkedReads(s, effects, true);
                yield new SegmentSealed(c.requestId(), c.segment());
            }
            case DeleteSegment c -> delete(c.requestId(), c.segment(), false, effects);
            case DeleteTableSegment c -> delete(c.requestId(), c.segment(), c.mustBeEmpty(), effects);
            case TruncateSegment c -> truncate(c, time);
            case UpdateSegmentPolicy c -> {
                Segment s = segments.get(c.segment());
                if (s == null) {
                    yield new NoSuchSegment(c.requestId(), c.segment(), "", -1);
                }
                s.scaleType = c.scaleType();
                s.targetRate = c.targetRate();
                yield new SegmentPolicyUpdated(c.requestId(), c.segment());
            }
            case UpdateSegmentAttribute c -> {
                Segment s = segments.get(c.segmentName());
                if (s == null) {
                    yield new NoSuchSegment(c.requestId(), c.segmentName(), "", -1);
                }
                if (s.sealed) {
                    yield new SegmentIsSealed(c.requestId(), c.segmentName(), "", -1);
                }
                long current = s.attributes.getOrDefault(c.attributeId(), WireProtocol.NULL_ATTRIBUTE_VALUE);
                boolean ok = current == c.expectedValue();
                if (ok) {
                    if (c.newValue() == WireProtocol.NULL_ATTRIBUTE_VALUE) {
                        s.attributes.remove(c.attributeId());
                    } else {
                        s.attributes.put(c.attributeId(), c.newValue());
                    }
                    s.lastModifiedMillis = time;
                }
                yield new SegmentAttributeUpdated(c.requestId(), ok);
            }
            case MergeSegments c -> merge(c.requestId(), c.target(), c.source(), time, effects);
            case MergeSegmentsBatch c -> mergeBatch(c, time, effects);
            case UpdateTableEntries c -> updateTable(c, time, effects);
            case RemoveTableKeys c -> removeKeys(c, time, effects);
            default -> new ErrorMessage(request.requestId(), "", request.type() + " does not change a segment",
                    ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
        };
    }

    private Reply delete(long requestId, String name, boolean mustBeEmpty, List<Runnable> effects) {
        Segment s = segments.get(name);
        if (s == null) {
            return new NoSuchSegment(requestId, name, "", -1);
        }
        if (mustBeEmpty && s.isTable() && s.table.entryCount() > 0) {
            return new TableSegmentNotEmpty(requestId, name, "");
        }
        segments.remove(name);
        releaseParkedReads(s, effects, false);
        deleted(s);
        long bytes = s.length() - s.startOffset();
        if (bytes > 0) {
            // replay discards effects: only a live delete asks for a snapshot
            effects.add(() -> log.segmentDropped(bytes));
        }
        return new SegmentDeleted(requestId, name);
    }

    /** Hook for the owner of chunk files: the segment's stored data may be reclaimed after the next snapshot. */
    private void deleted(Segment s) {
        droppedSegments.add(s.id);
        failedWriters.remove(s.name);
    }

    private Reply truncate(TruncateSegment c, long time) {
        Segment s = segments.get(c.segment());
        if (s == null) {
            return new NoSuchSegment(c.requestId(), c.segment(), "", c.truncationOffset());
        }
        long offset = c.truncationOffset();
        if (offset == s.startOffset()) {
            return new SegmentTruncated(c.requestId(), c.segment());
        }
        if (offset < s.startOffset() || offset > s.length() || s.isTable()) {
            return new SegmentIsTruncated(c.requestId(), c.segment(), s.startOffset(), "", offset);
        }
        s.data.truncate(offset);
        s.boundaries.headMap(offset).clear();
        s.lastModifiedMillis = time;
        return new SegmentTruncated(c.requestId(), c.segment());
    }

    private Reply merge(long requestId, String targetName, String sourceName, long time, List<Runnable> effects) {
        Segment target = segments.get(targetName);
        Segment source = segments.get(sourceName);
        if (target == null) {
            // as a real segment store does: the error names the source
            return new NoSuchSegment(requestId, sourceName, "", -1);
        }
        if (source == null) {
            return new NoSuchSegment(requestId, sourceName, "", -1);
        }
        if (source == target) {
            return new ErrorMessage(requestId, targetName, "cannot merge a segment into itself",
                    ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
        }
        if (target.sealed) {
            return new SegmentIsSealed(requestId, sourceName, "", -1);
        }
        if (target.isTable() || source.isTable()) {
            return new ErrorMessage(requestId, targetName, "table segments cannot be merged",
                    ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
        }
        long start = target.data.length();
        target.boundaries.put(start, Boolean.TRUE);
        target.data.appendAll(source.data, chunks);
        target.lastModifiedMillis = time;
        segments.remove(sourceName);
        releaseParkedReads(source, effects, false);
        deleted(source);
        wakeParkedReads(target, effects);
        return new SegmentsMerged(requestId, targetName, sourceName, target.length());
    }

    private Reply mergeBatch(MergeSegmentsBatch c, long time, List<Runnable> effects) {
        Segment target = segments.get(c.targetSegmentId());
        if (target == null) {
            return new NoSuchSegment(c.requestId(), c.targetSegmentId(), "", -1);
        }
        List<String> sources = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        for (String source : c.sourceSegmentIds()) {
            Reply r = merge(c.requestId(), c.targetSegmentId(), source, time, effects);
            if (r instanceof SegmentsMerged m) {
                sources.add(source);
                offsets.add(m.newTargetWriteOffset());
            } else if (r instanceof NoSuchSegment) {
                // merged before (a retried commit): report the target's length, as the merge is done
                sources.add(source);
                offsets.add(target.length());
            } else {
                return r;
            }
        }
        return new SegmentsBatchMerged(c.requestId(), c.targetSegmentId(), sources, offsets);
    }

    private Reply updateTable(UpdateTableEntries c, long time, List<Runnable> effects) {
        Segment s = segments.get(c.segment());
        Reply missing = missingTable(s, c.requestId(), c.segment());
        if (missing != null) {
            return missing;
        }
        if (s.sealed) {
            return new SegmentIsSealed(c.requestId(), c.segment(), "", -1);
        }
        List<TableEntry> batch = c.tableEntries().entries();
        TableState.Refusal tooLong = TableState.checkSizes(batch);
        Reply refused = tooLong != null ? refusal(c.requestId(), s, tooLong, c.tableSegmentOffset())
                : refusal(c.requestId(), s, batch.stream().map(TableEntry::key).toList(), c.tableSegmentOffset());
        if (refused != null) {
            return refused;
        }
        List<Long> versions = s.table.update(batch);
        s.lastModifiedMillis = time;
        wakeParkedReads(s, effects);
        return new TableEntriesUpdated(c.requestId(), versions);
    }

    private Reply removeKeys(RemoveTableKeys c, long time, List<Runnable> effects) {
        Segment s = segments.get(c.segment());
        Reply missing = missingTable(s, c.requestId(), c.segment());
        if (missing != null) {
            return missing;
        }
        if (s.sealed) {
            return new SegmentIsSealed(c.requestId(), c.segment(), "", -1);
        }
        Reply refused = refusal(c.requestId(), s, c.keys(), c.tableSegmentOffset());
        if (refused != null) {
            return refused;
        }
        s.table.remove(c.keys());
        s.lastModifiedMillis = time;
        wakeParkedReads(s, effects);
        return new TableKeysRemoved(c.requestId(), c.segment());
    }

    private static Reply refusal(long requestId, Segment s, List<TableKey> keys, long tableSegmentOffset) {
        TableState.Refusal why = s.table.check(keys, tableSegmentOffset);
        return why == null ? null : refusal(requestId, s, why, tableSegmentOffset);
    }

    private static Reply refusal(long requestId, Segment s, TableState.Refusal why, long tableSegmentOffset) {
        return switch (why) {
            case KEY_DOES_NOT_EXIST -> new TableKeyDoesNotExist(requestId, s.name, "");
            case BAD_KEY_VERSION -> new TableKeyBadVersion(requestId, s.name, "");
            // a real segment store maps the wrong-length condition (BadOffsetException) this way
            case WRONG_TABLE_OFFSET -> new SegmentIsTruncated(requestId, s.name, s.table.length(), "", tableSegmentOffset);
            case BAD_KEY_LENGTH -> badKeyLength(requestId, s);
            // a real segment store's messages for these
            case KEY_TOO_LONG -> new ErrorMessage(requestId, s.name, "Key too large.",
                    ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
            case ENTRY_TOO_LONG -> new ErrorMessage(requestId, s.name, "Key+Value serialization too large.",
                    ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
        };
    }

    private static Reply badKeyLength(long requestId, Segment s) {
        return new ErrorMessage(requestId, s.name, "keys of table segment " + WireText.abbreviate(s.name) + " must be " + s.table.keyLength()
                + " bytes long", ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
    }

    /** @return the reply for a table request on {@code s} when it is no table segment, or null when it is one */
    private static Reply missingTable(Segment s, long requestId, String name) {
        if (s == null) {
            return new NoSuchSegment(requestId, name, "", -1);
        }
        return s.isTable() ? null : notATable(requestId, name);
    }

    private static Reply notATable(long requestId, String name) {
        return new ErrorMessage(requestId, name, WireText.abbreviate(name) + " is not a table segment",
                ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
    }

    // ---------------------------------------------------------------- reads and queries

    /**
     * Answers a query from applied state once every change submitted before it is applied.
     *
     * @param query computes the reply under the lock (quick, no I/O); a {@code null} reply means the query
     *     arranged its own answer (a parked read)
     */
    void query(Function<QueryContext, Object> query, ReplySink sink) {
        Object[] out = new Object[1];
        Runnable compute = () -> out[0] = query.apply(new QueryContext());
        lock.lock();
        boolean now = pending.isEmpty();
        try {
            if (now) {
                compute.run();
            } else {
                pending.peekLast().after.add(() -> {
                    Object r = computeLocked(query);
                    if (r != null) {
                        deliver(r, sink);
                    }
                });
            }
        } finally {
            lock.unlock();
        }
        if (now && out[0] != null) {
            deliver(out[0], sink);
        }
    }

    private Object computeLocked(Function<QueryContext, Object> query) {
        lock.lock();
        try {
            return query.apply(new QueryContext());
        } finally {
            lock.unlock();
        }
    }

    /** Sends a reply, first reading any file-backed bytes a SegmentRead still refers to (outside the lock). */
    private void deliver(Object r, ReplySink sink) {
        sink.send(r instanceof DeferredRead d ? d.materialise(chunks) : (Reply) r);
    }

    /** Gives queries access to the container's state; valid only during the query. */
    final class QueryContext {
        Optional<Segment> segment(String name) {
            return Optional.ofNullable(segments.get(name));
        }
    }

    /** @return the answer to SetupAppend: the writer's last event number in the segment */
    Reply setupAppend(QueryContext ctx, SetupAppend r) {
        Optional<Segment> s = ctx.segment(r.segment());
        if (s.isEmpty() || s.get().isTable()) {
            return new NoSuchSegment(r.requestId(), r.segment(), "", -1);
        }
        long last = s.get().attributes.getOrDefault(r.writerId(), WireProtocol.NULL_ATTRIBUTE_VALUE);
        // the writer resends from `last` on: its appends are accepted again
        java.util.Set<UUID> failed = failedWriters.get(r.segment());
        if (failed != null && failed.remove(r.writerId()) && failed.isEmpty()) {
            failedWriters.remove(r.segment());
        }
        return new AppendSetup(r.requestId(), r.segment(), r.writerId(), last);
    }

    Reply streamSegmentInfo(QueryContext ctx, GetStreamSegmentInfo r) {
        Optional<Segment> o = ctx.segment(r.segmentName());
        if (o.isEmpty()) {
            return new NoSuchSegment(r.requestId(), r.segmentName(), "", -1);
        }
        Segment s = o.get();
        return new StreamSegmentInfo(r.requestId(), r.segmentName(), true, s.sealed, false, s.lastModifiedMillis, s.length(),
                s.startOffset());
    }

    Reply tableSegmentInfo(QueryContext ctx, GetTableSegmentInfo r) {
        Segment s = ctx.segment(r.segmentName()).orElse(null);
        Reply missing = missingTable(s, r.requestId(), r.segmentName());
        if (missing != null) {
            return missing;
        }
        return new TableSegmentInfo(r.requestId(), r.segmentName(), 0, s.table.length(), s.table.entryCount(), s.table.keyLength());
    }

    Reply attribute(QueryContext ctx, GetSegmentAttribute r) {
        Optional<Segment> o = ctx.segment(r.segmentName());
        if (o.isEmpty()) {
            return new NoSuchSegment(r.requestId(), r.segmentName(), "", -1);
        }
        return new SegmentAttribute(r.requestId(), o.get().attributes.getOrDefault(r.attributeId(), WireProtocol.NULL_ATTRIBUTE_VALUE));
    }

    Reply locateOffset(QueryContext ctx, LocateOffset r) {
        Optional<Segment> o = ctx.segment(r.segment());
        if (o.isEmpty()) {
            return new NoSuchSegment(r.requestId(), r.segment(), "", -1);
        }
        Segment s = o.get();
        long length = s.length();
        long target = Math.max(r.targetOffset(), s.startOffset());
        if (s.isTable() || target >= length) {
            return new OffsetLocated(r.requestId(), r.segment(), length);
        }
        Map.Entry<Long, Boolean> floor = s.boundaries.floorEntry(target);
        long p = floor == null ? s.startOffset() : Math.max(floor.getKey(), s.startOffset());
        // walk event headers from a known boundary; only memory-resident data is scanned under the lock
        while (p < target) {
            if (length - p < 8) {
                return new OffsetLocated(r.requestId(), r.segment(), length);
            }
            byte[] header = readHeaderIfInMemory(s, p);
            if (header == null) {
                return new OffsetLocated(r.requestId(), r.segment(), Math.min(length, Math.max(target, p)));
            }
            ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.BIG_ENDIAN);
            int type = h.getInt();
            int len = h.getInt();
            if (type != 0 || len < 0) {
                return new OffsetLocated(r.requestId(), r.segment(), length);
            }
            p += 8L + len;
        }
        return new OffsetLocated(r.requestId(), r.segment(), Math.min(p, length));
    }

    private static byte[] readHeaderIfInMemory(Segment s, long offset) {
        for (SegmentData.Chunk c : s.data.chunks()) {
            if (c.offset() <= offset && offset + 8 <= c.offset() + c.length()) {
                if (c instanceof SegmentData.MemoryChunk m) {
                    byte[] b = new byte[8];
                    m.copy(offset, b, 0, 8);
                    return b;
                }
                return null;
            }
        }
        return null;
    }

    /**
     * Answers ReadSegment: data if there is some at the offset, end-of-segment for a sealed segment read to its end,
     * truncation below the start; at the tail of an unsealed segment the read is parked until data arrives, the
     * segment is sealed or deleted, or its connection goes away.
     *
     * <p>A table segment's bytes are not kept (only its entries), so a read of one below its length is answered with
     * SegmentIsTruncated at the length; at the length it is parked until an update or removal makes the table grow.
     * That is the long poll a client waits for table changes with: on a real segment store, whose table segments are
     * segments of serialized entries, the same read is answered with the new entries' bytes.
     *
     * @return the reply, or {@code null} if the read was parked
     */
    Object read(QueryContext ctx, ReadSegment r, ReplySink sink, Object owner) {
        Optional<Segment> o = ctx.segment(r.segment());
        if (o.isEmpty()) {
            return new NoSuchSegment(r.requestId(), r.segment(), "", r.offset());
        }
        Segment s = o.get();
        long offset = r.offset();
        if (s.isTable() && offset < s.length()) {
            return tableBytesGone(s, offset, r.requestId());
        }
        if (offset < s.startOffset()) {
            return new SegmentIsTruncated(r.requestId(), r.segment(), s.startOffset(), "", offset);
        }
        int max = Math.min(MAX_READ_BYTES, Math.max(8, r.suggestedLength()));
        if (offset < s.length()) {
            return readReply(s, offset, max, r.requestId());
        }
        if (s.sealed) {
            return new SegmentRead(r.segment(), offset, false, true, Bytes.EMPTY, r.requestId());
        }
        s.parked.add(new Segment.ParkedRead(offset, max, r.requestId(), sink, owner));
        return null;
    }

    /**
     * Builds a SegmentRead of up to {@code max} bytes at {@code offset} (which is below the length). Bytes that lie
     * in one memory chunk are not copied: the reply is a view of it, so any number of replies of the same data (reads
     * parked at the tail, woken by one append) costs the server no more memory. A read across chunks is copied.
     */
    private Object readReply(Segment s, long offset, int max, long requestId) {
        int n = (int) Math.min(max, s.length() - offset);
        if (s.data.chunkAt(offset) instanceof SegmentData.MemoryChunk m && offset + n <= m.offset() + m.length()) {
            boolean end = offset + n == s.length();
            return new SegmentRead(s.name, offset, end && !s.sealed, end && s.sealed, m.view(offset, n), requestId);
        }
        boolean end = offset + n == s.length();
        boolean atTail = end && !s.sealed;
        boolean endOfSegment = end && s.sealed;
        List<SegmentData.Chunk> refs = new ArrayList<>();
        for (SegmentData.Chunk c : s.data.chunks()) {
            if (c.offset() + c.length() > offset && c.offset() < offset + n && c instanceof SegmentData.StoredChunk) {
                refs.add(c);
            }
        }
        if (refs.isEmpty()) {
            byte[] bytes = s.data.read(offset, n, (chunk, from, dst, at, len) -> {
                throw new IllegalStateException("no stored chunk expected");
            });
            return new SegmentRead(s.name, offset, atTail, endOfSegment, ByteBuffer.wrap(bytes), requestId);
        }
        // some bytes are in chunk files: copy what is in memory now, read the files after the lock is released
        return new DeferredRead(s.name, offset, n, atTail, endOfSegment, requestId, List.copyOf(s.data.chunks()));
    }

    /** Completes parked reads that new data satisfies. Under the lock; replies are sent after it is released. */
    private void wakeParkedReads(Segment s, List<Runnable> effects) {
        if (s.parked.isEmpty()) {
            return;
        }
        for (Iterator<Segment.ParkedRead> it = s.parked.iterator(); it.hasNext();) {
            Segment.ParkedRead p = it.next();
            if (p.offset() < s.length()) {
                it.remove();
                Object reply = s.isTable() ? tableBytesGone(s, p.offset(), p.requestId())
                        : readReply(s, p.offset(), p.maxLength(), p.requestId());
                effects.add(() -> deliver(reply, p.sink()));
            }
        }
    }

    /** The answer to a read of a table segment's bytes below its length: they are not kept. */
    private static Reply tableBytesGone(Segment s, long offset, long requestId) {
        return new SegmentIsTruncated(requestId, s.name, s.length(), "", offset);
    }

    /** Answers every parked read of a segment that was sealed ({@code sealed}) or is gone. */
    private void releaseParkedReads(Segment s, List<Runnable> effects, boolean sealed) {
        for (Segment.ParkedRead p : s.parked) {
            Reply reply = sealed ? new SegmentIsSealed(p.requestId(), s.name, "", p.offset())
                    : new NoSuchSegment(p.requestId(), s.name, "", p.offset());
            effects.add(() -> p.sink().send(reply));
        }
        s.parked.clear();
    }

    /** Forgets the parked reads of a connection that went away. */
    void dropParkedReads(Object owner) {
        lock.lock();
        try {
            for (Segment s : segments.values()) {
                if (!s.parked.isEmpty()) {
                    s.parked.removeIf(p -> p.owner() == owner);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    Reply readTable(QueryContext ctx, ReadTable r) {
        Segment s = ctx.segment(r.segment()).orElse(null);
        Reply missing = missingTable(s, r.requestId(), r.segment());
        if (missing != null) {
            return missing;
        }
        for (TableKey k : r.keys()) {
            if (s.table.checkKeyLength(k.data()) != null) {
                return badKeyLength(r.requestId(), s);
            }
        }
        return new TableRead(r.requestId(), r.segment(), new TableEntries(s.table.read(r.keys())));
    }

    Reply readTableKeys(QueryContext ctx, ReadTableKeys r) {
        Segment s = ctx.segment(r.segment()).orElse(null);
        Reply missing = missingTable(s, r.requestId(), r.segment());
        if (missing != null) {
            return missing;
        }
        Reply bad = badRange(r.requestId(), r.segment(), r.args());
        if (bad != null) {
            return bad;
        }
        var page = scan(s, r.args(), r.suggestedKeyCount());
        List<TableKey> keys = page.stream().map(e -> new TableKey(e.getKey().buffer(), e.getValue().version())).toList();
        return new TableKeysRead(r.requestId(), r.segment(), keys, continuation(page, r.args().continuationToken()));
    }

    Reply readTableEntries(QueryContext ctx, ReadTableEntries r) {
        Segment s = ctx.segment(r.segment()).orElse(null);
        Reply missing = missingTable(s, r.requestId(), r.segment());
        if (missing != null) {
            return missing;
        }
        Reply bad = badRange(r.requestId(), r.segment(), r.args());
        if (bad != null) {
            return bad;
        }
        var page = scan(s, r.args(), r.suggestedEntryCount());
        List<TableEntry> entries = page.stream().map(e -> new TableEntry(new TableKey(e.getKey().buffer(), e.getValue().version()),
                new TableValue(Bytes.wrap(e.getValue().bytes())))).toList();
        return new TableEntriesRead(r.requestId(), r.segment(), new TableEntries(entries),
                continuation(page, r.args().continuationToken()));
    }

    /** @return the error for an iteration whose fromKey lies after its toKey, or null if the range is sound */
    private static Reply badRange(long requestId, String segment, io.sluice.wire.TableIteratorArgs args) {
        if (args.fromKey().hasRemaining() && args.toKey().hasRemaining()
                && TableState.Key.of(args.fromKey()).compareTo(TableState.Key.of(args.toKey())) > 0) {
            return new ErrorMessage(requestId, segment, "the iteration's fromKey is after its toKey",
                    ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
        }
        return null;
    }

    /** Iteration: the continuation token is the last key returned; an empty page means the end. */
    private static List<Map.Entry<TableState.Key, TableState.Value>> scan(Segment s, io.sluice.wire.TableIteratorArgs args,
                                                                         int suggested) {
        TableState.Key after = args.continuationToken().hasRemaining() ? TableState.Key.of(args.continuationToken()) : null;
        TableState.Key from = args.fromKey().hasRemaining() ? TableState.Key.of(args.fromKey()) : null;
        TableState.Key to = args.toKey().hasRemaining() ? TableState.Key.of(args.toKey()) : null;
        return s.table.scan(after, from, to, Math.max(1, suggested), MAX_TABLE_REPLY_BYTES);
    }

    private static ByteBuffer continuation(List<Map.Entry<TableState.Key, TableState.Value>> page, ByteBuffer previous) {
        return page.isEmpty() ? previous : page.get(page.size() - 1).getKey().buffer();
    }

    Reply readTableDelta(QueryContext ctx, ReadTableEntriesDelta r) {
        Segment s = ctx.segment(r.segment()).orElse(null);
        Reply missing = missingTable(s, r.requestId(), r.segment());
        if (missing != null) {
            return missing;
        }
        if (s.table.keyLength() > 0) {
            // as a real segment store: its tables with fixed-length keys have no delta iterator
            return new OperationUnsupported(r.requestId(), "readTableEntriesDelta", "");
        }
        if (r.fromPosition() < 0 || r.fromPosition() > s.table.length()) {
            return new ErrorMessage(r.requestId(), r.segment(), "fromPosition (" + r.fromPosition() + ") must be at "
                    + "least 0 and can not exceed the length (" + s.table.length() + ") of the TableSegment.",
                    ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
        }
        int max = Math.clamp(r.suggestedEntryCount(), 1, Integer.MAX_VALUE - 1); // a suggestion; max + 1 must fit
        var page = s.table.since(r.fromPosition(), max + 1);
        boolean reachedEnd = page.size() <= max;
        if (!reachedEnd) {
            page = page.subList(0, max);
        }
        long last = page.isEmpty() ? Math.max(r.fromPosition(), 0)
                : page.get(page.size() - 1).getValue().version() + TableState.entrySize(page.get(page.size() - 1));
        if (reachedEnd) {
            last = Math.max(last, s.table.length());
        }
        List<TableEntry> entries = page.stream().map(e -> new TableEntry(new TableKey(e.getKey().buffer(), e.getValue().version()),
                new TableValue(Bytes.wrap(e.getValue().bytes())))).toList();
        return new TableEntriesDeltaRead(r.requestId(), r.segment(), new TableEntries(entries), false, reachedEnd, last);
    }

    // ---------------------------------------------------------------- snapshots

    /**
     * Starts a snapshot: runs {@code switchLog} (which must start the next write log) under the lock, so every
     * change submitted before is in the old log and every later one in the new; the returned future completes with
     * the state exactly as of the last change in the old log, captured under the lock the moment it is applied.
     */
    CompletableFuture<ContainerImage> beginSnapshot(Runnable switchLog) {
        CompletableFuture<ContainerImage> image = new CompletableFuture<>();
        lock.lock();
        try {
            if (cannotWrite != null) {
                image.completeExceptionally(new IllegalStateException("segment container " + id
                        + " cannot write now: " + reason(cannotWrite), cannotWrite));
                return image;
            }
            switchLog.run();
            if (pending.isEmpty()) {
                image.complete(capture());
            } else {
                pending.peekLast().onApplied.add(() -> image.complete(capture()));
            }
        } finally {
            lock.unlock();
        }
        return image;
    }

    /** Under the lock: a consistent copy of the container's state (memory chunks by reference, with their lengths). */
    private ContainerImage capture() {
        List<ContainerImage.SegmentImage> images = new ArrayList<>(segments.size());
        for (Segment s : segments.values()) {
            images.add(ContainerImage.SegmentImage.of(s));
        }
        return new ContainerImage(nextSegmentId, images, List.copyOf(droppedSegments));
    }

    /**
     * After a snapshot is stored: memory chunks it wrote to chunk files are replaced by their stored form (if they
     * have not grown since), which frees their memory.
     *
     * @return owners (segment ids) whose chunk files no segment needs any more: the caller deletes them
     */
    List<Long> finishSnapshot(ContainerImage stored) {
        lock.lock();
        try {
            for (ContainerImage.SegmentImage image : stored.segments()) {
                Segment live = segments.get(image.name());
                if (live == null || live.id != image.id()) {
                    continue;
                }
                for (ContainerImage.Written w : image.written()) {
                    if (w.memory().length() == w.stored().length()) {
                        live.data.replace(w.memory(), w.stored());
                    }
                }
            }
            java.util.Set<Long> referenced = new java.util.HashSet<>();
            for (Segment s : segments.values()) {
                for (SegmentData.Chunk c : s.data.chunks()) {
                    if (c instanceof SegmentData.StoredChunk sc) {
                        referenced.add(sc.ref().owner());
                    }
                }
                referenced.add(s.id);
            }
            List<Long> reclaim = new ArrayList<>();
            for (Long owner : stored.dropped()) {
                if (!referenced.contains(owner)) {
                    reclaim.add(owner);
                }
            }
            droppedSegments.removeAll(stored.dropped());
            droppedSegments.addAll(stored.dropped().stream().filter(referenced::contains).toList());
            return reclaim;
        } finally {
            lock.unlock();
        }
    }

    /** Replaces the whole state by a snapshot's (recovery, before any change is submitted). */
    void restore(ContainerImage image) {
        lock.lock();
        try {
            segments.clear();
            for (ContainerImage.SegmentImage si : image.segments()) {
                Segment s = si.toSegment();
                segments.put(s.name, s);
            }
            nextSegmentId = image.nextSegmentId();
            droppedSegments.clear();
            droppedSegments.addAll(image.dropped());
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- admin helpers

    /** @return the names of transient segments (deleted at recovery: their connections are gone) */
    List<String> transientSegments() {
        lock.lock();
        try {
            return segments.values().stream().filter(s -> s.kind == Segment.Kind.TRANSIENT).map(s -> s.name).toList();
        } finally {
            lock.unlock();
        }
    }

    /** @return a read-only copy of a segment's state for in-process callers, or empty */
    Optional<SegmentAdmin.SegmentInfo> info(String name) {
        lock.lock();
        try {
            Segment s = segments.get(name);
            return s == null ? Optional.empty() : Optional.of(new SegmentAdmin.SegmentInfo(name, s.startOffset(), s.length(),
                    s.sealed, s.isTable(), s.lastModifiedMillis));
        } finally {
            lock.unlock();
        }
    }

    /** @return every segment name in the container */
    Collection<String> segmentNames() {
        lock.lock();
        try {
            return List.copyOf(segments.keySet());
        } finally {
            lock.unlock();
        }
    }

    /** A name for a new transient segment of {@code parent}: {@code parent#transient.<writer hex>.<random hex>}. */
    static String transientName(String parent, UUID writerId) {
        HexFormat hex = HexFormat.of();
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        return parent + "#transient." + hex.toHexDigits(writerId.getMostSignificantBits())
                + hex.toHexDigits(writerId.getLeastSignificantBits()) + "." + hex.toHexDigits(rnd.nextLong())
                + hex.toHexDigits(rnd.nextLong());
    }
}
