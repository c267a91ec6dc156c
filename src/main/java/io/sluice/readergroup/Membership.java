package io.sluice.readergroup;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import io.sluice.readergroup.ReaderGroupState.CheckpointProgress;
import io.sluice.readergroup.ReaderGroupState.ReaderInfo;
import io.sluice.stream.Segment;

/**
 * The decisions a reader takes about its membership of a group, as pure functions of the group's state, the reader
 * and the time: how many segments it should hold, which to acquire and which to give back, whether another reader is
 * offline, whether it leads the group, when an automatic checkpoint is due, and the updates that carry each decision
 * out. No threads, no I/O, no clock: the caller passes the time in.
 *
 * <p><b>Update generators.</b> The methods that return {@code List<GroupUpdate>} are the generators a reader hands
 * to the state synchronizer's optimistic update: given the latest state, they return the update that carries the
 * decision out, or nothing when it no longer fits (the reader was removed or replaced, the group was reset to
 * another generation, the segments moved meanwhile). The synchronizer calls them again on a newer state whenever
 * someone else's update won the race.
 *
 * <p><b>Fair share.</b> The readable segments (owned plus unassigned) are shared as evenly as they divide: no reader
 * holds more than the ceiling of segments over readers, and while nothing is unassigned a reader above the floor
 * gives one back when another holds less than the floor. A reader gives back before it takes
 * ({@link #rebalance}), and takes nothing while it has a checkpoint to pass, so that a checkpoint records a
 * consistent cut.
 */
public final class Membership {

    private Membership() {
    }

    // ------------------------------------------------------------------ share

    /**
     * @return how many unassigned segments {@code reader} should take now: up to its fair share (the ceiling of
     *     readable segments over readers), none while it has a checkpoint to pass or is not in the group
     */
    public static int acquireCount(ReaderGroupState s, String reader) {
        ReaderInfo r = s.readers().get(reader);
        if (r == null || s.unassigned().isEmpty() || !s.pendingFor(reader).isEmpty()) {
            return 0;
        }
        int total = s.assignableCount();
        int max = (total + s.readers().size() - 1) / s.readers().size();
        return Math.max(0, Math.min(s.unassigned().size(), max - r.segments().size()));
    }

    /**
     * @return how many segments {@code reader} should give back: those beyond its fair share, or one when it holds
     *     more than the floor of the share, nothing is unassigned and another reader holds less than that floor
     */
    public static int releaseCount(ReaderGroupState s, String reader) {
        ReaderInfo r = s.readers().get(reader);
        if (r == null) {
            return 0;
        }
        int total = s.assignableCount();
        int n = s.readers().size();
        int max = (total + n - 1) / n;
        int min = total / n;
        int mine = r.segments().size();
        if (mine > max) {
            return mine - max;
        }
        if (mine > min && s.unassigned().isEmpty()) {
            for (ReaderInfo other : s.readers().values()) {
                if (other.segments().size() < min) {
                    return 1;
                }
            }
        }
        return 0;
    }

    /** @return the unassigned segments {@code reader} should take now: the first {@link #acquireCount} in order */
    public static SortedSet<Segment> segmentsToAcquire(ReaderGroupState s, String reader) {
        int n = acquireCount(s, reader);
        TreeSet<Segment> pick = new TreeSet<>();
        for (Segment segment : s.unassigned().keySet()) {
            if (pick.size() >= n) {
                break;
            }
            pick.add(segment);
        }
        return Collections.unmodifiableSortedSet(pick);
    }

    /**
     * What a reader should do about its share, giving back first: a reader that should release takes nothing in the
     * same step (it decides again on the state after its release).
     *
     * @param release how many segments to give back (see {@link #segmentsToRelease} for which)
     * @param acquire the unassigned segments to take; empty when {@code release > 0}
     */
    public record Rebalance(int release, SortedSet<Segment> acquire) {
        /** Validates and freezes. */
        public Rebalance {
            if (release < 0) {
                throw new IllegalArgumentException("release must not be negative: " + release);
            }
            acquire = Collections.unmodifiableSortedSet(new TreeSet<>(acquire));
            if (release > 0 && !acquire.isEmpty()) {
                throw new IllegalArgumentException("a reader releases before it acquires, not both at once: release "
                        + release + ", acquire " + acquire);
            }
        }

        /** @return true if there is nothing to do */
        public boolean balanced() {
            return release == 0 && acquire.isEmpty();
        }
    }

    /** @return what {@code reader} should do about its share in this state, release first */
    public static Rebalance rebalance(ReaderGroupState s, String reader) {
        int release = releaseCount(s, reader);
        return release > 0 ? new Rebalance(release, Collections.emptySortedSet())
                : new Rebalance(0, segmentsToAcquire(s, reader));
    }

    /**
     * Where a reader stands in a segment it holds.
     *
     * @param position the offset of the next event it would hand out
     * @param recoverFrom where it stood when it acquired the segment or last passed a checkpoint
     */
    public record Held(long position, long recoverFrom) {
    }

    /**
     * Chooses the segments to give back: the last ones in segment order. A reader that counts events as processed
     * only at checkpoints gives back only segments it handed nothing out of since it acquired them or passed a
     * checkpoint ({@code position == recoverFrom}), so that nothing unprocessed is handed over; it may so give back
     * fewer than asked, or none.
     *
     * @param held the segments the reader holds
     * @param count how many to give back
     * @param ackOnCheckpoint whether the reader counts events as processed only at checkpoints
     * @return the segments to give back, each at its position
     */
    public static SortedMap<Segment, Long> segmentsToRelease(Map<Segment, Held> held, int count,
                                                              boolean ackOnCheckpoint) {
        List<Map.Entry<Segment, Held>> candidates = new ArrayList<>(held.entrySet());
        if (ackOnCheckpoint) {
            candidates.removeIf(e -> e.getValue().position() != e.getValue().recoverFrom());
        }
        candidates.sort(Map.Entry.<Segment, Held>comparingByKey(Comparator.reverseOrder()));
        TreeMap<Segment, Long> offsets = new TreeMap<>();
        for (Map.Entry<Segment, Held> e : candidates.subList(0, Math.max(0, Math.min(count, candidates.size())))) {
            offsets.put(e.getKey(), e.getValue().position());
        }
        return Collections.unmodifiableSortedMap(offsets);
    }

    // ------------------------------------------------------------------ what a reader acts on

    /**
     * Whether a reader has something to do about the group in this state: it was removed or replaced, the group was
     * reset, it has a checkpoint to pass, what it owns differs from what it reads, its share is off, or everything
     * was read.
     *
     * @param incarnation the reader's instance
     * @param generation the generation the reader follows
     * @param reading the segments it reads now
     */
    public static boolean needsAttention(ReaderGroupState s, String reader, long incarnation, long generation,
                                         Set<Segment> reading) {
        ReaderInfo me = s.readers().get(reader);
        if (me == null || me.incarnation() != incarnation || s.generation() != generation) {
            return true;
        }
        if (!s.pendingFor(reader).isEmpty() || !me.segments().keySet().equals(reading)) {
            return true;
        }
        return !rebalance(s, reader).balanced() || s.isEndOfData();
    }

    /** @return true if {@code reader} leads the group: it is the first online reader by id */
    public static boolean isLeader(ReaderGroupState s, String reader) {
        return !s.readers().isEmpty() && s.readers().firstKey().equals(reader);
    }

    /**
     * @return true if an automatic checkpoint should start now: they are enabled, none is in progress, and the
     *     interval passed since the last one started (on the clocks of their creators)
     */
    public static boolean automaticCheckpointDue(ReaderGroupState s, long nowMillis) {
        long interval = s.settings().checkpointIntervalMillis();
        return interval >= 0 && s.checkpoints().isEmpty() && nowMillis - s.lastCheckpointMillis() >= interval;
    }

    // ------------------------------------------------------------------ liveness

    /**
     * A reader's heartbeat as this process last saw it, and since when (on this process's clock) it has not changed.
     * Liveness is judged by observed change, so the readers' clocks need not agree.
     *
     * @param incarnation the instance seen
     * @param heartbeat its heartbeat value
     * @param sinceNanos when that value was first seen ({@link System#nanoTime} scale)
     */
    public record Sighting(long incarnation, long heartbeat, long sinceNanos) {
    }

    /**
     * One look at the other readers.
     *
     * @param sightings what to remember until the next look: every other online reader, but those offline
     * @param offline readers whose heartbeat did not change for longer than their offline timeout, as last seen
     */
    public record Liveness(SortedMap<String, Sighting> sightings, SortedMap<String, Sighting> offline) {
        /** Freezes. */
        public Liveness {
            sightings = Collections.unmodifiableSortedMap(new TreeMap<>(sightings));
            offline = Collections.unmodifiableSortedMap(new TreeMap<>(offline));
        }
    }

    /**
     * Looks at the other readers' heartbeats: a reader seen for the first time, as another incarnation, or with
     * another heartbeat is alive as of now; one whose heartbeat stayed the same for longer than its offline timeout
     * is offline.
     *
     * @param self the reader looking, never judged
     * @param before the sightings of the previous look (empty at first)
     * @param nowNanos this process's clock now ({@link System#nanoTime} scale)
     */
    public static Liveness watch(ReaderGroupState s, String self, Map<String, Sighting> before, long nowNanos) {
        TreeMap<String, Sighting> seen = new TreeMap<>();
        TreeMap<String, Sighting> offline = new TreeMap<>();
        for (Map.Entry<String, ReaderInfo> e : s.readers().entrySet()) {
            String id = e.getKey();
            ReaderInfo r = e.getValue();
            if (id.equals(self)) {
                continue;
            }
            Sighting last = before.get(id);
            if (last == null || last.incarnation() != r.incarnation() || last.heartbeat() != r.heartbeat()) {
                seen.put(id, new Sighting(r.incarnation(), r.heartbeat(), nowNanos));
            } else if (nowNanos - last.sinceNanos() > TimeUnit.MILLISECONDS.toNanos(r.offlineTimeoutMillis())) {
                offline.put(id, last);
            } else {
                seen.put(id, last);
            }
        }
        return new Liveness(seen, offline);
    }

    // ------------------------------------------------------------------ update generators

    /**
     * @return the removal of an offline reader, if it is still there as it was seen (same incarnation, same
     *     heartbeat): its segments go back to the group per its ack mode
     */
    public static List<GroupUpdate> removeOffline(ReaderGroupState s, String reader, Sighting seen) {
        ReaderInfo current = s.readers().get(reader);
        if (current == null || current.incarnation() != seen.incarnation()
                || current.heartbeat() != seen.heartbeat()) {
            return List.of();
        }
        return List.of(new GroupUpdate.RemoveReader(reader, seen.incarnation(), Collections.emptySortedMap()));
    }

    /** @return a heartbeat of the reader with the offsets that moved, if it is in the group as this incarnation */
    public static List<GroupUpdate> heartbeat(ReaderGroupState s, String reader, long incarnation, long nowMillis,
                                              SortedMap<Segment, Long> moved) {
        return s.reader(reader, incarnation).isEmpty() ? List.of()
                : List.of(new GroupUpdate.Heartbeat(reader, incarnation, nowMillis, moved));
    }

    /** @return the reader's leaving with its segments at these offsets, if it is in the group as this incarnation */
    public static List<GroupUpdate> leave(ReaderGroupState s, String reader, long incarnation,
                                          SortedMap<Segment, Long> offsets) {
        return s.reader(reader, incarnation).isPresent()
                ? List.of(new GroupUpdate.RemoveReader(reader, incarnation, offsets)) : List.of();
    }

    /** @return the reader's taking of {@link #segmentsToAcquire}, if it is in this generation and has any to take */
    public static List<GroupUpdate> acquire(ReaderGroupState s, String reader, long incarnation, long generation) {
        if (s.reader(reader, incarnation).isEmpty() || s.generation() != generation) {
            return List.of();
        }
        SortedSet<Segment> pick = segmentsToAcquire(s, reader);
        return pick.isEmpty() ? List.of() : List.of(new GroupUpdate.Acquire(reader, incarnation, pick));
    }

    /**
     * @return the reader's giving back of these segments at these offsets, if it is in this generation, still owns
     *     them all and should still release
     */
    public static List<GroupUpdate> release(ReaderGroupState s, String reader, long incarnation, long generation,
                                            SortedMap<Segment, Long> offsets) {
        ReaderInfo me = s.reader(reader, incarnation).orElse(null);
        if (me == null || s.generation() != generation || !me.segments().keySet().containsAll(offsets.keySet())
                || releaseCount(s, reader) <= 0) {
            return List.of();
        }
        return List.of(new GroupUpdate.Release(reader, incarnation, offsets));
    }

    /**
     * @return the reader's giving back of these segments at these offsets whatever its share (the application gave
     *     them back: a released segment slice), if it is in this generation and still owns them all
     */
    public static List<GroupUpdate> giveBack(ReaderGroupState s, String reader, long incarnation, long generation,
                                             SortedMap<Segment, Long> offsets) {
        ReaderInfo me = s.reader(reader, incarnation).orElse(null);
        if (me == null || s.generation() != generation || offsets.isEmpty()
                || !me.segments().keySet().containsAll(offsets.keySet())) {
            return List.of();
        }
        return List.of(new GroupUpdate.Release(reader, incarnation, offsets));
    }

    /**
     * @param successors each segment that follows {@code segment} → all of its predecessors; empty when nothing does
     * @return the news that the reader read {@code segment} to {@code endOffset}, if it is in this generation and
     *     still owns the segment
     */
    public static List<GroupUpdate> completeSegment(ReaderGroupState s, String reader, long incarnation,
                                                    long generation, Segment segment, long endOffset,
                                                    SortedMap<Segment, SortedSet<Segment>> successors) {
        ReaderInfo me = s.reader(reader, incarnation).orElse(null);
        if (me == null || s.generation() != generation || !me.segments().containsKey(segment)) {
            return List.of();
        }
        return List.of(new GroupUpdate.SegmentCompleted(reader, incarnation, segment, endOffset, successors));
    }

    /**
     * @return the reader's passing of checkpoint {@code name} at these offsets, if it is in this generation and that
     *     checkpoint is the oldest it has to pass
     */
    public static List<GroupUpdate> passCheckpoint(ReaderGroupState s, String reader, long incarnation,
                                                   long generation, String name, SortedMap<Segment, Long> offsets) {
        if (s.reader(reader, incarnation).isEmpty() || s.generation() != generation) {
            return List.of();
        }
        List<CheckpointProgress> pending = s.pendingFor(reader);
        if (pending.isEmpty() || !pending.get(0).name().equals(name)) {
            return List.of();
        }
        return List.of(new GroupUpdate.CheckpointReached(reader, incarnation, name, offsets));
    }

    /** @return the start of a silent automatic checkpoint named {@code name}, if one is due */
    public static List<GroupUpdate> startAutomaticCheckpoint(ReaderGroupState s, String name, long nowMillis) {
        return automaticCheckpointDue(s, nowMillis) ? List.of(new GroupUpdate.CreateCheckpoint(name, true, nowMillis))
                : List.of();
    }
}
