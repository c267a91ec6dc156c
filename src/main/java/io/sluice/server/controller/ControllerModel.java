package io.sluice.server.controller;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

import io.sluice.controller.grpc.v1.KeyValueTableConfig;
import io.sluice.controller.grpc.v1.ReaderGroupConfiguration;
import io.sluice.controller.grpc.v1.StreamCut;
import io.sluice.server.controller.ControllerEvent.KeyRange;
import io.sluice.server.controller.ControllerEvent.KvtActivated;
import io.sluice.server.controller.ControllerEvent.KvtCreating;
import io.sluice.server.controller.ControllerEvent.KvtDeleted;
import io.sluice.server.controller.ControllerEvent.KvtDeleting;
import io.sluice.server.controller.ControllerEvent.ReaderGroupCreated;
import io.sluice.server.controller.ControllerEvent.ReaderGroupDeleted;
import io.sluice.server.controller.ControllerEvent.ReaderGroupDeleting;
import io.sluice.server.controller.ControllerEvent.ReaderGroupUpdated;
import io.sluice.server.controller.ControllerEvent.RollingTxnCompleted;
import io.sluice.server.controller.ControllerEvent.RollingTxnEpochsCreated;
import io.sluice.server.controller.ControllerEvent.RollingTxnStarted;
import io.sluice.server.controller.ControllerEvent.ScaleCompleted;
import io.sluice.server.controller.ControllerEvent.ScaleEpochCreated;
import io.sluice.server.controller.ControllerEvent.ScaleStarted;
import io.sluice.server.controller.ControllerEvent.ScopeCreated;
import io.sluice.server.controller.ControllerEvent.ScopeDeleted;
import io.sluice.server.controller.ControllerEvent.ScopeDeleting;
import io.sluice.server.controller.ControllerEvent.StreamActivated;
import io.sluice.server.controller.ControllerEvent.StreamCreating;
import io.sluice.server.controller.ControllerEvent.StreamDeleted;
import io.sluice.server.controller.ControllerEvent.StreamDeleting;
import io.sluice.server.controller.ControllerEvent.StreamSealed;
import io.sluice.server.controller.ControllerEvent.StreamSealing;
import io.sluice.server.controller.ControllerEvent.StreamUpdated;
import io.sluice.server.controller.ControllerEvent.SubscriberStreamCutUpdated;
import io.sluice.server.controller.ControllerEvent.TruncationCompleted;
import io.sluice.server.controller.ControllerEvent.TruncationStarted;
import io.sluice.server.controller.ControllerEvent.TxnAborted;
import io.sluice.server.controller.ControllerEvent.TxnAborting;
import io.sluice.server.controller.ControllerEvent.TxnCommitted;
import io.sluice.server.controller.ControllerEvent.TxnCommitting;
import io.sluice.server.controller.ControllerEvent.TxnCreated;
import io.sluice.server.controller.ControllerEvent.TxnPinged;
import io.sluice.server.controller.ControllerEvent.WriterMarkNoted;
import io.sluice.server.controller.ControllerEvent.WriterRemoved;
import io.sluice.server.controller.ControllerEvent.WriterShutDown;
import io.sluice.server.controller.StreamMeta.RollingRecord;
import io.sluice.server.controller.StreamMeta.ScaleRecord;
import io.sluice.server.controller.StreamMeta.SubscriberRecord;
import io.sluice.server.controller.StreamMeta.TruncationRecord;
import io.sluice.server.controller.StreamMeta.WriterMark;

/**
 * All controller metadata, built only by {@link #apply applying} {@link ControllerEvent}s: the same events in the
 * same order always give the same model (no clocks, no randomness in here). Not thread-safe: the {@link Journal}
 * guards it with its lock.
 */
final class ControllerModel {

    /** A scope and what lives in it. */
    static final class ScopeMeta {
        final String name;
        boolean deleting;
        final TreeMap<String, StreamMeta> streams = new TreeMap<>();
        final TreeMap<String, ReaderGroupMeta> readerGroups = new TreeMap<>();
        final TreeMap<String, KvtMeta> kvts = new TreeMap<>();

        ScopeMeta(String name) {
            this.name = name;
        }

        boolean isEmpty() {
            return streams.isEmpty() && readerGroups.isEmpty() && kvts.isEmpty();
        }
    }

    /** A reader group: its configuration (id and generation included). */
    static final class ReaderGroupMeta {
        final String scope;
        final String name;
        final long creationTime;
        ReaderGroupConfiguration config;
        boolean deleting;

        ReaderGroupMeta(String scope, String name, ReaderGroupConfiguration config, long creationTime) {
            this.scope = scope;
            this.name = name;
            this.config = config;
            this.creationTime = creationTime;
        }
    }

    /** Lifecycle of a key-value table. */
    enum KvtState {
        CREATING, ACTIVE, DELETING
    }

    /** A key-value table: configuration and its table segments' ids. */
    static final class KvtMeta {
        final String scope;
        final String name;
        final KeyValueTableConfig config;
        final UUID id;
        final long creationTime;
        final int startingSegmentNumber;
        KvtState state = KvtState.CREATING;

        KvtMeta(String scope, String name, KeyValueTableConfig config, UUID id, long creationTime, int start) {
            this.scope = scope;
            this.name = name;
            this.config = config;
            this.id = id;
            this.creationTime = creationTime;
            this.startingSegmentNumber = start;
        }

        /** @return the table segments, partition i covering keys {@code [i/n, (i+1)/n)} */
        List<SegmentRecord> segments() {
            int n = config.getPartitionCount();
            double chunk = 1.0 / n;
            List<SegmentRecord> segments = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                segments.add(new SegmentRecord(Names.segmentId(startingSegmentNumber + i, 0), i * chunk,
                        (i + 1) * chunk, creationTime));
            }
            return segments;
        }
    }

    private final TreeMap<String, ScopeMeta> scopes = new TreeMap<>();
    /** Scoped stream name to the first segment number a stream of that name may use again (after deletion). */
    private final Map<String, Integer> nextStreamSegmentNumbers = new HashMap<>();
    /** The same for key-value tables. */
    private final Map<String, Integer> nextKvtSegmentNumbers = new HashMap<>();

    /** @return the scopes by name (live view: read under the journal's lock only) */
    TreeMap<String, ScopeMeta> scopes() {
        return scopes;
    }

    /** @return the scope, or null */
    ScopeMeta scope(String scope) {
        return scopes.get(scope);
    }

    /** @return the scope if it exists and is not being deleted, else null */
    ScopeMeta liveScope(String scope) {
        ScopeMeta s = scopes.get(scope);
        return s == null || s.deleting ? null : s;
    }

    /** @return the stream, or null */
    StreamMeta stream(String scope, String stream) {
        ScopeMeta s = scopes.get(scope);
        return s == null ? null : s.streams.get(stream);
    }

    /** @return the reader group, or null */
    ReaderGroupMeta readerGroup(String scope, String readerGroup) {
        ScopeMeta s = scopes.get(scope);
        return s == null ? null : s.readerGroups.get(readerGroup);
    }

    /** @return the key-value table, or null */
    KvtMeta kvt(String scope, String kvt) {
        ScopeMeta s = scopes.get(scope);
        return s == null ? null : s.kvts.get(kvt);
    }

    /** @return the first segment number a new stream of this name gets */
    int startingSegmentNumber(String scope, String stream) {
        return nextStreamSegmentNumbers.getOrDefault(Names.scoped(scope, stream), 0);
    }

    /**
     * Applies one event.
     *
     * @throws IllegalStateException if the event does not fit the state (a bug, or a corrupt log)
     */
    void apply(ControllerEvent event) {
        switch (event) {
            case ScopeCreated e -> scopes.put(e.scope(), new ScopeMeta(e.scope()));
            case ScopeDeleting e -> requireScope(e.scope()).deleting = true;
            case ScopeDeleted e -> scopes.remove(e.scope());
            case StreamCreating e -> createStream(e);
            case StreamActivated e -> requireStream(e.scope(), e.stream()).state = StreamMeta.State.ACTIVE;
            case StreamUpdated e -> requireStream(e.scope(), e.stream()).config = e.config();
            case ScaleStarted e -> startScale(requireStream(e.scope(), e.stream()), e);
            case ScaleEpochCreated e -> createScaleEpoch(requireStream(e.scope(), e.stream()));
            case ScaleCompleted e -> requireStream(e.scope(), e.stream()).scale = null;
            case StreamSealing e -> requireStream(e.scope(), e.stream()).state = StreamMeta.State.SEALING;
            case StreamSealed e -> requireStream(e.scope(), e.stream()).state = StreamMeta.State.SEALED;
            case StreamDeleting e -> requireStream(e.scope(), e.stream()).state = StreamMeta.State.DELETING;
            case StreamDeleted e -> deleteStream(e.scope(), e.stream());
            case TruncationStarted e -> startTruncation(requireStream(e.scope(), e.stream()), e.streamCut());
            case TruncationCompleted e -> completeTruncation(requireStream(e.scope(), e.stream()));
            case TxnCreated e -> requireStream(e.scope(), e.stream()).txns.put(e.txnId(),
                    new TxnRecord(e.txnId(), Names.txnEpoch(e.txnId()), TxnPhase.OPEN, e.creationTime(),
                            e.leaseExpiry(), e.maxExecutionExpiry(), "", Long.MIN_VALUE, -1));
            case TxnPinged e -> {
                StreamMeta s = requireStream(e.scope(), e.stream());
                s.txns.put(e.txnId(), requireTxn(s, e.txnId()).withLease(e.leaseExpiry()));
            }
            case TxnCommitting e -> {
                StreamMeta s = requireStream(e.scope(), e.stream());
                s.txns.put(e.txnId(), requireTxn(s, e.txnId()).committing(e.writerId(), e.commitTimestamp(),
                        s.nextCommitOrder++));
            }
            case TxnCommitted e -> {
                StreamMeta s = requireStream(e.scope(), e.stream());
                requireTxn(s, e.txnId());
                s.complete(e.txnId(), TxnPhase.COMMITTED);
            }
            case TxnAborting e -> {
                StreamMeta s = requireStream(e.scope(), e.stream());
                s.txns.put(e.txnId(), requireTxn(s, e.txnId()).withState(TxnPhase.ABORTING));
            }
            case TxnAborted e -> {
                StreamMeta s = requireStream(e.scope(), e.stream());
                requireTxn(s, e.txnId());
                s.complete(e.txnId(), TxnPhase.ABORTED);
            }
            case RollingTxnStarted e -> startRollingTxn(requireStream(e.scope(), e.stream()), e.time());
            case RollingTxnEpochsCreated e -> {
                StreamMeta s = requireStream(e.scope(), e.stream());
                RollingRecord r = require(s.rolling, "rolling transaction of " + s.name);
                s.epochs.add(r.txnCopies());
                s.epochs.add(r.activeCopies());
                s.rolling = new RollingRecord(r.txnEpoch(), r.txns(), r.txnCopies(), r.activeCopies(),
                        r.previousActive(), true);
            }
            case RollingTxnCompleted e -> requireStream(e.scope(), e.stream()).rolling = null;
            case ReaderGroupCreated e -> {
                ReaderGroupMeta rg = new ReaderGroupMeta(e.scope(), e.readerGroup(), e.config(), e.creationTime());
                requireScope(e.scope()).readerGroups.put(e.readerGroup(), rg);
                subscribe(rg, Set.of(), e.creationTime());
            }
            case ReaderGroupUpdated e -> {
                ReaderGroupMeta rg = requireReaderGroup(e.scope(), e.readerGroup());
                Set<String> before = subscribedStreams(rg.config);
                rg.config = e.config();
                subscribe(rg, before, rg.creationTime);
            }
            case ReaderGroupDeleting e -> requireReaderGroup(e.scope(), e.readerGroup()).deleting = true;
            case ReaderGroupDeleted e -> {
                ReaderGroupMeta rg = requireReaderGroup(e.scope(), e.readerGroup());
                for (String scoped : subscribedStreams(rg.config)) {
                    StreamMeta s = streamByScopedName(scoped);
                    if (s != null) {
                        s.subscribers.remove(Names.scoped(rg.scope, rg.name));
                    }
                }
                requireScope(e.scope()).readerGroups.remove(e.readerGroup());
            }
            case SubscriberStreamCutUpdated e -> requireStream(e.scope(), e.stream()).subscribers.put(e.subscriber(),
                    new SubscriberRecord(e.subscriber(), e.generation(), e.streamCut(), e.time()));
            case WriterMarkNoted e -> requireStream(e.scope(), e.stream()).writers.put(e.writer(),
                    new WriterMark(e.timestamp(), e.position(), true));
            case WriterShutDown e -> requireStream(e.scope(), e.stream()).writers.computeIfPresent(e.writer(),
                    (w, m) -> new WriterMark(m.timestamp(), m.position(), false));
            case WriterRemoved e -> requireStream(e.scope(), e.stream()).writers.remove(e.writer());
            case KvtCreating e -> {
                int start = nextKvtSegmentNumbers.getOrDefault(Names.scoped(e.scope(), e.kvt()), 0);
                requireScope(e.scope()).kvts.put(e.kvt(),
                        new KvtMeta(e.scope(), e.kvt(), e.config(), e.id(), e.creationTime(), start));
            }
            case KvtActivated e -> requireKvt(e.scope(), e.kvt()).state = KvtState.ACTIVE;
            case KvtDeleting e -> requireKvt(e.scope(), e.kvt()).state = KvtState.DELETING;
            case KvtDeleted e -> {
                KvtMeta kvt = requireKvt(e.scope(), e.kvt());
                nextKvtSegmentNumbers.put(Names.scoped(e.scope(), e.kvt()),
                        kvt.startingSegmentNumber + kvt.config.getPartitionCount());
                requireScope(e.scope()).kvts.remove(e.kvt());
            }
        }
    }

    private void createStream(StreamCreating e) {
        ScopeMeta scope = requireScope(e.scope());
        int start = startingSegmentNumber(e.scope(), e.stream());
        int n = e.config().getScalingPolicy().getMinNumSegments();
        double chunk = 1.0 / n;
        List<SegmentRecord> segments = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            segments.add(new SegmentRecord(Names.segmentId(start + i, 0), i * chunk, (i + 1) * chunk,
                    e.creationTime()));
        }
        StreamMeta stream = new StreamMeta(e.scope(), e.stream(), e.config(), e.creationTime(), e.markStream());
        stream.epochs.add(new EpochRecord(0, 0, segments, e.creationTime()));
        scope.streams.put(e.stream(), stream);
    }

    private void deleteStream(String scope, String name) {
        StreamMeta stream = requireStream(scope, name);
        nextStreamSegmentNumbers.put(Names.scoped(scope, name), stream.maxSegmentNumber() + 1);
        requireScope(scope).streams.remove(name);
    }

    private static void startScale(StreamMeta stream, ScaleStarted e) {
        EpochRecord active = stream.activeEpoch();
        int next = stream.maxSegmentNumber() + 1;
        int newEpoch = active.epoch() + 1;
        long time = Math.max(e.timestamp(), active.creationTime() + 1);
        List<SegmentRecord> created = new ArrayList<>();
        for (KeyRange range : e.newRanges()) {
            created.add(new SegmentRecord(Names.segmentId(next++, newEpoch), range.start(), range.end(), time));
        }
        stream.scale = new ScaleRecord(e.sealedSegments(), created, active.epoch(), time, false);
    }

    private static void createScaleEpoch(StreamMeta stream) {
        ScaleRecord scale = require(stream.scale, "scale of " + stream.name);
        EpochRecord active = stream.activeEpoch();
        List<SegmentRecord> segments = new ArrayList<>();
        for (SegmentRecord s : active.segments()) {
            if (!scale.sealedSegments().contains(s.id())) {
                segments.add(s);
            }
        }
        segments.addAll(scale.newSegments());
        int epoch = active.epoch() + 1;
        stream.epochs.add(new EpochRecord(epoch, epoch, segments, scale.timestamp()));
        stream.scale = new ScaleRecord(scale.sealedSegments(), scale.newSegments(), scale.previousEpoch(),
                scale.timestamp(), true);
    }

    private static void startTruncation(StreamMeta stream, Map<Long, Long> streamCut) {
        stream.pendingTruncation = require(stream.planTruncation(streamCut), "valid truncation of " + stream.name);
    }

    private static void completeTruncation(StreamMeta stream) {
        TruncationRecord pending = require(stream.pendingTruncation, "pending truncation of " + stream.name);
        Set<Long> deleted = new HashSet<>(pending.deleted());
        deleted.addAll(pending.toDelete());
        stream.truncation = new TruncationRecord(pending.streamCut(), pending.span(), deleted, Set.of());
        stream.pendingTruncation = null;
    }

    private static void startRollingTxn(StreamMeta stream, long time) {
        List<TxnRecord> batch = stream.nextCommitBatch();
        if (batch.isEmpty()) {
            throw new IllegalStateException("rolling transaction on " + stream.name + " without committing ones");
        }
        int txnEpoch = batch.getFirst().epoch();
        EpochRecord original = require(stream.epoch(txnEpoch), "epoch " + txnEpoch + " of " + stream.name);
        EpochRecord active = stream.activeEpoch();
        long copyTime = Math.max(time, active.creationTime() + 1);
        EpochRecord txnCopies = copy(original, active.epoch() + 1, copyTime);
        EpochRecord activeCopies = copy(active, active.epoch() + 2, copyTime + 1);
        List<UUID> txns = new ArrayList<>();
        for (TxnRecord t : batch) {
            txns.add(t.id());
        }
        stream.rolling = new RollingRecord(txnEpoch, txns, txnCopies, activeCopies, active, false);
    }

    private static EpochRecord copy(EpochRecord original, int epoch, long time) {
        List<SegmentRecord> copies = new ArrayList<>();
        for (SegmentRecord s : original.segments()) {
            copies.add(new SegmentRecord(Names.segmentId(s.number(), epoch), s.keyStart(), s.keyEnd(), time));
        }
        return new EpochRecord(epoch, original.referenceEpoch(), copies, time);
    }

    /** @return scoped names of the streams a reader group subscribes to (none unless it retains data) */
    static Set<String> subscribedStreams(ReaderGroupConfiguration config) {
        Set<String> streams = new HashSet<>();
        if (config.getRetentionType() != 0) {
            for (StreamCut cut : config.getStartingStreamCutsList()) {
                streams.add(Names.scoped(cut.getStreamInfo().getScope(), cut.getStreamInfo().getStream()));
            }
        }
        return streams;
    }

    private void subscribe(ReaderGroupMeta rg, Set<String> before, long time) {
        String subscriber = Names.scoped(rg.scope, rg.name);
        Set<String> after = subscribedStreams(rg.config);
        for (String scoped : before) {
            if (!after.contains(scoped)) {
                StreamMeta s = streamByScopedName(scoped);
                if (s != null) {
                    s.subscribers.remove(subscriber);
                }
            }
        }
        for (String scoped : after) {
            StreamMeta s = streamByScopedName(scoped);
            if (s == null) {
                continue;
            }
            SubscriberRecord existing = s.subscribers.get(subscriber);
            Map<Long, Long> cut = existing == null ? Map.of() : existing.streamCut();
            s.subscribers.put(subscriber, new SubscriberRecord(subscriber, rg.config.getGeneration(), cut,
                    existing == null ? time : existing.time()));
        }
    }

    private StreamMeta streamByScopedName(String scoped) {
        int slash = scoped.indexOf('/');
        return stream(scoped.substring(0, slash), scoped.substring(slash + 1));
    }

    private ScopeMeta requireScope(String scope) {
        return require(scopes.get(scope), "scope " + scope);
    }

    private StreamMeta requireStream(String scope, String stream) {
        return require(stream(scope, stream), "stream " + Names.scoped(scope, stream));
    }

    private ReaderGroupMeta requireReaderGroup(String scope, String readerGroup) {
        return require(readerGroup(scope, readerGroup), "reader group " + Names.scoped(scope, readerGroup));
    }

    private KvtMeta requireKvt(String scope, String kvt) {
        return require(kvt(scope, kvt), "key-value table " + Names.scoped(scope, kvt));
    }

    private static TxnRecord requireTxn(StreamMeta stream, UUID txnId) {
        return require(stream.txns.get(txnId), "transaction " + txnId + " of " + stream.name);
    }

    private static <T> T require(T value, String what) {
        if (value == null) {
            throw new IllegalStateException("controller event refers to a missing " + what);
        }
        return value;
    }
}
