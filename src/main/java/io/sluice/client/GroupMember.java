package io.sluice.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import io.sluice.client.OwnedSegments.OwnedSegment;
import io.sluice.controller.ControllerClient;
import io.sluice.common.Deadline;
import io.sluice.controller.SegmentSuccessors;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.readergroup.GroupUpdate;
import io.sluice.readergroup.Membership;
import io.sluice.readergroup.Membership.Rebalance;
import io.sluice.readergroup.ReaderGroupState;
import io.sluice.readergroup.ReaderGroupState.CheckpointProgress;
import io.sluice.readergroup.ReaderGroupState.Owned;
import io.sluice.readergroup.ReaderGroupState.ReaderInfo;
import io.sluice.stream.ReaderConfig;
import io.sluice.stream.Position;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reader's membership of its group, carried out on the consumer's thread: it joins, rejoins after the group removed
 * it, follows resets, makes the owned segments what the group state says, passes checkpoints, gives segments back
 * and takes them as {@link Membership} decides (release first), reports segments read to their end with their
 * successors, and leaves. Every change of what the reader owns happens here, between two events handed out, so a
 * segment is always given back exactly where the application stands.
 *
 * <p>Others change the group too (other readers, the membership thread removing an offline reader, the application
 * resetting it); the membership thread watches for that and calls {@link #signalAttention}, and the consumer calls
 * {@link #handleGroup} at its next turn.
 *
 * <p><b>Threads.</b> Confined to the consumer — the holder of the reader's consumer permit: the thread in
 * {@code readNextEvent}, {@code acquireSegment} or {@code releaseSegment}, or a slice's thread between two events —
 * except {@link #incarnation()}, {@link #needsAttention}, {@link #attentionPending}, {@link #signalAttention} and
 * {@link #replacedBy()}, which any thread may call. Segments out in slices are given back for rebalancing only after
 * the others: their slices end first ({@link SegmentSliceImpl#revoke}).
 */
final class GroupMember {
    private static final Logger LOG = LoggerFactory.getLogger(GroupMember.class);

    private final String scope;
    private final String group;
    private final String readerId;
    private final boolean ackOnCheckpoint;
    private final boolean explicitAck;
    private final Duration ackTimeout;
    private final long offlineTimeoutMillis;
    private final ControllerClient controller;
    private final ReadTokens tokens;
    private final GroupStateClient state;
    private final OwnedSegments segments;
    private final Runnable onReplaced;

    // ---- shared with the membership thread
    private final AtomicBoolean attention = new AtomicBoolean(true);
    private volatile long incarnation = newIncarnation();
    /** The generation of the group the consumer follows (written by the consumer only). */
    private volatile long generation;
    /** Why the reader stopped working if not by close: another reader with its id replaced it. */
    private volatile String replacedBy;

    // ---- consumer-confined
    /** A checkpoint handed out to the application; reported as passed at the next read. */
    private String passedCheckpoint;
    private boolean endOfData;

    /**
     * @param onReplaced run (on the consumer) when another reader with this id replaced this one: the reader closes
     */
    GroupMember(String scope, String group, String readerId, ReaderConfig config, ControllerClient controller,
                ReadTokens tokens, GroupStateClient state, OwnedSegments segments, Runnable onReplaced) {
        this.scope = scope;
        this.group = group;
        this.readerId = readerId;
        this.ackOnCheckpoint = config.ackMode() == ReaderConfig.AckMode.ON_CHECKPOINT;
        this.explicitAck = config.ackMode() == ReaderConfig.AckMode.EXPLICIT;
        this.ackTimeout = config.ackTimeout();
        this.offlineTimeoutMillis = config.offlineTimeout().toMillis();
        this.controller = controller;
        this.tokens = tokens;
        this.state = state;
        this.segments = segments;
        this.onReplaced = Objects.requireNonNull(onReplaced, "onReplaced");
    }

    /** @return the instance of the reader the group knows now */
    long incarnation() {
        return incarnation;
    }

    /** @return why the reader stopped, if another reader with its id replaced it; else null */
    String replacedBy() {
        return replacedBy;
    }

    /** @return true when the group was read to its end and this reader owns nothing */
    boolean endOfData() {
        return endOfData;
    }

    /**
     * Joins the group (as a new member, with no segments: they are taken at the first {@link #handleGroup}, so that
     * readers created together share them evenly from the start). Blocks for the update.
     *
     * @return the state after joining
     */
    ReaderGroupState join() {
        long inc = incarnation;
        ReaderGroupState after = state.update(s -> List.of(new GroupUpdate.AddReader(readerId, inc, ackOnCheckpoint,
                offlineTimeoutMillis, System.currentTimeMillis())));
        generation = after.generation();
        return after;
    }

    /**
     * Leaves the group, giving every owned segment back where the reader stands (in {@code AckMode.EXPLICIT}: at its
     * acknowledged position). Blocks for the update.
     */
    void leave() {
        leave(null);
    }

    /**
     * Leaves the group, giving the owned segments back at {@code position}: a segment not in it where the reader
     * started reading it (its recover point); {@code null} for where the reader stands (its acknowledged positions in
     * {@code AckMode.EXPLICIT}). Blocks for the update.
     */
    void leave(Position position) {
        TreeMap<Segment, Long> offsets = segments.reportedOffsets();
        if (position != null) {
            Map<Segment, Membership.Held> held = segments.held();
            offsets.replaceAll((segment, at) -> position.segments().getOrDefault(segment,
                    held.get(segment).recoverFrom()));
        }
        long inc = incarnation;
        state.update(s -> Membership.leave(s, readerId, inc, offsets));
    }

    /**
     * @return why the reader cannot leave at {@code position} (it lies beyond what the reader handed out in a segment
     *     it owns), or null if it can
     */
    IllegalArgumentException checkLeavingAt(Position position) {
        TreeMap<Segment, Long> offsets = segments.offsets();
        for (Map.Entry<Segment, Long> e : position.segments().entrySet()) {
            Long at = offsets.get(e.getKey());
            if (at != null && e.getValue() > at) {
                return new IllegalArgumentException("reader " + readerId + " cannot close at offset " + e.getValue()
                        + " of segment " + e.getKey() + ": it has handed out events up to offset " + at + " only, and "
                        + "closing there would skip events nobody read; it closed at its own position instead");
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ attention

    /** Any thread. @return true if the consumer should look at the group state now; leaves the request */
    boolean attentionPending() {
        return attention.get();
    }

    /** @return true if the consumer should look at the group state now; clears the request */
    boolean takeAttention() {
        return attention.get() && attention.getAndSet(false);   // a plain read per event; the exchange when set
    }

    /** Any thread: the consumer should look at the group state at its next turn, and wakes if it waits. */
    void signalAttention() {
        attention.set(true);
        segments.wake();
    }

    /**
     * Any thread.
     *
     * @return true if the consumer has something to do in this state ({@link Membership#needsAttention})
     */
    boolean needsAttention(ReaderGroupState s) {
        return Membership.needsAttention(s, readerId, incarnation, generation, segments.view().keySet());
    }

    // ------------------------------------------------------------------ consumer

    /**
     * At the start of every read: a checkpoint handed out at the previous read was processed by the application
     * (it came back), so the reader passes it now, where it stands.
     */
    void resumeAfterCheckpoint() {
        if (passedCheckpoint != null) {
            String name = passedCheckpoint;
            // passed already (by a slice or acquireSegment meanwhile)? then there is nothing to wait for
            if (state.state().pendingFor(readerId).stream().anyMatch(c -> c.name().equals(name))) {
                reportCheckpoint(name, false);
            }
            passedCheckpoint = null;
            attention.set(true);
        }
    }

    /**
     * Acts on the group state as the local copy shows it: rejoins after being removed, follows a reset, matches the
     * owned segments to the state, passes checkpoints (silent ones at once), releases and acquires segments.
     *
     * @param handOut whether a checkpoint may be handed out to the application ({@code readNextEvent} while no slice
     *     is out); if not, every checkpoint is passed at once, where the reader stands
     * @return the name of a checkpoint to hand out to the application, or null
     * @throws IllegalStateException if another reader with this id replaced this one (the reader is closed)
     */
    String handleGroup(boolean handOut) {
        ReaderGroupState s = state.state();
        ReaderInfo me = s.readers().get(readerId);
        if (me == null || me.incarnation() != incarnation) {
            if (me != null) {
                replacedBy = "reader " + readerId + " of group " + scope + "/" + group + " was replaced by another "
                        + "reader with the same id (a restart of this reader?); close this one";
                onReplaced.run();
                throw new IllegalStateException(replacedBy);
            }
            LOG.warn("reader {} of group {}/{} was removed from the group (no heartbeat within its offline timeout, "
                    + "or declared offline); it rejoins, and its segments were handed to the group", readerId, scope,
                    group);
            dropAll();
            incarnation = newIncarnation();
            s = join();
        }
        if (s.generation() != generation) {
            LOG.debug("reader {} of group {}/{} follows a reset to generation {}", readerId, scope, group,
                    s.generation());
            dropAll();
            generation = s.generation();
            passedCheckpoint = null;
        }
        reconcile(s);
        for (List<CheckpointProgress> pending = s.pendingFor(readerId); !pending.isEmpty();
             pending = s.pendingFor(readerId)) {
            CheckpointProgress c = pending.get(0);
            if (!c.silent() && handOut && !segments.hasSlices()) {
                passedCheckpoint = c.name();
                return c.name();
            }
            s = reportCheckpoint(c.name(), true);
            List<CheckpointProgress> after = s.pendingFor(readerId);
            if (!after.isEmpty() && after.get(0).name().equals(c.name())) {
                break;
            }
        }
        if (s.generation() == generation) {
            s = giveBackRevoked(s);
        }
        Rebalance share = Membership.rebalance(s, readerId);
        if (s.generation() == generation && share.release() > 0) {
            s = release(share.release());
            share = Membership.rebalance(s, readerId);
        }
        if (s.generation() == generation && !share.acquire().isEmpty()) {
            s = acquire();
        }
        endOfData = segments.isEmpty() && s.generation() == generation && s.isEndOfData();
        return null;
    }

    /** Makes the owned segments what the state says: stops those taken away, starts those given. */
    private void reconcile(ReaderGroupState s) {
        if (s.generation() != generation) {
            attention.set(true);
            return;
        }
        ReaderInfo me = s.reader(readerId, incarnation).orElse(null);
        SortedMap<Segment, Owned> mine = me == null ? Collections.emptySortedMap() : me.segments();
        segments.reconcile(mine, s.settings().endOffsets());
    }

    /** Stops every owned segment: they are no longer ours. */
    private void dropAll() {
        segments.dropAll();
        endOfData = false;
    }

    private ReaderGroupState acquire() {
        long inc = incarnation;
        long gen = generation;
        ReaderGroupState after = state.update(s -> Membership.acquire(s, readerId, inc, gen));
        reconcile(after);
        return after;
    }

    /**
     * Gives {@code count} segments back at exactly where this reader stands (buffered events are dropped); which
     * ones, {@link Membership#segmentsToRelease} decides among the segments outside slices. If those are too few, the
     * slices of the last segments (in segment order) end ({@link SegmentSliceImpl#revoke}), and their segments go
     * back as soon as they may ({@link #giveBackRevoked}).
     */
    private ReaderGroupState release(int count) {
        boolean strict = ackOnCheckpoint || explicitAck;
        Map<Segment, Membership.Held> held = segments.held();
        Map<Segment, OwnedSegment> view = segments.view();
        Map<Segment, Membership.Held> outside = new TreeMap<>(held);
        outside.keySet().removeIf(segment -> view.get(segment).slice != null);
        SortedMap<Segment, Long> offsets = Membership.segmentsToRelease(outside, count, strict);
        int missing = count - offsets.size();
        if (missing > 0) {
            List<SegmentSliceImpl<?>> out = new ArrayList<>();
            for (OwnedSegment o : view.values()) {
                SegmentSliceImpl<?> slice = o.slice;
                if (slice != null) {
                    if (slice.isRevoked()) {
                        missing--;
                    } else {
                        out.add(slice);
                    }
                }
            }
            out.sort((x, y) -> y.owned.segment.compareTo(x.owned.segment));
            for (SegmentSliceImpl<?> slice : out) {
                if (missing <= 0) {
                    break;
                }
                if (slice.revoke()) {
                    LOG.debug("reader {}: slice of {} ends, the group wants the segment", readerId,
                            slice.owned.segment);
                    missing--;
                    OwnedSegment o = slice.owned;
                    if (o.acks != null) {
                        o.acks.whenAllAcknowledged(this::signalAttention);
                    }
                }
            }
        }
        if (offsets.isEmpty()) {
            return giveBackRevoked(state.state());
        }
        long inc = incarnation;
        long gen = generation;
        ReaderGroupState after = state.update(s -> Membership.release(s, readerId, inc, gen, offsets));
        reconcile(after);
        return after;
    }

    /**
     * Gives back the segments of revoked slices ({@link #release}) that may go now: at once where the slice stands,
     * or (ack on checkpoint, explicit ack) once nothing handed out of them is unprocessed.
     */
    private ReaderGroupState giveBackRevoked(ReaderGroupState s) {
        TreeMap<Segment, Long> offsets = new TreeMap<>();
        Map<Segment, Membership.Held> held = null;
        for (OwnedSegment o : segments.view().values()) {
            SegmentSliceImpl<?> slice = o.slice;
            if (slice == null || !slice.isRevoked() || o.dropped) {
                continue;
            }
            if (held == null) {
                held = segments.held();
            }
            Membership.Held h = held.get(o.segment);
            if (!(ackOnCheckpoint || explicitAck) || h.position() == h.recoverFrom()) {
                offsets.put(o.segment, h.position());
            }
        }
        return offsets.isEmpty() ? s : giveBack(offsets);
    }

    /** Gives these segments back to the group at these offsets, whatever the reader's share. */
    private ReaderGroupState giveBack(SortedMap<Segment, Long> offsets) {
        long inc = incarnation;
        long gen = generation;
        ReaderGroupState after = state.update(s -> Membership.giveBack(s, readerId, inc, gen, offsets));
        reconcile(after);
        return after;
    }

    /**
     * The application released the slice of {@code o}: gives the segment back at {@code offset} (null: where the
     * slice stands as the group is told), or, if the slice read it to its end and that is where it goes back, tells
     * the group it is read. Nothing if the segment is no longer ours. Blocks for the update.
     */
    void giveBackSlice(OwnedSegment o, Long offset) {
        if (o.dropped || segments.get(o.segment) != o) {
            return;
        }
        long handed = o.reader.position();
        long at = offset != null ? offset : OwnedSegments.reported(o);
        if (o.reader.isFinished() && at == handed) {
            completeSegment(o);
        } else {
            giveBack(new TreeMap<>(Map.of(o.segment, at)));
            attention.set(true);
        }
    }

    /**
     * A segment was read to its end: tells the group, with its successors (asked of the controller, unless the
     * group's ending cut ends the segment). Blocks for the calls.
     */
    void completeSegment(OwnedSegment o) {
        Segment segment = o.segment;
        long end = o.reader.position();
        ReaderGroupState after;
        try {
            SortedMap<Segment, SortedSet<Segment>> successors =
                    state.state().settings().endOffsets().containsKey(segment) ? Collections.emptySortedMap()
                            : successorsOf(segment);
            long inc = incarnation;
            long gen = generation;
            after = state.update(s -> Membership.completeSegment(s, readerId, inc, gen, segment, end, successors));
        } catch (RuntimeException e) {
            segments.signal(o);  // try again on the next call
            throw e;
        }
        LOG.debug("reader {} finished segment {} at {}", readerId, segment, end);
        reconcile(after);
        attention.set(true);   // successors may be ours to take
    }

    private SortedMap<Segment, SortedSet<Segment>> successorsOf(Segment segment) {
        SegmentSuccessors successors = controller.successors(segment);
        tokens.forStream(segment.scopedStream()).offer(successors.delegationToken());
        TreeMap<Segment, SortedSet<Segment>> out = new TreeMap<>();
        for (Map.Entry<SegmentWithRange, List<Segment>> e : successors.successors().entrySet()) {
            out.put(e.getKey().segment(), new TreeSet<>(e.getValue()));
        }
        return out;
    }

    /**
     * Passes checkpoint {@code name} where the reader stands; its segments recover from there from now on. In
     * {@code AckMode.EXPLICIT} it passes at the acknowledged positions; for a checkpoint handed out to the application
     * ({@code silent} false) it first waits up to the ack timeout until everything handed out is acknowledged.
     *
     * @throws DeadlineExceededException if the acknowledgements did not come in time (the checkpoint is not passed)
     */
    private ReaderGroupState reportCheckpoint(String name, boolean silent) {
        if (explicitAck && !silent) {
            awaitAcknowledged(name);
        }
        TreeMap<Segment, Long> offsets = explicitAck ? segments.reportedOffsets() : segments.offsets();
        long inc = incarnation;
        long gen = generation;
        segments.checkpointPassed(offsets);
        AtomicBoolean wasInProgress = new AtomicBoolean();
        ReaderGroupState after = state.update(s -> {
            wasInProgress.set(s.checkpointInProgress(name).isPresent());
            return Membership.passCheckpoint(s, readerId, inc, gen, name, offsets);
        });
        if (wasInProgress.get()) {
            after.completedCheckpoint(name).ifPresent(done ->
                    RetentionReports.checkpointCompleted(controller, scope, group, name, done.cuts()));
        }
        return after;
    }

    /** Waits until every event handed out is acknowledged, up to the ack timeout. */
    private void awaitAcknowledged(String checkpoint) {
        Deadline deadline = Deadline.after(ackTimeout);
        List<String> missing = new ArrayList<>();
        for (OwnedSegment o : segments.view().values()) {
            long target = o.reader.position();
            if (!o.acks.await(target, deadline)) {
                missing.add(o.acks.unacknowledgedBefore(target));
            }
        }
        if (!missing.isEmpty()) {
            throw new DeadlineExceededException("reader " + readerId + " of group " + scope + "/" + group
                    + " cannot pass checkpoint " + checkpoint + ": the events it handed out before it were not all "
                    + "acknowledged within " + ackTimeout.toMillis() + " ms (ReaderConfig.ackTimeout): "
                    + String.join("; ", missing) + " are unacknowledged. Acknowledge them (reader.ack) and call "
                    + "readNextEvent again to pass it");
        }
    }

    private static long newIncarnation() {
        long v;
        do {
            v = ThreadLocalRandom.current().nextLong();
        } while (v == GroupUpdate.RemoveReader.ANY_INCARNATION);
        return v;
    }
}
