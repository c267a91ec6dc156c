package io.sluice.server.controller;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

import io.sluice.controller.grpc.v1.StreamConfig;

/**
 * One stream's metadata: configuration, state, epoch history, truncation point, transactions, subscribers and writer
 * marks, plus the queries on them (successors, stream cut validity and spans, segments between cuts). Mutable and
 * not thread-safe: only {@link ControllerModel} changes it, under the journal's lock. The algorithms follow Pravega's
 * {@code PersistentStreamBase}.
 */
final class StreamMeta {
    /** How many completed transactions a stream remembers for {@code listCompletedTransactions}. */
    static final int COMPLETED_TXNS_KEPT = 1000;

    /** Lifecycle of a stream. */
    enum State {
        CREATING, ACTIVE, SEALING, SEALED, DELETING
    }

    /**
     * A scale in progress.
     *
     * @param sealedSegments ids to seal
     * @param newSegments the segments that form the new epoch with the unsealed ones
     * @param previousEpoch the active epoch when the scale started
     * @param epochCreated whether the new epoch is already in the history
     */
    record ScaleRecord(List<Long> sealedSegments, List<SegmentRecord> newSegments, int previousEpoch, long timestamp,
                       boolean epochCreated) {
        ScaleRecord {
            sealedSegments = List.copyOf(sealedSegments);
            newSegments = List.copyOf(newSegments);
        }
    }

    /**
     * A rolling transaction in progress.
     *
     * @param txnEpoch the epoch of the transactions being committed
     * @param txns those transactions, in commit order
     * @param txnCopies the epoch of copies of the transactions' epoch segments (receives the transactions)
     * @param activeCopies the epoch of copies of the active segments (the next active epoch)
     * @param previousActive the active epoch before the roll (its segments get sealed)
     * @param epochsCreated whether both epochs are in the history
     */
    record RollingRecord(int txnEpoch, List<UUID> txns, EpochRecord txnCopies, EpochRecord activeCopies,
                         EpochRecord previousActive, boolean epochsCreated) {
        RollingRecord {
            txns = List.copyOf(txns);
        }
    }

    /**
     * A truncation point.
     *
     * @param streamCut segment id to offset
     * @param span segment id to the epoch it is counted in
     * @param deleted segments deleted by earlier truncations
     * @param toDelete segments this truncation deletes
     */
    record TruncationRecord(Map<Long, Long> streamCut, Map<Long, Integer> span, Set<Long> deleted,
                            Set<Long> toDelete) {
        static final TruncationRecord EMPTY = new TruncationRecord(Map.of(), Map.of(), Set.of(), Set.of());

        TruncationRecord {
            streamCut = Map.copyOf(streamCut);
            span = Map.copyOf(span);
            deleted = Set.copyOf(deleted);
            toDelete = Set.copyOf(toDelete);
        }

        boolean isEmpty() {
            return streamCut.isEmpty();
        }
    }

    /** A subscribing reader group's last reported position. */
    record SubscriberRecord(String name, long generation, Map<Long, Long> streamCut, long time) {
        SubscriberRecord {
            streamCut = Map.copyOf(streamCut);
        }
    }

    /**
     * A writer's last noted time and position.
     *
     * @param alive false once the writer shut down ({@code removeWriter})
     */
    record WriterMark(long timestamp, Map<Long, Long> position, boolean alive) {
        WriterMark {
            position = Map.copyOf(position);
        }
    }

    final String scope;
    final String name;
    final boolean markStream;
    final long creationTime;
    StreamConfig config;
    State state = State.CREATING;
    /** Epoch {@code i} is at index {@code i}; the last one is active. */
    final List<EpochRecord> epochs = new ArrayList<>();
    ScaleRecord scale;
    RollingRecord rolling;
    TruncationRecord truncation = TruncationRecord.EMPTY;
    TruncationRecord pendingTruncation;
    final LinkedHashMap<UUID, TxnRecord> txns = new LinkedHashMap<>();
    final LinkedHashMap<UUID, TxnPhase> completedTxns = new LinkedHashMap<>();
    long nextCommitOrder;
    final TreeMap<String, SubscriberRecord> subscribers = new TreeMap<>();
    final TreeMap<String, WriterMark> writers = new TreeMap<>();

    StreamMeta(String scope, String name, StreamConfig config, long creationTime, boolean markStream) {
        this.scope = scope;
        this.name = name;
        this.config = config;
        this.creationTime = creationTime;
        this.markStream = markStream;
    }

    /** @return the active epoch */
    EpochRecord activeEpoch() {
        return epochs.getLast();
    }

    /** @return the epoch, or null if there is none of that number */
    EpochRecord epoch(int epoch) {
        return epoch >= 0 && epoch < epochs.size() ? epochs.get(epoch) : null;
    }

    /** @return the segments writers should use now: the active epoch's, or none once sealed */
    List<SegmentRecord> currentSegments() {
        if (state == State.SEALED) {
            return List.of();
        }
        return sortedByKey(activeEpoch().segments());
    }

    /** @return the highest segment number this stream has used */
    int maxSegmentNumber() {
        int max = -1;
        for (EpochRecord e : epochs) {
            max = Math.max(max, e.maxSegmentNumber());
        }
        if (scale != null) {
            for (SegmentRecord s : scale.newSegments()) {
                max = Math.max(max, s.number());
            }
        }
        return max;
    }

    /** @return the record of a segment in the epoch that created it, or null */
    SegmentRecord segment(long segmentId) {
        EpochRecord created = epoch(Names.epoch(segmentId));
        return created == null ? null : created.segment(segmentId);
    }

    /** @return every segment the stream has had, sealed or not, except those truncation deleted */
    Set<Long> liveSegmentIds() {
        Set<Long> ids = new LinkedHashSet<>();
        for (EpochRecord e : epochs) {
            for (SegmentRecord s : e.segments()) {
                ids.add(s.id());
            }
        }
        ids.removeAll(truncation.deleted());
        return ids;
    }

    /**
     * The successors of a segment, each with its predecessors (Pravega's {@code getSuccessorsWithPredecessors}):
     * empty while the segment is active, or if it was sealed with the stream.
     */
    Map<SegmentRecord, List<Long>> successors(long segmentId) {
        Map<SegmentRecord, List<Long>> result = new LinkedHashMap<>();
        int created = Names.epoch(segmentId);
        EpochRecord creation = epoch(created);
        if (creation == null || !creation.contains(segmentId)) {
            return result;
        }
        int sealedEpoch = -1;
        for (int e = created + 1; e < epochs.size(); e++) {
            if (!epochs.get(e).contains(segmentId)) {
                sealedEpoch = e;
                break;
            }
        }
        if (sealedEpoch < 0) {
            return result;
        }
        EpochRecord previous = epochs.get(sealedEpoch - 1);
        SegmentRecord segment = previous.segment(segmentId);
        for (SegmentRecord successor : sortedByKey(epochs.get(sealedEpoch).segments())) {
            if (successor.overlaps(segment)) {
                List<Long> predecessors = new ArrayList<>();
                for (SegmentRecord p : sortedByKey(previous.segments())) {
                    if (p.overlaps(successor)) {
                        predecessors.add(p.id());
                    }
                }
                result.put(successor, predecessors);
            }
        }
        return result;
    }

    /** @return segment id to offset at the head: the truncation point, or offset 0 of every epoch-0 segment */
    Map<Long, Long> head() {
        if (truncation.isEmpty()) {
            Map<Long, Long> head = new LinkedHashMap<>();
            for (SegmentRecord s : sortedByKey(epochs.getFirst().segments())) {
                head.put(s.id(), 0L);
            }
            return head;
        }
        return new TreeMap<>(truncation.streamCut());
    }

    /** @return whether every segment id of the cut belongs to this stream */
    boolean knowsAll(Map<Long, Long> streamCut) {
        for (long id : streamCut.keySet()) {
            if (segment(id) == null) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a stream cut splits the stream unambiguously into before and after (Pravega's
     * {@code isStreamCutValidInternal}); negative offsets mark future segments.
     */
    boolean isValidStreamCut(Map<Long, Long> streamCut) {
        if (streamCut.isEmpty() || !knowsAll(streamCut)) {
            return false;
        }
        int epochLow = Names.epoch(Collections.min(streamCut.keySet()));
        int epochHigh = Names.epoch(Collections.max(streamCut.keySet()));
        List<EpochRecord> range = epochs.subList(epochLow, epochHigh + 1);
        Set<SegmentRecord> inCut = new HashSet<>();
        Set<SegmentRecord> future = new HashSet<>();
        for (Map.Entry<Long, Long> entry : streamCut.entrySet()) {
            SegmentRecord record = segment(entry.getKey());
            if (entry.getValue() < 0) {
                future.add(record);
            } else {
                inCut.add(record);
            }
        }
        for (SegmentRecord f : future) {
            for (SegmentRecord y : inCut) {
                if (y.overlaps(f) && y.id() >= f.id()) {
                    return false;
                }
            }
        }
        if (inCut.isEmpty()) {
            return false;
        }
        List<SegmentRecord> sorted = new ArrayList<>(inCut);
        sorted.sort(Comparator.comparingDouble(SegmentRecord::keyStart));
        Map<Double, Double> missing = new LinkedHashMap<>();
        SegmentRecord previous = sorted.getFirst();
        if (previous.keyStart() > 0.0) {
            missing.put(0.0, previous.keyStart());
            if (!coveredByFuture(future, 0.0, previous.keyStart())) {
                return false;
            }
        }
        for (int i = 1; i < sorted.size(); i++) {
            SegmentRecord next = sorted.get(i);
            if (previous.keyEnd() < next.keyStart()) {
                missing.put(previous.keyEnd(), next.keyStart());
                if (!coveredByFuture(future, previous.keyEnd(), next.keyStart())) {
                    return false;
                }
            } else if (previous.keyEnd() > next.keyStart()) {
                return false;
            }
            previous = next;
        }
        if (previous.keyEnd() < 1.0) {
            missing.put(previous.keyEnd(), 1.0);
            if (!coveredByFuture(future, previous.keyEnd(), 1.0)) {
                return false;
            }
        }
        // Walk forward from the oldest epoch through the missing ranges: every segment met there must be a
        // predecessor of a segment in the cut (fully read) or a future segment itself.
        List<SegmentRecord> toCheck = new ArrayList<>();
        for (Map.Entry<Double, Double> m : missing.entrySet()) {
            for (SegmentRecord s : range.getFirst().segments()) {
                if (s.overlaps(m.getKey(), m.getValue())) {
                    toCheck.add(s);
                }
            }
        }
        Set<SegmentRecord> fullyRead = new HashSet<>();
        while (!toCheck.isEmpty()) {
            SegmentRecord candidate = toCheck.removeFirst();
            if (fullyRead.contains(candidate) || inCut.contains(candidate) || future.contains(candidate)) {
                continue;
            }
            for (SegmentRecord s : inCut) {
                if (!s.overlaps(candidate)) {
                    continue;
                }
                if (s.id() < candidate.id()) {
                    return false;
                }
                fullyRead.add(candidate);
                int index = candidate.epoch() - epochLow;
                for (int i = Math.max(index, 0); i < range.size(); i++) {
                    if (!range.get(i).contains(candidate.id())) {
                        for (SegmentRecord x : range.get(i).segments()) {
                            if (x.overlaps(candidate)) {
                                toCheck.add(x);
                            }
                        }
                        break;
                    }
                }
            }
        }
        return true;
    }

    private static boolean coveredByFuture(Set<SegmentRecord> future, double start, double end) {
        for (SegmentRecord f : future) {
            if (f.overlaps(start, end)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The span of a stream cut: each of its segments with the highest epoch (between the cut's oldest and newest)
     * that holds it.
     */
    Map<Long, Integer> span(Map<Long, Long> streamCut) {
        Map<Long, Integer> span = new HashMap<>();
        int epochLow = Names.epoch(Collections.min(streamCut.keySet()));
        int epochHigh = Names.epoch(Collections.max(streamCut.keySet()));
        for (long id : streamCut.keySet()) {
            for (int e = epochHigh; e >= epochLow; e--) {
                if (epochs.get(e).contains(id)) {
                    span.put(id, e);
                    break;
                }
            }
        }
        return span;
    }

    /** @return the span of an epoch: each of its segments with the epoch's number */
    static Map<Long, Integer> spanOf(EpochRecord epoch) {
        Map<Long, Integer> span = new HashMap<>();
        for (SegmentRecord s : epoch.segments()) {
            span.put(s.id(), epoch.epoch());
        }
        return span;
    }

    /**
     * Whether cut 1 is at or after cut 2 everywhere (Pravega's {@code streamCutComparator}/{@code
     * streamCutEqualOrAfter}).
     */
    boolean equalOrAfter(Map<Long, Long> cut1, Map<Long, Integer> span1, Map<Long, Long> cut2,
                         Map<Long, Integer> span2) {
        for (Map.Entry<Long, Integer> e1 : span1.entrySet()) {
            SegmentRecord s1 = segment(e1.getKey());
            for (Map.Entry<Long, Integer> e2 : span2.entrySet()) {
                SegmentRecord s2 = segment(e2.getKey());
                boolean sameBehind = e2.getKey().equals(e1.getKey()) && cut1.get(e1.getKey()) < cut2.get(e2.getKey());
                boolean overlapOlder = s2.overlaps(s1) && e1.getValue() < e2.getValue();
                if (sameBehind || overlapOlder) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * The segments between two spans, inclusive (Pravega's {@code segmentsBetweenStreamCutSpans}), in epoch order.
     */
    List<SegmentRecord> segmentsBetween(Map<Long, Integer> spanFrom, Map<Long, Integer> spanTo) {
        int toLow = Collections.min(spanTo.values());
        int toHigh = Collections.max(spanTo.values());
        int fromLow = Collections.min(spanFrom.values());
        int fromHigh = Collections.max(spanFrom.values());
        Set<SegmentRecord> result = new LinkedHashSet<>();
        for (int e = fromLow; e <= toHigh && e < epochs.size(); e++) {
            EpochRecord epoch = epochs.get(e);
            if (e >= fromHigh && e <= toLow) {
                result.addAll(epoch.segments());
                continue;
            }
            for (SegmentRecord segment : epoch.segments()) {
                if (result.contains(segment)) {
                    continue;
                }
                boolean afterFrom = spanFrom.keySet().stream().map(this::segment)
                        .filter(x -> x.overlaps(segment)).allMatch(x -> x.id() <= segment.id());
                boolean beforeTo = spanTo.keySet().stream().map(this::segment)
                        .filter(x -> x.overlaps(segment)).allMatch(x -> segment.id() <= x.id());
                if (afterFrom && beforeTo) {
                    result.add(segment);
                }
            }
        }
        return new ArrayList<>(result);
    }

    /**
     * Plans a truncation at a stream cut (Pravega's {@code startTruncation}).
     *
     * @return the pending truncation record, or null if the cut is invalid or behind the current truncation point
     */
    TruncationRecord planTruncation(Map<Long, Long> streamCut) {
        if (!isValidStreamCut(streamCut)) {
            return null;
        }
        Map<Long, Integer> span = span(streamCut);
        TruncationRecord previous = truncation;
        if (!equalOrAfter(streamCut, span, previous.streamCut(), previous.span())) {
            return null;
        }
        Map<Long, Integer> spanFrom = previous.isEmpty() ? spanOf(epochs.getFirst()) : previous.span();
        Set<Long> toDelete = new LinkedHashSet<>();
        for (SegmentRecord s : segmentsBetween(spanFrom, span)) {
            if (!streamCut.containsKey(s.id())) {
                toDelete.add(s.id());
            }
        }
        return new TruncationRecord(streamCut, span, previous.deleted(), toDelete);
    }

    /** @return committing transactions of the lowest epoch that has any, in commit order */
    List<TxnRecord> nextCommitBatch() {
        int lowest = Integer.MAX_VALUE;
        for (TxnRecord t : txns.values()) {
            if (t.state() == TxnPhase.COMMITTING) {
                lowest = Math.min(lowest, t.epoch());
            }
        }
        List<TxnRecord> batch = new ArrayList<>();
        for (TxnRecord t : txns.values()) {
            if (t.state() == TxnPhase.COMMITTING && t.epoch() == lowest) {
                batch.add(t);
            }
        }
        batch.sort(Comparator.comparingLong(TxnRecord::commitOrder));
        return batch;
    }

    /** @return the state of a transaction, active or completed, or null if the stream never had it */
    TxnPhase txnState(UUID txnId) {
        TxnRecord active = txns.get(txnId);
        if (active != null) {
            return active.state();
        }
        return completedTxns.get(txnId);
    }

    void complete(UUID txnId, TxnPhase finalState) {
        txns.remove(txnId);
        completedTxns.put(txnId, finalState);
        if (completedTxns.size() > COMPLETED_TXNS_KEPT) {
            UUID eldest = completedTxns.keySet().iterator().next();
            completedTxns.remove(eldest);
        }
    }

    /** @return segments sorted by the start of their key range */
    static List<SegmentRecord> sortedByKey(List<SegmentRecord> segments) {
        List<SegmentRecord> sorted = new ArrayList<>(segments);
        sorted.sort(Comparator.comparingDouble(SegmentRecord::keyStart));
        return sorted;
    }
}
