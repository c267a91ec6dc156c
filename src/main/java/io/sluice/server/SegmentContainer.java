package io.sluice.server;

import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

import io.sluice.server.controller.SegmentAdmin;
import io.sluice.wire.DataAppended;
import io.sluice.wire.ErrorMessage;
import io.sluice.wire.GetSegmentAttribute;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.GetTableSegmentInfo;
import io.sluice.wire.LocateOffset;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.ReadTable;
import io.sluice.wire.ReadTableEntries;
import io.sluice.wire.ReadTableEntriesDelta;
import io.sluice.wire.ReadTableKeys;
import io.sluice.wire.Reply;
import io.sluice.wire.SetupAppend;

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
 * <p>This class is the container's face to the rest of the server; the work is done by its parts around one shared
 * {@link ContainerState}: the durability pipeline ({@link ContainerPipeline}), the segment state machine
 * ({@link ContainerChanges}), table segments ({@link TableSegments}), reads and reads parked at the tail
 * ({@link TailReads}), other queries ({@link ContainerQueries}) and snapshots ({@link ContainerSnapshots}).
 *
 * <p>Thread-safe. One lock guards all state; nothing under it blocks or does I/O (log appends only enqueue;
 * file-backed chunks are read after the lock is released).
 */
final class SegmentContainer {
    /** Largest reply to one ReadSegment, as on a real segment store. */
    static final int MAX_READ_BYTES = 2 * 1024 * 1024;

    /** The durable log the container writes its changes to. */
    interface Log {
        /**
         * Queues an entry; must not block. The future completes when the entry is durable.
         *
         * @param entry the encoded change ({@link #NO_LOG} is given null: it keeps nothing)
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

    /** A log that keeps nothing: changes are "durable" at once (the in-memory server); it is given no entries (null). */
    static final Log NO_LOG = entry -> CompletableFuture.completedFuture(null);

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

    /** Gives queries access to the container's state; valid only during the query (under the container lock). */
    static final class QueryContext {
        private final ContainerState state;

        QueryContext(ContainerState state) {
            this.state = state;
        }

        Optional<Segment> segment(String name) {
            return Optional.ofNullable(state.segments.get(name));
        }
    }

    private final ContainerState state;
    private final ContainerPipeline pipeline;
    private final ContainerChanges changes;
    private final TailReads tails;
    private final TableSegments tables;
    private final ContainerQueries queries;
    private final ContainerSnapshots snapshots;

    SegmentContainer(int id, Log log, SegmentData.ChunkReader chunks) {
        this.state = new ContainerState(id, log, chunks);
        this.tails = new TailReads(state);
        this.tables = new TableSegments(state, tails);
        this.changes = new ContainerChanges(state, tails, tables);
        this.pipeline = new ContainerPipeline(state, changes);
        this.queries = new ContainerQueries(state);
        this.snapshots = new ContainerSnapshots(state, pipeline);
    }

    int id() {
        return state.id;
    }

    /** Tells {@code o} of every change applied from now on while serving (not of replays). */
    void observe(ContainerObserver o) {
        state.observer = java.util.Objects.requireNonNull(o, "observer");
    }

    // ---------------------------------------------------------------- changes

    /**
     * Writes a change to the log and applies it once durable.
     *
     * @return completes with the change's result (a {@link Reply}, or an {@link AppendResult} for appends)
     */
    CompletableFuture<Object> submit(ContainerOp op) {
        return pipeline.submit(op);
    }

    /** @return completes when the container accepts changes (at once unless its log cannot write now) */
    CompletableFuture<Void> writable() {
        return pipeline.writable();
    }

    /**
     * The reply to a change while the log cannot write: an {@link ErrorMessage} (a real segment store closes the
     * connection on a storage failure instead, which tells a client nothing). Its text starts with "the segment
     * store cannot write: " and then says why, e.g. "no space left on device".
     */
    static ErrorMessage cannotWriteReply(long requestId, String segment, Throwable why) {
        return ContainerPipeline.cannotWriteReply(requestId, segment, why);
    }

    /** @return the innermost message of a failure, starting lower-case ("no space left on device") */
    static String reason(Throwable why) {
        return ContainerPipeline.reason(why);
    }

    /**
     * Runs {@code action} once every change submitted so far has been applied (at once if none is pending). The
     * action runs under the container lock: it must be quick and must not block.
     */
    void afterPending(Runnable action) {
        pipeline.afterPending(action);
    }

    /** Applies a log entry during recovery; replies are discarded. */
    void replay(ContainerOp op) {
        state.locked(() -> changes.replay(op));
    }

    // ---------------------------------------------------------------- reads and queries

    /**
     * Answers a query from applied state once every change submitted before it is applied.
     *
     * @param query computes the reply under the lock (quick, no I/O); a {@code null} reply means the query
     *     arranged its own answer (a parked read)
     */
    void query(Function<QueryContext, Object> query, ReplySink sink) {
        pipeline.query(query, sink);
    }

    /** @return the answer to SetupAppend: the writer's last event number in the segment */
    Reply setupAppend(QueryContext ctx, SetupAppend r) {
        return queries.setupAppend(ctx, r);
    }

    Reply streamSegmentInfo(QueryContext ctx, GetStreamSegmentInfo r) {
        return queries.streamSegmentInfo(ctx, r);
    }

    Reply tableSegmentInfo(QueryContext ctx, GetTableSegmentInfo r) {
        return tables.info(ctx, r);
    }

    Reply attribute(QueryContext ctx, GetSegmentAttribute r) {
        return queries.attribute(ctx, r);
    }

    Reply locateOffset(QueryContext ctx, LocateOffset r) {
        return queries.locateOffset(ctx, r);
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
        return tails.read(ctx, r, sink, owner);
    }

    /** Forgets the parked reads of a connection that went away. */
    void dropParkedReads(Object owner) {
        tails.drop(owner);
    }

    Reply readTable(QueryContext ctx, ReadTable r) {
        return tables.read(ctx, r);
    }

    Reply readTableKeys(QueryContext ctx, ReadTableKeys r) {
        return tables.readKeys(ctx, r);
    }

    Reply readTableEntries(QueryContext ctx, ReadTableEntries r) {
        return tables.readEntries(ctx, r);
    }

    Reply readTableDelta(QueryContext ctx, ReadTableEntriesDelta r) {
        return tables.readDelta(ctx, r);
    }

    // ---------------------------------------------------------------- snapshots

    /**
     * Starts a snapshot: runs {@code switchLog} (which must start the next write log) under the lock, so every
     * change submitted before is in the old log and every later one in the new; the returned future completes with
     * the state exactly as of the last change in the old log, captured under the lock the moment it is applied.
     */
    CompletableFuture<ContainerImage> beginSnapshot(Runnable switchLog) {
        return snapshots.begin(switchLog);
    }

    /**
     * After a snapshot is stored: memory chunks it wrote to chunk files are replaced by their stored form (if they
     * have not grown since), which frees their memory.
     *
     * @return owners (segment ids) whose chunk files no segment needs any more: the caller deletes them
     */
    List<Long> finishSnapshot(ContainerImage stored) {
        return snapshots.finish(stored);
    }

    /** Replaces the whole state by a snapshot's (recovery, before any change is submitted). */
    void restore(ContainerImage image) {
        snapshots.restore(image);
    }

    // ---------------------------------------------------------------- admin helpers

    /** @return the names of transient segments (deleted at recovery: their connections are gone) */
    List<String> transientSegments() {
        return queries.transientSegments();
    }

    /** @return a read-only copy of a segment's state for in-process callers, or empty */
    Optional<SegmentAdmin.SegmentInfo> info(String name) {
        return queries.info(name);
    }

    /** @return every segment name in the container */
    Collection<String> segmentNames() {
        return queries.segmentNames();
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
