package io.sluice.server.controller;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.controller.grpc.v1.PingTxnStatus;
import io.sluice.controller.grpc.v1.SegmentRange;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.controller.grpc.v1.TxnStatus;
import io.sluice.server.controller.ControllerModel.ScopeMeta;
import io.sluice.server.controller.Journal.Decision;

import static io.sluice.server.controller.ControllerContext.requireStream;
import static io.sluice.server.controller.ControllerContext.streamKey;

/**
 * Transactions: create (with their segments), ping (lease), commit and abort requests, their state, and lease
 * expiry. Commit and abort requests are logged at once and completed in the background on the stream's key by
 * {@link TxnCompletion}; work that fails is remembered and tried again by {@link #retryFailedWork()}. Thread-safe.
 */
final class Transactions {
    private static final Logger LOG = LoggerFactory.getLogger(Transactions.class);

    private final ControllerContext ctx;
    private final Journal journal;
    private final SegmentAdmin admin;
    private final ControllerSettings settings;
    private final TxnCompletion completion;
    /** Scoped names of streams whose background commit or abort failed; the timer tries them again. */
    private final Set<String> retryStreams = ConcurrentHashMap.newKeySet();

    Transactions(ControllerContext ctx, TxnCompletion completion) {
        this.ctx = ctx;
        this.journal = ctx.journal();
        this.admin = ctx.admin();
        this.settings = ctx.settings();
        this.completion = completion;
    }

    ControllerCore.CreatedTxn createTransaction(String scope, String stream, long leaseMillis) {
        if (leaseMillis < settings.minLease().toMillis() || leaseMillis > settings.maxLease().toMillis()) {
            throw Protos.invalid("transaction lease must be within [" + settings.minLease().toMillis() + ", "
                    + settings.maxLease().toMillis() + "] ms, got " + leaseMillis);
        }
        return ctx.onKey(streamKey(scope, stream), () -> {
            record Plan(UUID id, int epoch, List<SegmentRecord> segments, StreamConfig config) {
            }
            Plan plan = journal.write(m -> {
                StreamMeta s = requireStream(m, scope, stream);
                if (s.state != StreamMeta.State.ACTIVE) {
                    throw Protos.failedPrecondition("stream " + Names.scoped(scope, stream) + " is "
                            + s.state.name().toLowerCase(Locale.ROOT) + "; no new transactions");
                }
                int epoch = s.activeEpoch().referenceEpoch();
                UUID id;
                do {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    id = new UUID(((long) epoch << 32) | (random.nextInt() & 0xFFFFFFFFL), random.nextLong());
                } while (s.txnState(id) != null);
                long now = ctx.clock().millis();
                long maxExecution = Math.min(1000 * leaseMillis, settings.maxExecutionTimeBound().toMillis());
                return Decision.of(new Plan(id, epoch, s.epoch(epoch).segments(), s.config),
                        new ControllerEvent.TxnCreated(scope, stream, id, now, now + leaseMillis, now + maxExecution));
            });
            try {
                for (SegmentRecord segment : plan.segments()) {
                    admin.createSegment(Names.txnSegmentName(scope, stream, segment.number(), plan.id()), (byte) 0,
                            0, plan.config().getRolloverSizeBytes());
                }
            } catch (RuntimeException e) {
                LOG.warn("creating the segments of transaction {} on {} failed; aborting it", plan.id(),
                        Names.scoped(scope, stream), e);
                journal.write(m -> Decision.of(null, new ControllerEvent.TxnAborting(scope, stream, plan.id())));
                completion.processAborts(scope, stream);
                throw e;
            }
            List<SegmentRange> ranges = new ArrayList<>();
            for (SegmentRecord segment : StreamMeta.sortedByKey(plan.segments())) {
                ranges.add(Protos.segmentRange(scope, stream, Names.segmentId(segment.number(), plan.epoch()),
                        segment.keyStart(), segment.keyEnd()));
            }
            return new ControllerCore.CreatedTxn(plan.id(), ranges);
        });
    }

    PingTxnStatus.Status pingTransaction(String scope, String stream, UUID txnId, long leaseMillis) {
        return journal.write(m -> {
            StreamMeta s = requireStream(m, scope, stream);
            TxnRecord txn = s.txns.get(txnId);
            if (txn == null) {
                TxnPhase done = s.completedTxns.get(txnId);
                return Decision.of(done == TxnPhase.COMMITTED ? PingTxnStatus.Status.COMMITTED
                        : done == TxnPhase.ABORTED ? PingTxnStatus.Status.ABORTED : PingTxnStatus.Status.UNKNOWN);
            }
            switch (txn.state()) {
                case COMMITTING, COMMITTED -> {
                    return Decision.of(PingTxnStatus.Status.COMMITTED);
                }
                case ABORTING, ABORTED -> {
                    return Decision.of(PingTxnStatus.Status.ABORTED);
                }
                case OPEN -> {
                }
            }
            long now = ctx.clock().millis();
            if (leaseMillis > settings.maxLease().toMillis()) {
                return Decision.of(PingTxnStatus.Status.LEASE_TOO_LARGE);
            }
            if (now + leaseMillis > txn.maxExecutionExpiry()) {
                return Decision.of(PingTxnStatus.Status.MAX_EXECUTION_TIME_EXCEEDED);
            }
            return Decision.of(PingTxnStatus.Status.OK,
                    new ControllerEvent.TxnPinged(scope, stream, txnId, now + leaseMillis));
        });
    }

    TxnStatus.Status commitTransaction(String scope, String stream, UUID txnId, String writerId, long timestamp) {
        record Result(TxnStatus.Status status, boolean changed) {
        }
        Result result = journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s == null) {
                return Decision.of(new Result(TxnStatus.Status.FAILURE, false));
            }
            TxnPhase state = s.txnState(txnId);
            if (state == null) {
                return Decision.of(new Result(TxnStatus.Status.FAILURE, false));
            }
            return switch (state) {
                case OPEN -> s.state == StreamMeta.State.ACTIVE
                        ? Decision.of(new Result(TxnStatus.Status.SUCCESS, true),
                                new ControllerEvent.TxnCommitting(scope, stream, txnId, writerId, timestamp))
                        : Decision.of(new Result(TxnStatus.Status.FAILURE, false));
                case COMMITTING, COMMITTED -> Decision.of(new Result(TxnStatus.Status.SUCCESS, false));
                case ABORTING, ABORTED -> Decision.of(new Result(TxnStatus.Status.FAILURE, false));
            };
        });
        if (result.changed()) {
            submitTxnWork(scope, stream);
        }
        return result.status();
    }

    TxnStatus.Status abortTransaction(String scope, String stream, UUID txnId) {
        record Result(TxnStatus.Status status, boolean changed) {
        }
        Result result = journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            TxnPhase state = s == null ? null : s.txnState(txnId);
            if (state == null) {
                return Decision.of(new Result(TxnStatus.Status.FAILURE, false));
            }
            return switch (state) {
                case OPEN -> Decision.of(new Result(TxnStatus.Status.SUCCESS, true),
                        new ControllerEvent.TxnAborting(scope, stream, txnId));
                case ABORTING, ABORTED -> Decision.of(new Result(TxnStatus.Status.SUCCESS, false));
                case COMMITTING, COMMITTED -> Decision.of(new Result(TxnStatus.Status.FAILURE, false));
            };
        });
        if (result.changed()) {
            submitTxnWork(scope, stream);
        }
        return result.status();
    }

    /**
     * Queues, on the stream's key, the merging of committing and the deletion of aborting transactions. If that
     * fails (the segment store had a problem), the stream is remembered for {@link #retryFailedWork()}.
     */
    private void submitTxnWork(String scope, String stream) {
        String scoped = Names.scoped(scope, stream);
        ctx.executors().submit(streamKey(scope, stream), () -> {
            completion.processCommits(scope, stream);
            completion.processAborts(scope, stream);
            return null;
        }).whenComplete((v, e) -> {
            if (e != null) {
                LOG.warn("completing transactions of {} failed; will try again", scoped, e);
                retryStreams.add(scoped);
            }
        });
    }

    /** {@link #submitTxnWork(String, String)} for a scoped stream name {@code scope/stream}. */
    private void submitTxnWork(String scoped) {
        int slash = scoped.indexOf('/');
        submitTxnWork(scoped.substring(0, slash), scoped.substring(slash + 1));
    }

    /**
     * Tries again the background transaction work that failed earlier.
     *
     * @return how many streams were retried
     */
    int retryFailedWork() {
        List<String> streams = new ArrayList<>(retryStreams);
        for (String scoped : streams) {
            retryStreams.remove(scoped);
            submitTxnWork(scoped);
        }
        return streams.size();
    }

    io.sluice.controller.grpc.v1.TxnState.State transactionState(String scope, String stream, UUID txnId) {
        return journal.read(m -> {
            StreamMeta s = m.stream(scope, stream);
            TxnPhase state = s == null ? null : s.txnState(txnId);
            if (state == null) {
                return io.sluice.controller.grpc.v1.TxnState.State.UNKNOWN;
            }
            return switch (state) {
                case OPEN -> io.sluice.controller.grpc.v1.TxnState.State.OPEN;
                case COMMITTING -> io.sluice.controller.grpc.v1.TxnState.State.COMMITTING;
                case COMMITTED -> io.sluice.controller.grpc.v1.TxnState.State.COMMITTED;
                case ABORTING -> io.sluice.controller.grpc.v1.TxnState.State.ABORTING;
                case ABORTED -> io.sluice.controller.grpc.v1.TxnState.State.ABORTED;
            };
        });
    }

    /** @return completed transactions, oldest first, with whether each committed */
    Map<UUID, Boolean> completedTransactions(String scope, String stream) {
        return journal.read(m -> {
            Map<UUID, Boolean> result = new LinkedHashMap<>();
            requireStream(m, scope, stream).completedTxns.forEach((id, state) -> result.put(id,
                    state == TxnPhase.COMMITTED));
            return result;
        });
    }

    /** Aborts every open transaction whose lease expired; the segment work happens in the background. */
    int expireLeases() {
        long now = ctx.clock().millis();
        record Expired(String scope, String stream, UUID id) {
        }
        List<Expired> expired = journal.read(m -> {
            List<Expired> list = new ArrayList<>();
            for (ScopeMeta scope : m.scopes().values()) {
                for (StreamMeta s : scope.streams.values()) {
                    for (TxnRecord t : s.txns.values()) {
                        if (t.state() == TxnPhase.OPEN && t.leaseExpiry() <= now) {
                            list.add(new Expired(scope.name, s.name, t.id()));
                        }
                    }
                }
            }
            return list;
        });
        Set<String> streams = new LinkedHashSet<>();
        for (Expired e : expired) {
            boolean aborted = journal.write(m -> {
                StreamMeta s = m.stream(e.scope(), e.stream());
                TxnRecord t = s == null ? null : s.txns.get(e.id());
                if (t == null || t.state() != TxnPhase.OPEN || t.leaseExpiry() > now) {
                    return Decision.of(false);
                }
                return Decision.of(true, new ControllerEvent.TxnAborting(e.scope(), e.stream(), e.id()));
            });
            if (aborted) {
                LOG.info("transaction {} on {} timed out; aborting it", e.id(), Names.scoped(e.scope(), e.stream()));
                streams.add(Names.scoped(e.scope(), e.stream()));
            }
        }
        streams.forEach(this::submitTxnWork);
        return streams.size();
    }
}
