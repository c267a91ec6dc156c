package io.sluice.server.controller;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.controller.grpc.v1.CreateKeyValueTableStatus;
import io.sluice.controller.grpc.v1.CreateReaderGroupResponse;
import io.sluice.controller.grpc.v1.CreateScopeStatus;
import io.sluice.controller.grpc.v1.CreateStreamStatus;
import io.sluice.controller.grpc.v1.DeleteKVTableStatus;
import io.sluice.controller.grpc.v1.DeleteReaderGroupStatus;
import io.sluice.controller.grpc.v1.DeleteScopeStatus;
import io.sluice.controller.grpc.v1.DeleteStreamStatus;
import io.sluice.controller.grpc.v1.KeyValueTableConfig;
import io.sluice.controller.grpc.v1.KeyValueTableConfigResponse;
import io.sluice.controller.grpc.v1.PingTxnStatus;
import io.sluice.controller.grpc.v1.ReaderGroupConfigResponse;
import io.sluice.controller.grpc.v1.ReaderGroupConfiguration;
import io.sluice.controller.grpc.v1.RemoveWriterResponse;
import io.sluice.controller.grpc.v1.ScaleResponse;
import io.sluice.controller.grpc.v1.ScaleStatusResponse;
import io.sluice.controller.grpc.v1.SegmentRange;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.controller.grpc.v1.SubscribersResponse;
import io.sluice.controller.grpc.v1.TimestampResponse;
import io.sluice.controller.grpc.v1.TxnStatus;
import io.sluice.controller.grpc.v1.UpdateReaderGroupResponse;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;
import io.sluice.controller.grpc.v1.UpdateSubscriberStatus;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.server.controller.ControllerEvent.KeyRange;
import io.sluice.server.controller.ControllerModel.KvtMeta;
import io.sluice.server.controller.ControllerModel.KvtState;
import io.sluice.server.controller.ControllerModel.ReaderGroupMeta;
import io.sluice.server.controller.ControllerModel.ScopeMeta;
import io.sluice.server.controller.Journal.Decision;
import io.sluice.server.controller.StreamMeta.RollingRecord;
import io.sluice.server.controller.StreamMeta.ScaleRecord;
import io.sluice.server.controller.StreamMeta.SubscriberRecord;
import io.sluice.server.controller.StreamMeta.TruncationRecord;
import io.sluice.server.controller.StreamMeta.WriterMark;

/**
 * What the controller does, independent of gRPC plumbing and auth: each operation validates, logs its events through
 * the {@link Journal} and drives the segment store through {@link SegmentAdmin}. Changes to one stream, reader group,
 * key-value table or scope run one at a time on that entity's {@link SerialExecutors} key; callers block until their
 * operation is done (transaction commits and aborts finish in the background, as in Pravega).
 *
 * <p>Semantics follow Pravega 0.13's controller ({@code ControllerService}, {@code StreamMetadataTasks},
 * {@code StreamTransactionMetadataTasks}, {@code PersistentStreamBase}); where Pravega would fail an RPC with a
 * generic INTERNAL/UNKNOWN status on bad input, this answers INVALID_ARGUMENT, which clients do not retry.
 *
 * <p>Thread-safe. Methods block (metadata logging, segment store calls); they throw
 * {@link io.grpc.StatusRuntimeException} for answers that are gRPC errors.
 */
final class ControllerCore {
    private static final Logger LOG = LoggerFactory.getLogger(ControllerCore.class);
    private static final UUID ZERO_UUID = new UUID(0, 0);

    private final Journal journal;
    private final SerialExecutors executors;
    private final SegmentAdmin admin;
    private final Clock clock;
    private final ControllerSettings settings;
    /** Scoped names of streams whose background commit or abort failed; the timer tries them again. */
    private final Set<String> retryStreams = ConcurrentHashMap.newKeySet();
    private final Watermarks watermarks;

    ControllerCore(Journal journal, SerialExecutors executors, SegmentAdmin admin, Clock clock,
                   ControllerSettings settings) {
        this.journal = journal;
        this.executors = executors;
        this.admin = admin;
        this.clock = clock;
        this.settings = settings;
        this.watermarks = new Watermarks(journal, executors, admin, clock);
    }

    ControllerSettings settings() {
        return settings;
    }

    // ---------------------------------------------------------------- keys

    static String streamKey(String scope, String stream) {
        String base = stream.startsWith(Names.MARK_STREAM_PREFIX)
                ? stream.substring(Names.MARK_STREAM_PREFIX.length()) : stream;
        return "stream:" + scope + "/" + base;
    }

    static String readerGroupKey(String scope, String readerGroup) {
        return streamKey(scope, Names.readerGroupStream(readerGroup));
    }

    static String kvtKey(String scope, String kvt) {
        return "kvt:" + scope + "/" + kvt;
    }

    static String scopeKey(String scope) {
        return "scope:" + scope;
    }

    private <T> T onKey(String key, Callable<T> task) {
        return SerialExecutors.await(executors.submit(key, task));
    }

    // ---------------------------------------------------------------- scopes

    CreateScopeStatus.Status createScope(String scope) {
        if (!Names.isValidStreamOrScopeName(scope)) {
            return CreateScopeStatus.Status.INVALID_SCOPE_NAME;
        }
        return journal.write(m -> m.scope(scope) != null
                ? Decision.of(CreateScopeStatus.Status.SCOPE_EXISTS)
                : Decision.of(CreateScopeStatus.Status.SUCCESS, new ControllerEvent.ScopeCreated(scope)));
    }

    boolean scopeExists(String scope) {
        return journal.read(m -> m.scope(scope) != null);
    }

    /** @return one page of scope names after {@code token} that pass the filter, and the next token */
    Page listScopes(String token, Predicate<String> filter) {
        return journal.read(m -> page(m.scopes().keySet(), token, filter));
    }

    DeleteScopeStatus.Status deleteScope(String scope) {
        return journal.write(m -> {
            ScopeMeta s = m.scope(scope);
            if (s == null) {
                return Decision.of(DeleteScopeStatus.Status.SCOPE_NOT_FOUND);
            }
            if (!s.isEmpty()) {
                return Decision.of(DeleteScopeStatus.Status.SCOPE_NOT_EMPTY);
            }
            return Decision.of(DeleteScopeStatus.Status.SUCCESS, new ControllerEvent.ScopeDeleted(scope));
        });
    }

    /** Seals and deletes everything in a scope, then the scope. A missing scope is a success, as in Pravega. */
    DeleteScopeStatus.Status deleteScopeRecursive(String scope) {
        return onKey(scopeKey(scope), () -> finishScopeDeletion(scope));
    }

    private DeleteScopeStatus.Status finishScopeDeletion(String scope) {
        boolean exists = journal.write(m -> {
            ScopeMeta s = m.scope(scope);
            if (s == null) {
                return Decision.of(false);
            }
            return s.deleting ? Decision.of(true) : Decision.of(true, new ControllerEvent.ScopeDeleting(scope));
        });
        if (!exists) {
            return DeleteScopeStatus.Status.SUCCESS;
        }
        List<String> readerGroups = journal.read(m -> new ArrayList<>(m.scope(scope).readerGroups.keySet()));
        for (String rg : readerGroups) {
            onKey(readerGroupKey(scope, rg), () -> finishReaderGroupDeletion(scope, rg, ""));
        }
        List<String> kvts = journal.read(m -> new ArrayList<>(m.scope(scope).kvts.keySet()));
        for (String kvt : kvts) {
            onKey(kvtKey(scope, kvt), () -> finishKvtDeletion(scope, kvt));
        }
        List<String> streams = journal.read(m -> new ArrayList<>(m.scope(scope).streams.keySet()));
        for (String stream : streams) {
            onKey(streamKey(scope, stream), () -> {
                sealInternal(scope, stream);
                deleteInternal(scope, stream);
                return null;
            });
        }
        return journal.write(m -> {
            ScopeMeta s = m.scope(scope);
            if (s == null) {
                return Decision.of(DeleteScopeStatus.Status.SUCCESS);
            }
            if (!s.isEmpty()) {
                LOG.warn("scope {} still holds {} streams after recursive deletion", scope, s.streams.size());
                return Decision.of(DeleteScopeStatus.Status.FAILURE);
            }
            return Decision.of(DeleteScopeStatus.Status.SUCCESS, new ControllerEvent.ScopeDeleted(scope));
        });
    }

    // ---------------------------------------------------------------- streams

    CreateStreamStatus.Status createStream(String scope, String stream, StreamConfig requested) {
        if (!Names.isValidStreamOrScopeName(stream)) {
            return CreateStreamStatus.Status.INVALID_STREAM_NAME;
        }
        Protos.checkStreamConfig(requested);
        StreamConfig config = Protos.normalize(scope, stream, requested);
        return onKey(streamKey(scope, stream), () -> {
            CreateStreamStatus.Status status = journal.write(m -> {
                if (m.liveScope(scope) == null) {
                    return Decision.of(CreateStreamStatus.Status.SCOPE_NOT_FOUND);
                }
                StreamMeta existing = m.stream(scope, stream);
                if (existing != null) {
                    return Decision.of(existing.state == StreamMeta.State.CREATING
                            ? CreateStreamStatus.Status.SUCCESS : CreateStreamStatus.Status.STREAM_EXISTS);
                }
                return new Decision<>(CreateStreamStatus.Status.SUCCESS,
                        streamCreationEvents(m, scope, stream, config, clock.millis()));
            });
            if (status == CreateStreamStatus.Status.SUCCESS) {
                finishStreamCreation(scope, stream);
            }
            return status;
        });
    }

    /** The events that register a stream and, unless it is a watermark stream, its watermark stream. */
    private static List<ControllerEvent> streamCreationEvents(ControllerModel m, String scope, String stream,
                                                              StreamConfig config, long now) {
        List<ControllerEvent> events = new ArrayList<>();
        events.add(new ControllerEvent.StreamCreating(scope, stream, config, now, false));
        String mark = Names.markStream(stream);
        if (m.stream(scope, mark) == null) {
            events.add(new ControllerEvent.StreamCreating(scope, mark, Protos.internalStreamConfig(scope, mark, 0),
                    now, true));
        }
        return events;
    }

    /** Creates the epoch-0 segments of a stream (and of its watermark stream) that is still being created. */
    private void finishStreamCreation(String scope, String stream) {
        activate(scope, stream);
        activate(scope, Names.markStream(stream));
    }

    /** Finishes creating a stream after a restart, registering its watermark stream if that was not logged. */
    private void resumeStreamCreation(String scope, String stream) {
        journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            String mark = Names.markStream(stream);
            if (s == null || s.markStream || m.stream(scope, mark) != null) {
                return Decision.of(null);
            }
            return Decision.of(null, new ControllerEvent.StreamCreating(scope, mark,
                    Protos.internalStreamConfig(scope, mark, 0), s.creationTime, true));
        });
        boolean markStream = journal.read(m -> m.stream(scope, stream) != null && m.stream(scope, stream).markStream);
        if (markStream) {
            activate(scope, stream);
        } else {
            finishStreamCreation(scope, stream);
        }
    }

    private void activate(String scope, String stream) {
        record Plan(List<SegmentRecord> segments, StreamConfig config) {
        }
        Plan plan = journal.read(m -> {
            StreamMeta s = m.stream(scope, stream);
            return s == null || s.state != StreamMeta.State.CREATING ? null
                    : new Plan(s.epochs.getFirst().segments(), s.config);
        });
        if (plan == null) {
            return;
        }
        for (SegmentRecord segment : plan.segments()) {
            createStreamSegment(Names.segmentName(scope, stream, segment.id()), plan.config());
        }
        journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            return s != null && s.state == StreamMeta.State.CREATING
                    ? Decision.of(null, new ControllerEvent.StreamActivated(scope, stream)) : Decision.of(null);
        });
    }

    private void createStreamSegment(String name, StreamConfig config) {
        admin.createSegment(name, (byte) config.getScalingPolicy().getScaleTypeValue(),
                config.getScalingPolicy().getTargetRate(), config.getRolloverSizeBytes());
    }

    boolean streamExists(String scope, String stream) {
        return journal.read(m -> m.stream(scope, stream) != null);
    }

    StreamConfig streamConfig(String scope, String stream) {
        return journal.read(m -> requireStream(m, scope, stream).config);
    }

    /** @return one page of stream names, or null if the scope does not exist */
    Page listStreams(String scope, String token, String tag, Predicate<String> filter) {
        return journal.read(m -> {
            ScopeMeta s = m.scope(scope);
            if (s == null) {
                return null;
            }
            List<String> names = new ArrayList<>();
            for (StreamMeta stream : s.streams.values()) {
                if (tag == null || stream.config.getTags().getTagList().contains(tag)) {
                    names.add(stream.name);
                }
            }
            return page(names, token, filter);
        });
    }

    UpdateStreamStatus.Status updateStream(String scope, String stream, StreamConfig requested) {
        Protos.checkStreamConfig(requested);
        StreamConfig config = Protos.normalize(scope, stream, requested);
        return onKey(streamKey(scope, stream), () -> {
            UpdateStreamStatus.Status status = journal.write(m -> {
                StreamMeta s = m.stream(scope, stream);
                if (s == null) {
                    return Decision.of(UpdateStreamStatus.Status.STREAM_NOT_FOUND);
                }
                if (s.state == StreamMeta.State.SEALED || s.state == StreamMeta.State.SEALING) {
                    return Decision.of(UpdateStreamStatus.Status.STREAM_SEALED);
                }
                if (s.state != StreamMeta.State.ACTIVE) {
                    return Decision.of(UpdateStreamStatus.Status.FAILURE);
                }
                return Decision.of(UpdateStreamStatus.Status.SUCCESS,
                        new ControllerEvent.StreamUpdated(scope, stream, config));
            });
            if (status == UpdateStreamStatus.Status.SUCCESS) {
                rescaleToMinimum(scope, stream);
            }
            return status;
        });
    }

    /**
     * Pravega's {@code handleSegmentCountUpdates}: a fixed stream whose segment count differs from its configured
     * count, or any stream below its minimum, is scaled to that many equal key ranges.
     */
    private void rescaleToMinimum(String scope, String stream) {
        boolean started = journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            int wanted = s.config.getScalingPolicy().getMinNumSegments();
            List<SegmentRecord> active = s.activeEpoch().segments();
            boolean fixed = s.config.getScalingPolicy().getScaleTypeValue() == 0;
            if ((fixed && active.size() != wanted) || active.size() < wanted) {
                List<Long> sealed = new ArrayList<>();
                for (SegmentRecord r : active) {
                    sealed.add(r.id());
                }
                double chunk = 1.0 / wanted;
                List<KeyRange> ranges = new ArrayList<>();
                for (int i = 0; i < wanted; i++) {
                    ranges.add(new KeyRange(i * chunk, (i + 1) * chunk));
                }
                return Decision.of(true, new ControllerEvent.ScaleStarted(scope, stream, sealed, ranges,
                        clock.millis()));
            }
            return Decision.of(false);
        });
        if (started) {
            finishScale(scope, stream);
        }
    }

    UpdateStreamStatus.Status sealStream(String scope, String stream) {
        return onKey(streamKey(scope, stream), () -> sealInternal(scope, stream));
    }

    /** Seals a stream: finishes committing transactions, aborts open ones, seals the active segments. */
    private UpdateStreamStatus.Status sealInternal(String scope, String stream) {
        UpdateStreamStatus.Status status = journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s == null) {
                return Decision.of(UpdateStreamStatus.Status.STREAM_NOT_FOUND);
            }
            return switch (s.state) {
                case SEALED -> Decision.of(UpdateStreamStatus.Status.SUCCESS);
                case SEALING -> Decision.of(null);
                case ACTIVE -> Decision.of(null, new ControllerEvent.StreamSealing(scope, stream));
                case CREATING, DELETING -> Decision.of(UpdateStreamStatus.Status.FAILURE);
            };
        });
        if (status != null) {
            return status;
        }
        processCommits(scope, stream);
        List<UUID> open = journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            List<UUID> ids = new ArrayList<>();
            List<ControllerEvent> events = new ArrayList<>();
            for (TxnRecord t : s.txns.values()) {
                if (t.state() == TxnPhase.OPEN || t.state() == TxnPhase.ABORTING) {
                    ids.add(t.id());
                    if (t.state() == TxnPhase.OPEN) {
                        events.add(new ControllerEvent.TxnAborting(scope, stream, t.id()));
                    }
                }
            }
            return new Decision<>(ids, events);
        });
        if (!open.isEmpty()) {
            processAborts(scope, stream);
        }
        List<SegmentRecord> active = journal.read(m -> m.stream(scope, stream).activeEpoch().segments());
        for (SegmentRecord segment : active) {
            sealSegment(Names.segmentName(scope, stream, segment.id()));
        }
        journal.write(m -> Decision.of(null, new ControllerEvent.StreamSealed(scope, stream)));
        return UpdateStreamStatus.Status.SUCCESS;
    }

    DeleteStreamStatus.Status deleteStream(String scope, String stream) {
        return onKey(streamKey(scope, stream), () -> deleteInternal(scope, stream));
    }

    /** Deletes a sealed stream: all its segments, its watermark stream, its metadata (segment numbers stay used). */
    private DeleteStreamStatus.Status deleteInternal(String scope, String stream) {
        record Start(DeleteStreamStatus.Status refused, boolean markStream) {
        }
        Start start = journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s == null) {
                return Decision.of(new Start(DeleteStreamStatus.Status.STREAM_NOT_FOUND, false));
            }
            return switch (s.state) {
                case SEALED, CREATING -> Decision.of(new Start(null, s.markStream),
                        new ControllerEvent.StreamDeleting(scope, stream));
                case DELETING -> Decision.of(new Start(null, s.markStream));
                case ACTIVE, SEALING -> Decision.of(new Start(DeleteStreamStatus.Status.STREAM_NOT_SEALED, false));
            };
        });
        if (start.refused() != null) {
            return start.refused();
        }
        String mark = Names.markStream(stream);
        boolean hasMark = !start.markStream() && journal.write(m -> {
            StreamMeta s = m.stream(scope, mark);
            if (s == null) {
                return Decision.of(false);
            }
            return s.state == StreamMeta.State.DELETING ? Decision.of(true)
                    : Decision.of(true, new ControllerEvent.StreamDeleting(scope, mark));
        });
        if (hasMark) {
            removeStream(scope, mark);
        }
        removeStream(scope, stream);
        return DeleteStreamStatus.Status.SUCCESS;
    }

    private void removeStream(String scope, String stream) {
        Set<Long> segments = journal.read(m -> new HashSet<>(m.stream(scope, stream).liveSegmentIds()));
        for (long id : segments) {
            admin.deleteSegment(Names.segmentName(scope, stream, id));
        }
        journal.write(m -> Decision.of(null, new ControllerEvent.StreamDeleted(scope, stream)));
    }

    UpdateStreamStatus.Status truncateStream(String scope, String stream, Map<Long, Long> streamCut) {
        return onKey(streamKey(scope, stream), () -> {
            record Check(UpdateStreamStatus.Status status, TruncationRecord plan) {
            }
            Check check = journal.read(m -> {
                StreamMeta s = m.stream(scope, stream);
                if (s == null) {
                    return new Check(UpdateStreamStatus.Status.STREAM_NOT_FOUND, null);
                }
                if (s.state == StreamMeta.State.SEALED || s.state == StreamMeta.State.SEALING) {
                    return new Check(UpdateStreamStatus.Status.STREAM_SEALED, null);
                }
                if (s.state != StreamMeta.State.ACTIVE) {
                    return new Check(UpdateStreamStatus.Status.FAILURE, null);
                }
                TruncationRecord plan = s.planTruncation(streamCut);
                return new Check(plan == null ? UpdateStreamStatus.Status.FAILURE : null, plan);
            });
            if (check.status() != null) {
                return check.status();
            }
            // Check the offsets against the segments before logging anything: a truncation that cannot complete
            // must not be started.
            for (Map.Entry<Long, Long> entry : streamCut.entrySet()) {
                if (entry.getValue() <= 0) {
                    continue;
                }
                var info = admin.segmentInfo(Names.segmentName(scope, stream, entry.getKey()));
                if (info.isEmpty() || info.get().length() < entry.getValue()) {
                    LOG.warn("cannot truncate {}/{} at {}: offset beyond segment {}", scope, stream, streamCut,
                            entry.getKey());
                    return UpdateStreamStatus.Status.FAILURE;
                }
            }
            journal.write(m -> Decision.of(null, new ControllerEvent.TruncationStarted(scope, stream, streamCut)));
            finishTruncation(scope, stream);
            return UpdateStreamStatus.Status.SUCCESS;
        });
    }

    private void finishTruncation(String scope, String stream) {
        TruncationRecord pending = journal.read(m -> m.stream(scope, stream).pendingTruncation);
        if (pending == null) {
            return;
        }
        for (Map.Entry<Long, Long> entry : pending.streamCut().entrySet()) {
            if (entry.getValue() > 0) {
                String name = Names.segmentName(scope, stream, entry.getKey());
                try {
                    admin.truncateSegment(name, entry.getValue());
                } catch (NoSuchSegmentException e) {
                    LOG.warn("truncating {}: segment {} is gone", Names.scoped(scope, stream), name);
                }
            }
        }
        for (long id : pending.toDelete()) {
            admin.deleteSegment(Names.segmentName(scope, stream, id));
        }
        journal.write(m -> Decision.of(null, new ControllerEvent.TruncationCompleted(scope, stream)));
    }

    // ---------------------------------------------------------------- segments

    /** @return the active segments sorted by key (none once sealed) */
    List<SegmentRange> currentSegments(String scope, String stream) {
        return journal.read(m -> Protos.segmentRanges(scope, stream,
                requireStream(m, scope, stream).currentSegments()));
    }

    List<SegmentRange> epochSegments(String scope, String stream, int epoch) {
        if (epoch < 0) {
            throw Protos.invalid("epoch must not be negative, got " + epoch);
        }
        return journal.read(m -> {
            EpochRecord e = requireStream(m, scope, stream).epoch(epoch);
            if (e == null) {
                throw Protos.notFound("stream " + Names.scoped(scope, stream) + " has no epoch " + epoch);
            }
            return Protos.segmentRanges(scope, stream, e.segments());
        });
    }

    /** @return segment id to offset at the head of the stream (its truncation point) */
    Map<Long, Long> head(String scope, String stream) {
        return journal.read(m -> requireStream(m, scope, stream).head());
    }

    /** @return each successor of the segment with its predecessors' ids */
    Map<SegmentRange, List<Long>> successors(String scope, String stream, long segmentId) {
        return journal.read(m -> {
            Map<SegmentRange, List<Long>> result = new LinkedHashMap<>();
            for (Map.Entry<SegmentRecord, List<Long>> e
                    : requireStream(m, scope, stream).successors(segmentId).entrySet()) {
                result.put(Protos.segmentRange(scope, stream, e.getKey()), List.copyOf(e.getValue()));
            }
            return result;
        });
    }

    /** @return ids of the segments between two stream cuts (empty map: the start, or the current end) */
    List<Long> segmentsBetween(String scope, String stream, Map<Long, Long> from, Map<Long, Long> to) {
        if (from.isEmpty() && to.isEmpty()) {
            throw Protos.invalid("at least one of the stream cuts must be bounded");
        }
        return journal.read(m -> {
            StreamMeta s = requireStream(m, scope, stream);
            if (!s.knowsAll(from) || !s.knowsAll(to)) {
                throw Protos.invalid("a stream cut names a segment stream " + Names.scoped(scope, stream)
                        + " never had");
            }
            Map<Long, Integer> spanFrom = from.isEmpty() ? StreamMeta.spanOf(s.epochs.getFirst()) : s.span(from);
            Map<Long, Integer> spanTo = to.isEmpty() ? StreamMeta.spanOf(s.activeEpoch()) : s.span(to);
            if (!from.isEmpty() && !to.isEmpty() && !s.equalOrAfter(to, spanTo, from, spanFrom)) {
                throw Protos.invalid("the 'to' stream cut is before the 'from' stream cut");
            }
            List<Long> ids = new ArrayList<>();
            for (SegmentRecord r : s.segmentsBetween(spanFrom, spanTo)) {
                ids.add(r.id());
            }
            return ids;
        });
    }

    boolean isSegmentValid(String scope, String stream, long segmentId) {
        return journal.read(m -> requireStream(m, scope, stream).currentSegments().stream()
                .anyMatch(s -> s.id() == segmentId));
    }

    boolean isStreamCutValid(String scope, String stream, Map<Long, Long> streamCut) {
        return journal.read(m -> requireStream(m, scope, stream).isValidStreamCut(streamCut));
    }

    // ---------------------------------------------------------------- scaling

    ScaleResponse scale(String scope, String stream, List<Long> sealed, List<KeyRange> requestedRanges,
                        long timestamp) {
        return onKey(streamKey(scope, stream), () -> {
            ScaleResponse refused = journal.write(m -> {
                StreamMeta s = m.stream(scope, stream);
                if (s == null || s.state != StreamMeta.State.ACTIVE) {
                    return Decision.of(scaleStatus(ScaleResponse.ScaleStreamStatus.FAILURE));
                }
                EpochRecord active = s.activeEpoch();
                for (long id : sealed) {
                    if (!active.contains(id)) {
                        return Decision.of(scaleStatus(ScaleResponse.ScaleStreamStatus.PRECONDITION_FAILED));
                    }
                }
                if (!validScaleInput(active, sealed, requestedRanges)) {
                    return Decision.of(scaleStatus(ScaleResponse.ScaleStreamStatus.FAILURE));
                }
                int after = active.segments().size() - new HashSet<>(sealed).size() + requestedRanges.size();
                if (after < s.config.getScalingPolicy().getMinNumSegments()) {
                    return Decision.of(scaleStatus(ScaleResponse.ScaleStreamStatus.PRECONDITION_FAILED));
                }
                List<KeyRange> ranges = new ArrayList<>(requestedRanges);
                ranges.sort(Comparator.comparingDouble(KeyRange::start));
                return Decision.of(null, new ControllerEvent.ScaleStarted(scope, stream, List.copyOf(
                        new LinkedHashSet<>(sealed)), ranges, timestamp));
            });
            if (refused != null) {
                return refused;
            }
            ScaleRecord scale = journal.read(m -> m.stream(scope, stream).scale);
            finishScale(scope, stream);
            return ScaleResponse.newBuilder().setStatus(ScaleResponse.ScaleStreamStatus.STARTED)
                    .addAllSegments(Protos.segmentRanges(scope, stream, scale.newSegments()))
                    .setEpoch(scale.previousEpoch()).build();
        });
    }

    private static ScaleResponse scaleStatus(ScaleResponse.ScaleStreamStatus status) {
        return ScaleResponse.newBuilder().setStatus(status).build();
    }

    /**
     * Pravega's {@code validateInputRange}: every new range is non-empty and inside [0, 1], and the new ranges cover
     * exactly what the sealed segments covered.
     */
    static boolean validScaleInput(EpochRecord active, List<Long> sealed, List<KeyRange> ranges) {
        Set<Double> starts = new HashSet<>();
        for (KeyRange r : ranges) {
            if (!(r.start() >= 0.0 && r.start() < r.end() && r.end() <= 1.0) || !starts.add(r.start())) {
                return false;
            }
        }
        List<KeyRange> old = new ArrayList<>();
        for (long id : new LinkedHashSet<>(sealed)) {
            SegmentRecord s = active.segment(id);
            old.add(new KeyRange(s.keyStart(), s.keyEnd()));
        }
        return reduce(old).equals(reduce(ranges));
    }

    /** Merges adjacent ranges into continuous blocks (Pravega's {@code RecordHelper.reduce}). */
    private static List<KeyRange> reduce(List<KeyRange> input) {
        List<KeyRange> ranges = new ArrayList<>(input);
        ranges.sort(Comparator.comparingDouble(KeyRange::start));
        List<KeyRange> result = new ArrayList<>();
        double low = -1.0;
        double high = -1.0;
        for (KeyRange range : ranges) {
            if (high != range.start()) {
                // a gap or an overlap ends the block
                if (low != -1.0 && high != -1.0) {
                    result.add(new KeyRange(low, high));
                }
                low = range.start();
                high = range.end();
            } else {
                high = range.end();
            }
        }
        if (low != -1.0 && high != -1.0) {
            result.add(new KeyRange(low, high));
        }
        return result;
    }

    /** Carries a started scale to its end: create the new segments, activate the new epoch, seal the old ones. */
    private void finishScale(String scope, String stream) {
        record Plan(ScaleRecord scale, StreamConfig config) {
        }
        Plan plan = journal.read(m -> {
            StreamMeta s = m.stream(scope, stream);
            return new Plan(s.scale, s.config);
        });
        if (plan.scale() == null) {
            return;
        }
        if (!plan.scale().epochCreated()) {
            for (SegmentRecord segment : plan.scale().newSegments()) {
                createStreamSegment(Names.segmentName(scope, stream, segment.id()), plan.config());
            }
            journal.write(m -> Decision.of(null, new ControllerEvent.ScaleEpochCreated(scope, stream)));
        }
        for (long id : plan.scale().sealedSegments()) {
            sealSegment(Names.segmentName(scope, stream, id));
        }
        journal.write(m -> Decision.of(null, new ControllerEvent.ScaleCompleted(scope, stream)));
    }

    /** Pravega's {@code checkScale}: is the scale that started from {@code epoch} done? */
    ScaleStatusResponse.ScaleStatus checkScale(String scope, String stream, int epoch) {
        return journal.read(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s == null || epoch < 0) {
                return ScaleStatusResponse.ScaleStatus.INVALID_INPUT;
            }
            EpochRecord active = s.activeEpoch();
            if (epoch > active.epoch()) {
                return ScaleStatusResponse.ScaleStatus.INVALID_INPUT;
            }
            if (active.epoch() == epoch || active.referenceEpoch() == epoch) {
                return ScaleStatusResponse.ScaleStatus.IN_PROGRESS;
            }
            if (epoch + 1 == active.referenceEpoch() && s.scale != null) {
                return ScaleStatusResponse.ScaleStatus.IN_PROGRESS;
            }
            return ScaleStatusResponse.ScaleStatus.SUCCESS;
        });
    }

    // ---------------------------------------------------------------- transactions

    /** A created transaction: its id and the segments to write to (ids carry the transaction's epoch). */
    record CreatedTxn(UUID id, List<SegmentRange> segments) {
    }

    CreatedTxn createTransaction(String scope, String stream, long leaseMillis) {
        if (leaseMillis < settings.minLease().toMillis() || leaseMillis > settings.maxLease().toMillis()) {
            throw Protos.invalid("transaction lease must be within [" + settings.minLease().toMillis() + ", "
                    + settings.maxLease().toMillis() + "] ms, got " + leaseMillis);
        }
        return onKey(streamKey(scope, stream), () -> {
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
                long now = clock.millis();
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
                processAborts(scope, stream);
                throw e;
            }
            List<SegmentRange> ranges = new ArrayList<>();
            for (SegmentRecord segment : StreamMeta.sortedByKey(plan.segments())) {
                ranges.add(Protos.segmentRange(scope, stream, Names.segmentId(segment.number(), plan.epoch()),
                        segment.keyStart(), segment.keyEnd()));
            }
            return new CreatedTxn(plan.id(), ranges);
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
            long now = clock.millis();
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
        executors.submit(streamKey(scope, stream), () -> {
            processCommits(scope, stream);
            processAborts(scope, stream);
            return null;
        }).whenComplete((v, e) -> {
            if (e != null) {
                LOG.warn("completing transactions of {} failed; will try again", scoped, e);
                retryStreams.add(scoped);
            }
        });
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
            int slash = scoped.indexOf('/');
            submitTxnWork(scoped.substring(0, slash), scoped.substring(slash + 1));
        }
        return streams.size();
    }

    private static void logFailure(Throwable e, String what) {
        if (e != null) {
            LOG.error("{} failed", what, e);
        }
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
        long now = clock.millis();
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
        for (String scoped : streams) {
            int slash = scoped.indexOf('/');
            submitTxnWork(scoped.substring(0, slash), scoped.substring(slash + 1));
        }
        return streams.size();
    }

    /**
     * Merges committing transactions into the stream, lowest epoch first and in commit order within an epoch, one
     * transaction at a time, so a transaction never overtakes one whose commit was requested earlier. Transactions
     * of an epoch whose segments a scale sealed are rolled over into copies of that epoch (Pravega's rolling
     * transactions). Runs on the stream's key.
     */
    private void processCommits(String scope, String stream) {
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
                            new ControllerEvent.TxnCommitted(scope, stream, txn.id(), clock.millis())));
                }
            } else {
                journal.write(m -> Decision.of(null,
                        new ControllerEvent.RollingTxnStarted(scope, stream, clock.millis())));
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
                createStreamSegment(Names.segmentName(scope, stream, s.id()), plan.config());
            }
            for (SegmentRecord s : rolling.activeCopies().segments()) {
                createStreamSegment(Names.segmentName(scope, stream, s.id()), plan.config());
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
                        new ControllerEvent.TxnCommitted(scope, stream, id, clock.millis())));
            }
        }
        for (SegmentRecord s : rolling.txnCopies().segments()) {
            sealSegment(Names.segmentName(scope, stream, s.id()));
        }
        for (SegmentRecord s : rolling.previousActive().segments()) {
            sealSegment(Names.segmentName(scope, stream, s.id()));
        }
        journal.write(m -> Decision.of(null, new ControllerEvent.RollingTxnCompleted(scope, stream)));
    }

    /** Seals each of the transaction's segments and merges it into the target of the same number. Idempotent. */
    /** @return segment id → its length after the merge, for the segments the transaction wrote to */
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
            noteTimestampFromWriter(scope, stream, txn.writerId(), txn.commitTimestamp(), offsets);
        } catch (RuntimeException e) {
            LOG.warn("noting the commit of transaction {} as a mark of writer {} failed", txn.id(), txn.writerId(), e);
        }
    }

    /** Deletes the segments of every aborting transaction and marks it aborted. Runs on the stream's key. */
    private void processAborts(String scope, String stream) {
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
                    new ControllerEvent.TxnAborted(scope, stream, abort.id(), clock.millis())));
        }
    }

    private void sealSegment(String name) {
        try {
            admin.sealSegment(name);
        } catch (NoSuchSegmentException e) {
            LOG.warn("segment {} should be sealed but does not exist", name);
        }
    }

    // ---------------------------------------------------------------- reader groups and subscribers

    CreateReaderGroupResponse createReaderGroup(ReaderGroupConfiguration requested) {
        String scope = requested.getScope();
        String name = requested.getReaderGroupName();
        if (!Names.isValidUserName(name)) {
            return CreateReaderGroupResponse.newBuilder()
                    .setStatus(CreateReaderGroupResponse.Status.INVALID_RG_NAME).build();
        }
        UUID id;
        long generation;
        UUID given = parseReaderGroupId(requested.getReaderGroupId());
        if (given == null || given.equals(ZERO_UUID)) {
            id = UUID.randomUUID();
            generation = 0;
        } else {
            id = given;
            generation = requested.getGeneration();
        }
        ReaderGroupConfiguration config = requested.toBuilder().setScope(scope).setReaderGroupName(name)
                .setReaderGroupId(id.toString()).setGeneration(generation).build();
        String rgStream = Names.readerGroupStream(name);
        return onKey(readerGroupKey(scope, name), () -> {
            CreateReaderGroupResponse answer = journal.write(m -> {
                if (m.liveScope(scope) == null) {
                    return Decision.of(CreateReaderGroupResponse.newBuilder()
                            .setStatus(CreateReaderGroupResponse.Status.SCOPE_NOT_FOUND).build());
                }
                ReaderGroupMeta existing = m.readerGroup(scope, name);
                if (existing != null) {
                    return Decision.of(existing.deleting
                            ? CreateReaderGroupResponse.newBuilder()
                                    .setStatus(CreateReaderGroupResponse.Status.FAILURE).build()
                            : CreateReaderGroupResponse.newBuilder()
                                    .setStatus(CreateReaderGroupResponse.Status.SUCCESS)
                                    .setConfig(existing.config).build());
                }
                long now = clock.millis();
                List<ControllerEvent> events = new ArrayList<>();
                events.add(new ControllerEvent.ReaderGroupCreated(scope, name, config, now));
                if (m.stream(scope, rgStream) == null) {
                    events.addAll(streamCreationEvents(m, scope, rgStream, Protos.internalStreamConfig(scope,
                            rgStream, Protos.READER_GROUP_ROLLOVER_BYTES), now));
                }
                return new Decision<>(CreateReaderGroupResponse.newBuilder()
                        .setStatus(CreateReaderGroupResponse.Status.SUCCESS).setConfig(config).build(), events);
            });
            if (answer.getStatus() == CreateReaderGroupResponse.Status.SUCCESS) {
                finishStreamCreation(scope, rgStream);
            }
            return answer;
        });
    }

    private static UUID parseReaderGroupId(String id) {
        if (id.isEmpty()) {
            return null;
        }
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw Protos.invalid("readerGroupId is not a UUID: '" + id + "'");
        }
    }

    ReaderGroupConfigResponse readerGroupConfig(String scope, String name) {
        return journal.read(m -> {
            ReaderGroupMeta rg = m.readerGroup(scope, name);
            if (rg == null) {
                return ReaderGroupConfigResponse.newBuilder()
                        .setConfig(ReaderGroupConfiguration.getDefaultInstance())
                        .setStatus(ReaderGroupConfigResponse.Status.RG_NOT_FOUND).build();
            }
            return ReaderGroupConfigResponse.newBuilder().setConfig(rg.config)
                    .setStatus(ReaderGroupConfigResponse.Status.SUCCESS).build();
        });
    }

    UpdateReaderGroupResponse updateReaderGroup(ReaderGroupConfiguration requested) {
        String scope = requested.getScope();
        String name = requested.getReaderGroupName();
        return onKey(readerGroupKey(scope, name), () -> journal.write(m -> {
            ReaderGroupMeta rg = m.readerGroup(scope, name);
            if (rg == null || rg.deleting) {
                return Decision.of(updateAnswer(UpdateReaderGroupResponse.Status.RG_NOT_FOUND,
                        requested.getGeneration()));
            }
            if (rg.config.getGeneration() != requested.getGeneration()
                    || !rg.config.getReaderGroupId().equals(requested.getReaderGroupId())) {
                return Decision.of(updateAnswer(UpdateReaderGroupResponse.Status.INVALID_CONFIG,
                        requested.getGeneration()));
            }
            long generation = requested.getGeneration() + 1;
            ReaderGroupConfiguration config = requested.toBuilder().setGeneration(generation).build();
            return Decision.of(updateAnswer(UpdateReaderGroupResponse.Status.SUCCESS, generation),
                    new ControllerEvent.ReaderGroupUpdated(scope, name, config));
        }));
    }

    private static UpdateReaderGroupResponse updateAnswer(UpdateReaderGroupResponse.Status status, long generation) {
        return UpdateReaderGroupResponse.newBuilder().setStatus(status).setGeneration(generation).build();
    }

    /**
     * @param readerGroupId must match the group's id; empty matches any
     */
    DeleteReaderGroupStatus.Status deleteReaderGroup(String scope, String name, String readerGroupId) {
        return onKey(readerGroupKey(scope, name), () -> finishReaderGroupDeletion(scope, name, readerGroupId));
    }

    private DeleteReaderGroupStatus.Status finishReaderGroupDeletion(String scope, String name, String readerGroupId) {
        DeleteReaderGroupStatus.Status refused = journal.write(m -> {
            ReaderGroupMeta rg = m.readerGroup(scope, name);
            if (rg == null || (!readerGroupId.isEmpty() && !rg.config.getReaderGroupId().equals(readerGroupId))) {
                return Decision.of(DeleteReaderGroupStatus.Status.RG_NOT_FOUND);
            }
            return rg.deleting ? Decision.of(null)
                    : Decision.of(null, new ControllerEvent.ReaderGroupDeleting(scope, name));
        });
        if (refused != null) {
            return refused;
        }
        String rgStream = Names.readerGroupStream(name);
        if (sealInternal(scope, rgStream) != UpdateStreamStatus.Status.STREAM_NOT_FOUND) {
            deleteInternal(scope, rgStream);
        }
        journal.write(m -> Decision.of(null, new ControllerEvent.ReaderGroupDeleted(scope, name)));
        return DeleteReaderGroupStatus.Status.SUCCESS;
    }

    SubscribersResponse listSubscribers(String scope, String stream) {
        return journal.read(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s == null) {
                return SubscribersResponse.newBuilder().setStatus(SubscribersResponse.Status.STREAM_NOT_FOUND).build();
            }
            return SubscribersResponse.newBuilder().setStatus(SubscribersResponse.Status.SUCCESS)
                    .addAllSubscribers(s.subscribers.keySet()).build();
        });
    }

    UpdateSubscriberStatus.Status updateSubscriberStreamCut(String scope, String stream, String subscriber,
                                                            String readerGroupId, long generation,
                                                            Map<Long, Long> streamCut) {
        return journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s == null) {
                return Decision.of(UpdateSubscriberStatus.Status.STREAM_NOT_FOUND);
            }
            SubscriberRecord record = s.subscribers.get(subscriber);
            int slash = subscriber.indexOf('/');
            ReaderGroupMeta rg = slash < 0 ? null
                    : m.readerGroup(subscriber.substring(0, slash), subscriber.substring(slash + 1));
            if (record == null || rg == null || !rg.config.getReaderGroupId().equals(readerGroupId)) {
                return Decision.of(UpdateSubscriberStatus.Status.SUBSCRIBER_NOT_FOUND);
            }
            if (record.generation() != generation) {
                return Decision.of(UpdateSubscriberStatus.Status.GENERATION_MISMATCH);
            }
            boolean valid = s.isValidStreamCut(streamCut) && (record.streamCut().isEmpty()
                    || s.equalOrAfter(streamCut, s.span(streamCut), record.streamCut(), s.span(record.streamCut())));
            if (!valid) {
                return Decision.of(UpdateSubscriberStatus.Status.STREAM_CUT_NOT_VALID);
            }
            return Decision.of(UpdateSubscriberStatus.Status.SUCCESS, new ControllerEvent.SubscriberStreamCutUpdated(
                    scope, stream, subscriber, generation, streamCut, clock.millis()));
        });
    }

    // ---------------------------------------------------------------- watermarking

    /** @return the periodic watermarking of every stream */
    Watermarks watermarks() {
        return watermarks;
    }

    TimestampResponse.Status noteTimestampFromWriter(String scope, String stream, String writer, long timestamp,
                                                     Map<Long, Long> position) {
        return journal.write(m -> {
            StreamMeta s = requireStream(m, scope, stream);
            WriterMark mark = s.writers.get(writer);
            if (mark != null) {
                if (mark.timestamp() > timestamp) {
                    return Decision.of(TimestampResponse.Status.INVALID_TIME);
                }
                if (!positionAdvances(mark.position(), position)) {
                    return Decision.of(TimestampResponse.Status.INVALID_POSITION);
                }
            }
            return Decision.of(TimestampResponse.Status.SUCCESS,
                    new ControllerEvent.WriterMarkNoted(scope, stream, writer, timestamp, position));
        });
    }

    /** Pravega's {@code compareWriterPositions}: is position 2 at or after position 1? (A cheap approximation.) */
    static boolean positionAdvances(Map<Long, Long> position1, Map<Long, Long> position2) {
        long max2 = position2.keySet().stream().filter(position1::containsKey).max(Long::compare)
                .orElse(Long.MIN_VALUE);
        long max1 = position1.keySet().stream().filter(position2::containsKey).max(Long::compare)
                .orElse(Long.MIN_VALUE);
        if (max2 < max1) {
            return false;
        }
        return position2.entrySet().stream().filter(e -> position1.containsKey(e.getKey()))
                .allMatch(e -> e.getValue() >= position1.get(e.getKey()));
    }

    RemoveWriterResponse.Status removeWriter(String scope, String stream, String writer) {
        return journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s == null || !s.writers.containsKey(writer)) {
                return Decision.of(RemoveWriterResponse.Status.UNKNOWN_WRITER);
            }
            // as Pravega's shutdownWriter: the mark stays, no longer alive, until a watermark pass drops it
            return Decision.of(RemoveWriterResponse.Status.SUCCESS,
                    new ControllerEvent.WriterShutDown(scope, stream, writer));
        });
    }

    // ---------------------------------------------------------------- key-value tables

    CreateKeyValueTableStatus.Status createKeyValueTable(KeyValueTableConfig requested) {
        String scope = requested.getScope();
        String name = requested.getKvtName();
        if (!Names.isValidUserName(name)) {
            return CreateKeyValueTableStatus.Status.INVALID_TABLE_NAME;
        }
        Protos.checkKvtConfig(requested);
        return onKey(kvtKey(scope, name), () -> {
            CreateKeyValueTableStatus.Status status = journal.write(m -> {
                if (m.liveScope(scope) == null) {
                    return Decision.of(CreateKeyValueTableStatus.Status.SCOPE_NOT_FOUND);
                }
                KvtMeta existing = m.kvt(scope, name);
                if (existing != null) {
                    return Decision.of(existing.state == KvtState.CREATING
                            ? CreateKeyValueTableStatus.Status.SUCCESS : CreateKeyValueTableStatus.Status.TABLE_EXISTS);
                }
                return Decision.of(CreateKeyValueTableStatus.Status.SUCCESS,
                        new ControllerEvent.KvtCreating(scope, name, requested, UUID.randomUUID(), clock.millis()));
            });
            if (status == CreateKeyValueTableStatus.Status.SUCCESS) {
                finishKvtCreation(scope, name);
            }
            return status;
        });
    }

    private void finishKvtCreation(String scope, String name) {
        record Plan(List<SegmentRecord> segments, int keyLength, boolean creating) {
        }
        Plan plan = journal.read(m -> {
            KvtMeta kvt = m.kvt(scope, name);
            return new Plan(kvt.segments(),
                    kvt.config.getPrimaryKeyLength() + kvt.config.getSecondaryKeyLength(),
                    kvt.state == KvtState.CREATING);
        });
        if (!plan.creating()) {
            return;
        }
        for (SegmentRecord segment : plan.segments()) {
            admin.createTableSegment(Names.kvtSegmentName(scope, name, segment.id()), plan.keyLength());
        }
        journal.write(m -> Decision.of(null, new ControllerEvent.KvtActivated(scope, name)));
    }

    List<SegmentRange> kvtSegments(String scope, String name) {
        return journal.read(m -> {
            KvtMeta kvt = m.kvt(scope, name);
            if (kvt == null) {
                throw Protos.notFound("key-value table " + Names.scoped(scope, name) + " does not exist");
            }
            return Protos.segmentRanges(scope, name, kvt.segments());
        });
    }

    /** @return one page of table names, or null if the scope does not exist */
    Page listKvts(String scope, String token, Predicate<String> filter) {
        return journal.read(m -> {
            ScopeMeta s = m.scope(scope);
            return s == null ? null : page(s.kvts.keySet(), token, filter);
        });
    }

    KeyValueTableConfigResponse kvtConfig(String scope, String name) {
        return journal.read(m -> {
            KvtMeta kvt = m.kvt(scope, name);
            if (kvt == null) {
                return KeyValueTableConfigResponse.newBuilder()
                        .setStatus(KeyValueTableConfigResponse.Status.TABLE_NOT_FOUND).build();
            }
            return KeyValueTableConfigResponse.newBuilder().setConfig(kvt.config.toBuilder().setScope(scope)
                    .setKvtName(name)).setStatus(KeyValueTableConfigResponse.Status.SUCCESS).build();
        });
    }

    DeleteKVTableStatus.Status deleteKeyValueTable(String scope, String name) {
        return onKey(kvtKey(scope, name), () -> finishKvtDeletion(scope, name));
    }

    private DeleteKVTableStatus.Status finishKvtDeletion(String scope, String name) {
        List<SegmentRecord> segments = journal.write(m -> {
            KvtMeta kvt = m.kvt(scope, name);
            if (kvt == null) {
                return Decision.of(null);
            }
            return kvt.state == KvtState.DELETING ? Decision.of(kvt.segments())
                    : Decision.of(kvt.segments(), new ControllerEvent.KvtDeleting(scope, name));
        });
        if (segments == null) {
            return DeleteKVTableStatus.Status.TABLE_NOT_FOUND;
        }
        for (SegmentRecord segment : segments) {
            admin.deleteSegment(Names.kvtSegmentName(scope, name, segment.id()));
        }
        journal.write(m -> Decision.of(null, new ControllerEvent.KvtDeleted(scope, name)));
        return DeleteKVTableStatus.Status.SUCCESS;
    }

    // ---------------------------------------------------------------- recovery

    /**
     * Finishes, in the background, everything the replayed log shows as begun but not done: stream creations,
     * scales, rolling transactions, truncations, seals, deletions, commits and aborts, reader group, table and
     * recursive scope deletions.
     *
     * @return futures of the submitted work
     */
    List<CompletableFuture<?>> resumeUnfinishedWork() {
        record Work(String key, String what, Callable<Object> task) {
        }
        List<Work> work = journal.read(m -> {
            List<Work> list = new ArrayList<>();
            for (ScopeMeta scope : m.scopes().values()) {
                String sc = scope.name;
                for (StreamMeta s : scope.streams.values()) {
                    String st = s.name;
                    String key = streamKey(sc, st);
                    if (s.state == StreamMeta.State.CREATING) {
                        list.add(new Work(key, "creating " + st, () -> {
                            resumeStreamCreation(sc, st);
                            return null;
                        }));
                    }
                    if (s.scale != null) {
                        list.add(new Work(key, "scaling " + st, () -> {
                            finishScale(sc, st);
                            return null;
                        }));
                    }
                    if (s.pendingTruncation != null) {
                        list.add(new Work(key, "truncating " + st, () -> {
                            finishTruncation(sc, st);
                            return null;
                        }));
                    }
                    boolean committing = s.rolling != null
                            || s.txns.values().stream().anyMatch(t -> t.state() == TxnPhase.COMMITTING);
                    if (committing) {
                        list.add(new Work(key, "committing transactions of " + st, () -> {
                            processCommits(sc, st);
                            return null;
                        }));
                    }
                    if (s.txns.values().stream().anyMatch(t -> t.state() == TxnPhase.ABORTING)) {
                        list.add(new Work(key, "aborting transactions of " + st, () -> {
                            processAborts(sc, st);
                            return null;
                        }));
                    }
                    if (s.state == StreamMeta.State.SEALING) {
                        list.add(new Work(key, "sealing " + st, () -> sealInternal(sc, st)));
                    }
                    if (s.state == StreamMeta.State.DELETING) {
                        list.add(new Work(key, "deleting " + st, () -> deleteInternal(sc, st)));
                    }
                }
                for (ReaderGroupMeta rg : scope.readerGroups.values()) {
                    if (rg.deleting) {
                        list.add(new Work(readerGroupKey(sc, rg.name), "deleting reader group " + rg.name,
                                () -> finishReaderGroupDeletion(sc, rg.name, "")));
                    }
                }
                for (KvtMeta kvt : scope.kvts.values()) {
                    String key = kvtKey(sc, kvt.name);
                    if (kvt.state == KvtState.CREATING) {
                        list.add(new Work(key, "creating table " + kvt.name, () -> {
                            finishKvtCreation(sc, kvt.name);
                            return null;
                        }));
                    } else if (kvt.state == KvtState.DELETING) {
                        list.add(new Work(key, "deleting table " + kvt.name, () -> finishKvtDeletion(sc, kvt.name)));
                    }
                }
                if (scope.deleting) {
                    list.add(new Work(scopeKey(sc), "deleting scope " + sc, () -> finishScopeDeletion(sc)));
                }
            }
            return list;
        });
        List<CompletableFuture<?>> futures = new ArrayList<>();
        for (Work w : work) {
            LOG.info("resuming unfinished work: {}", w.what());
            futures.add(executors.submit(w.key(), w.task())
                    .whenComplete((v, e) -> logFailure(e, "resuming " + w.what())));
        }
        return futures;
    }

    // ---------------------------------------------------------------- helpers

    /** One page of a listing: names and the token for the next page (the last name, or the old token if empty). */
    record Page(List<String> names, String token) {
    }

    private Page page(Iterable<String> sortedNames, String token, Predicate<String> filter) {
        List<String> names = new ArrayList<>();
        String last = token;
        for (String name : sortedNames) {
            if (!token.isEmpty() && name.compareTo(token) <= 0) {
                continue;
            }
            if (names.size() == settings.pageSize()) {
                break;
            }
            last = name;
            if (filter.test(name)) {
                names.add(name);
            }
        }
        return new Page(names, last);
    }

    private static StreamMeta requireStream(ControllerModel m, String scope, String stream) {
        StreamMeta s = m.stream(scope, stream);
        if (s == null) {
            throw Protos.notFound("stream " + Names.scoped(scope, stream) + " does not exist");
        }
        return s;
    }
}
