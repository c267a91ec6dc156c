package io.sluice.server.controller;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.server.controller.Journal.Decision;
import io.sluice.server.controller.StreamMeta.RollingRecord;

/**
 * The segment work that completes transactions: merging committing ones into their stream (rolling them over when a
 * scale sealed their epoch's segments) and deleting the segments of aborting ones. Every method runs on the stream's
 * key; each step is idempotent, so recovery can run it again. Thread-safe.
 */
final class TxnCompletion {
    private static final Logger LOG = LoggerFactory.getLogger(TxnCompletion.class);

    private final ControllerContext ctx;
    private final Journal journal;
    private final SegmentAdmin admin;
    private final WriterMarks marks;

    TxnCompletion(ControllerContext ctx, WriterMarks marks) {
        this.ctx = ctx;
        this.journal = ctx.journal();
        this.admin = ctx.admin();
        this.marks = marks;
    }

    /**
     * Merges committing transactions into the stream, lowest epoch first and in commit order within an epoch, one
     * transaction at a time, so a transaction never overtakes one whose commit was requested earlier. Transactions
     * of an epoch whose segments a scale sealed are rolled over into copies of that epoch (Pravega's rolling
     * transactions). Runs on the stream's key.
     */
    void processCommits(String scope, String stream) {
        if (journal.read(m -> m.stream(scope, stream) == null ? null : m.stream(scope, stream).rolling) != null) {
            finishRollingTxn(scope, stream);
        }
        while (true) {
            record Batch(List<TxnRecord> txns, EpochRecord active) {
            }
            Batch batch = journal.read(m -> {
                StreamMeta s = m.stream(scope, stream);
                return s == null ? new Batch(List.of(), null) : new Batch(s.nextCommitBatch(), s.activeEpoch());
            });
            if (batch.txns().isEmpty()) {
                return;
            }
            if (batch.txns().getFirst().epoch() == batch.active().referenceEpoch()) {
                for (TxnRecord txn : batch.txns()) {
                    noteCommitMark(scope, stream, txn,
                            mergeTransaction(scope, stream, txn.id(), batch.active().segments()));
                    journal.write(m -> Decision.of(null,
                            new ControllerEvent.TxnCommitted(scope, stream, txn.id(), ctx.clock().millis())));
                }
            } else {
                journal.write(m -> Decision.of(null,
                        new ControllerEvent.RollingTxnStarted(scope, stream, ctx.clock().millis())));
                finishRollingTxn(scope, stream);
            }
        }
    }

    private void finishRollingTxn(String scope, String stream) {
        record Plan(RollingRecord rolling, StreamConfig config) {
        }
        Plan plan = journal.read(m -> new Plan(m.stream(scope, stream).rolling, m.stream(scope, stream).config));
        RollingRecord rolling = plan.rolling();
        if (!rolling.epochsCreated()) {
            for (SegmentRecord s : rolling.txnCopies().segments()) {
                ctx.createStreamSegment(Names.segmentName(scope, stream, s.id()), plan.config());
            }
            for (SegmentRecord s : rolling.activeCopies().segments()) {
                ctx.createStreamSegment(Names.segmentName(scope, stream, s.id()), plan.config());
            }
            journal.write(m -> Decision.of(null, new ControllerEvent.RollingTxnEpochsCreated(scope, stream)));
        }
        for (UUID id : rolling.txns()) {
            boolean committing = journal.read(m -> m.stream(scope, stream).txnState(id) == TxnPhase.COMMITTING);
            if (committing) {
                TxnRecord txn = journal.read(m -> m.stream(scope, stream).txns.get(id));
                noteCommitMark(scope, stream, txn,
                        mergeTransaction(scope, stream, id, rolling.txnCopies().segments()));
                journal.write(m -> Decision.of(null,
                        new ControllerEvent.TxnCommitted(scope, stream, id, ctx.clock().millis())));
            }
        }
        for (SegmentRecord s : rolling.txnCopies().segments()) {
            ctx.sealSegment(Names.segmentName(scope, stream, s.id()));
        }
        for (SegmentRecord s : rolling.previousActive().segments()) {
            ctx.sealSegment(Names.segmentName(scope, stream, s.id()));
        }
        journal.write(m -> Decision.of(null, new ControllerEvent.RollingTxnCompleted(scope, stream)));
    }

    /**
     * Seals each of the transaction's segments and merges it into the target of the same number. Idempotent.
     *
     * @return segment id → its length after the merge, for the segments the transaction wrote to
     */
    private Map<Long, Long> mergeTransaction(String scope, String stream, UUID txnId, List<SegmentRecord> targets) {
        Map<Long, Long> offsets = new LinkedHashMap<>();
        for (SegmentRecord target : targets) {
            String source = Names.txnSegmentName(scope, stream, target.number(), txnId);
            if (admin.segmentInfo(source).isEmpty()) {
                continue;
            }
            try {
                admin.sealSegment(source);
            } catch (NoSuchSegmentException e) {
                continue;
            }
            offsets.put(target.id(), admin.mergeSegments(Names.segmentName(scope, stream, target.id()), source));
        }
        return offsets;
    }

    /**
     * A committed transaction counts as a mark of its writer (Pravega's {@code generateMarksForTransactions}): its
     * commit time at the offsets its merge left. Marks that do not advance the writer's are ignored.
     */
    private void noteCommitMark(String scope, String stream, TxnRecord txn, Map<Long, Long> offsets) {
        if (txn == null || txn.writerId() == null || txn.writerId().isEmpty()) {
            return;
        }
        try {
            marks.noteTimestampFromWriter(scope, stream, txn.writerId(), txn.commitTimestamp(), offsets);
        } catch (RuntimeException e) {
            LOG.warn("noting the commit of transaction {} as a mark of writer {} failed", txn.id(), txn.writerId(), e);
        }
    }

    /** Deletes the segments of every aborting transaction and marks it aborted. Runs on the stream's key. */
    void processAborts(String scope, String stream) {
        record Abort(UUID id, List<SegmentRecord> segments) {
        }
        List<Abort> aborts = journal.read(m -> {
            StreamMeta s = m.stream(scope, stream);
            List<Abort> list = new ArrayList<>();
            if (s != null) {
                for (TxnRecord t : s.txns.values()) {
                    if (t.state() == TxnPhase.ABORTING) {
                        EpochRecord epoch = s.epoch(t.epoch());
                        list.add(new Abort(t.id(), epoch == null ? List.of() : epoch.segments()));
                    }
                }
            }
            return list;
        });
        for (Abort abort : aborts) {
            for (SegmentRecord segment : abort.segments()) {
                admin.deleteSegment(Names.txnSegmentName(scope, stream, segment.number(), abort.id()));
            }
            journal.write(m -> Decision.of(null,
                    new ControllerEvent.TxnAborted(scope, stream, abort.id(), ctx.clock().millis())));
        }
    }
}
