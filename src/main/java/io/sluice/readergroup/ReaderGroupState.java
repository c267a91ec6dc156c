package io.sluice.readergroup;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.StreamCut;

/**
 * The shared state of a reader group, kept in the group's state stream {@code scope/_RG<group>} by a
 * {@link io.sluice.segment.StateSynchronizer} and changed only by {@link GroupUpdate}s ({@link #apply}). Sluice's
 * own format ({@link GroupStateCodec}): Pravega's Java client cannot read it, and Sluice cannot read a group the Java
 * client created.
 *
 * <p>Where every segment of the group is, at any time, exactly one of:
 * <ul>
 *   <li>owned by an online reader ({@link ReaderInfo#segments()}, with the offset it last reported);</li>
 *   <li>{@link #unassigned} at the offset where reading resumes;</li>
 *   <li>{@link #ended}: read to its end, with successors that wait for other predecessors ({@link #future});</li>
 *   <li>{@link #finished}: read to its end with nothing after it (sealed stream, or the group's ending cut);</li>
 *   <li>in the {@link #future}: a successor waiting until all of its predecessors are read.</li>
 * </ul>
 * A successor becomes unassigned (at offset 0) only once every predecessor ended, so routing keys stay in order
 * across scaling.
 *
 * <p><b>Checkpoints.</b> A checkpoint records one offset per segment: segments not owned by a reader when it starts
 * (unassigned, ended, finished) at creation; owned segments when their reader passes it, releases them, completes
 * them or leaves. A reader with a checkpoint to pass acquires nothing, so a segment moves only from readers that
 * have not passed it (whose offsets are recorded on the way) to readers that have: the positions form a consistent
 * cut of what the readers handed out before passing.
 *
 * <p>Immutable and thread-safe.
 *
 * @param settings what the group reads
 * @param generation bumped by every {@link GroupUpdate.Reset}
 * @param readers the online readers by id
 * @param unassigned segments nobody owns, with the offset where reading resumes
 * @param future successors not yet readable → all of their predecessors
 * @param ended segments read to their end whose successors wait for other predecessors → end offset
 * @param finished segments read to their end with nothing after them → end offset
 * @param checkpoints checkpoints in progress, oldest first
 * @param completed the last {@value #COMPLETED_KEPT} completed checkpoints, oldest first
 * @param lastCheckpointMillis creation time (creator's clock) of the latest checkpoint, or the group's creation
 */
public record ReaderGroupState(Settings settings, long generation, SortedMap<String, ReaderInfo> readers,
                               SortedMap<Segment, Long> unassigned, SortedMap<Segment, SortedSet<Segment>> future,
                               SortedMap<Segment, Long> ended, SortedMap<Segment, Long> finished,
                               List<CheckpointProgress> checkpoints, List<CompletedCheckpoint> completed,
                               long lastCheckpointMillis) {

    /** Completed checkpoints the state remembers. */
    public static final int COMPLETED_KEPT = 10;

    /**
     * What the group reads, fixed when it is created.
     *
     * @param start each stream and its starting cut, resolved to concrete offsets
     * @param endOffsets offsets where reading stops, for the segments of the ending cuts
     * @param refreshMillis the configured group refresh interval (heartbeats go out this often, at least every 100 ms)
     * @param checkpointIntervalMillis automatic checkpoint interval; negative when disabled
     * @param maxOutstandingCheckpoints checkpoints that may be in progress at once
     */
    public record Settings(SortedMap<ScopedStream, StreamCut> start, SortedMap<Segment, Long> endOffsets,
                           long refreshMillis, long checkpointIntervalMillis, int maxOutstandingCheckpoints) {
        /** Checks and freezes the components. */
        public Settings {
            start = Collections.unmodifiableSortedMap(new TreeMap<>(start));
            endOffsets = Collections.unmodifiableSortedMap(new TreeMap<>(endOffsets));
            if (maxOutstandingCheckpoints < 1) {
                throw new IllegalArgumentException("maxOutstandingCheckpoints must be positive: "
                        + maxOutstandingCheckpoints);
            }
        }
    }

    /**
     * An online reader.
     *
     * @param incarnation names this instance of the reader (a restarted reader with the same id has another)
     * @param ackOnCheckpoint whether its segments resume from {@link Owned#recoverFrom} when it times out
     * @param offlineTimeoutMillis how long others wait for a change of {@link #heartbeat} before removing it
     * @param heartbeat the reader's clock at its last heartbeat; others only watch it change
     * @param segments what it owns
     */
    public record ReaderInfo(long incarnation, boolean ackOnCheckpoint, long offlineTimeoutMillis, long heartbeat,
                             SortedMap<Segment, Owned> segments) {
        /** Freezes the segments. */
        public ReaderInfo {
            segments = Collections.unmodifiableSortedMap(new TreeMap<>(segments));
        }

        ReaderInfo withSegments(SortedMap<Segment, Owned> newSegments) {
            return new ReaderInfo(incarnation, ackOnCheckpoint, offlineTimeoutMillis, heartbeat, newSegments);
        }
    }

    /**
     * A segment a reader owns.
     *
     * @param offset where the reader stood when it last reported
     * @param recoverFrom where it stood at its last checkpoint (or where it acquired the segment, if later)
     */
    public record Owned(long offset, long recoverFrom) {
    }

    /**
     * A checkpoint in progress.
     *
     * @param name its name
     * @param silent readers pass it without handing out a checkpoint read (automatic checkpoints)
     * @param remaining readers that have not passed it yet
     * @param positions offsets recorded so far
     */
    public record CheckpointProgress(String name, boolean silent, SortedSet<String> remaining,
                                     SortedMap<Segment, Long> positions) {
        /** Freezes the components. */
        public CheckpointProgress {
            remaining = Collections.unmodifiableSortedSet(new TreeSet<>(remaining));
            positions = Collections.unmodifiableSortedMap(new TreeMap<>(positions));
        }
    }

    /**
     * A completed checkpoint: a consistent offset for every segment of the group.
     *
     * @param name its name
     * @param silent whether it was an automatic checkpoint
     * @param positions an offset for every segment of the group
     */
    public record CompletedCheckpoint(String name, boolean silent, SortedMap<Segment, Long> positions) {
        /** Freezes the positions. */
        public CompletedCheckpoint {
            positions = Collections.unmodifiableSortedMap(new TreeMap<>(positions));
        }

        /** @return the positions as one stream cut per stream */
        public SortedMap<ScopedStream, StreamCut> cuts() {
            return byStream(positions);
        }
    }

    /**
     * The canonical constructor trusts its arguments to be unmodifiable and never changed (updates share what they do
     * not change with the state before); use {@link #frozen} to build a state from collections of your own.
     */
    public ReaderGroupState {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(readers, "readers");
        Objects.requireNonNull(unassigned, "unassigned");
        Objects.requireNonNull(future, "future");
        Objects.requireNonNull(ended, "ended");
        Objects.requireNonNull(finished, "finished");
        Objects.requireNonNull(checkpoints, "checkpoints");
        Objects.requireNonNull(completed, "completed");
    }

    /** @return a state of unmodifiable copies of these collections */
    public static ReaderGroupState frozen(Settings settings, long generation, Map<String, ReaderInfo> readers,
                                          Map<Segment, Long> unassigned,
                                          Map<Segment, ? extends SortedSet<Segment>> future,
                                          Map<Segment, Long> ended, Map<Segment, Long> finished,
                                          List<CheckpointProgress> checkpoints, List<CompletedCheckpoint> completed,
                                          long lastCheckpointMillis) {
        TreeMap<Segment, SortedSet<Segment>> f = new TreeMap<>();
        future.forEach((s, p) -> f.put(s, Collections.unmodifiableSortedSet(new TreeSet<>(p))));
        return new ReaderGroupState(settings, generation, freeze(readers), freeze(unassigned),
                Collections.unmodifiableSortedMap(f), freeze(ended), freeze(finished), List.copyOf(checkpoints),
                List.copyOf(completed), lastCheckpointMillis);
    }

    private static <K, V> SortedMap<K, V> freeze(Map<K, V> map) {
        return Collections.unmodifiableSortedMap(new TreeMap<>(map));
    }

    /**
     * @param settings what the group reads
     * @param nowMillis the creator's clock (the first automatic checkpoint comes one interval later)
     * @return a new group: every segment of the starting cuts unassigned, no readers
     */
    public static ReaderGroupState initial(Settings settings, long nowMillis) {
        TreeMap<Segment, Long> start = new TreeMap<>();
        settings.start().values().forEach(cut -> start.putAll(cut.positions()));
        return frozen(settings, 0, Map.of(), start, Map.of(), Map.of(), Map.of(), List.of(), List.of(), nowMillis);
    }

    // ------------------------------------------------------------------ queries

    /** @return the reader if it is online as this incarnation */
    public Optional<ReaderInfo> reader(String id, long incarnation) {
        ReaderInfo r = readers.get(id);
        return r != null && r.incarnation() == incarnation ? Optional.of(r) : Optional.empty();
    }

    /** @return the checkpoints in progress that {@code reader} has not passed, oldest first */
    public List<CheckpointProgress> pendingFor(String reader) {
        List<CheckpointProgress> out = new ArrayList<>(0);
        for (CheckpointProgress c : checkpoints) {
            if (c.remaining().contains(reader)) {
                out.add(c);
            }
        }
        return out;
    }

    /** @return the segments owned by readers plus the unassigned ones: what is readable now */
    public int assignableCount() {
        int n = unassigned.size();
        for (ReaderInfo r : readers.values()) {
            n += r.segments().size();
        }
        return n;
    }

    /** @return true when every segment was read to its end and nothing waits: nothing more will ever be read */
    public boolean isEndOfData() {
        if (!unassigned.isEmpty() || !future.isEmpty()) {
            return false;
        }
        for (ReaderInfo r : readers.values()) {
            if (!r.segments().isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** @return the completed checkpoint of this name, if the state still remembers it */
    public Optional<CompletedCheckpoint> completedCheckpoint(String name) {
        for (CompletedCheckpoint c : completed) {
            if (c.name().equals(name)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /** @return the checkpoint in progress of this name */
    public Optional<CheckpointProgress> checkpointInProgress(String name) {
        for (CheckpointProgress c : checkpoints) {
            if (c.name().equals(name)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /**
     * @return where the group stands: every segment's offset as last reported (ended and finished ones at their end)
     */
    public SortedMap<Segment, Long> positions() {
        TreeMap<Segment, Long> all = new TreeMap<>(unassigned);
        readers.values().forEach(r -> r.segments().forEach((s, o) -> all.put(s, o.offset())));
        all.putAll(ended);
        all.putAll(finished);
        return all;
    }

    /** Groups segment offsets into one stream cut per stream. */
    public static SortedMap<ScopedStream, StreamCut> byStream(Map<Segment, Long> positions) {
        TreeMap<ScopedStream, TreeMap<Segment, Long>> grouped = new TreeMap<>();
        positions.forEach((s, o) -> grouped.computeIfAbsent(s.scopedStream(), k -> new TreeMap<>()).put(s, o));
        TreeMap<ScopedStream, StreamCut> cuts = new TreeMap<>();
        grouped.forEach((stream, p) -> cuts.put(stream, StreamCut.of(p)));
        return cuts;
    }

    // ------------------------------------------------------------------ updates

    /**
     * @param state the state before (may be null only before the first full state, when updates have nothing to
     *     apply to — the synchronizer skips them)
     * @param update the change
     * @return the state after it
     */
    public static ReaderGroupState apply(ReaderGroupState state, GroupUpdate update) {
        Builder b = new Builder(state);
        switch (update) {
            case GroupUpdate.AddReader u -> {
                if (state.readers.containsKey(u.reader())) {
                    b.removeReader(u.reader(), Map.of());
                }
                b.readers().put(u.reader(), new ReaderInfo(u.incarnation(), u.ackOnCheckpoint(),
                        u.offlineTimeoutMillis(), u.nowMillis(), new TreeMap<>()));
            }
            case GroupUpdate.RemoveReader u -> {
                ReaderInfo r = state.readers.get(u.reader());
                if (r != null && (u.incarnation() == GroupUpdate.RemoveReader.ANY_INCARNATION
                        || r.incarnation() == u.incarnation())) {
                    b.removeReader(u.reader(), u.positions());
                }
            }
            case GroupUpdate.Heartbeat u -> state.reader(u.reader(), u.incarnation()).ifPresent(r -> {
                TreeMap<Segment, Owned> owned = new TreeMap<>(r.segments());
                u.offsets().forEach((s, offset) -> owned.computeIfPresent(s,
                        (k, o) -> new Owned(Math.max(o.offset(), offset), o.recoverFrom())));
                b.readers().put(u.reader(), new ReaderInfo(r.incarnation(), r.ackOnCheckpoint(),
                        r.offlineTimeoutMillis(), u.nowMillis(), owned));
            });
            case GroupUpdate.Acquire u -> state.reader(u.reader(), u.incarnation()).ifPresent(r -> {
                if (!state.pendingFor(u.reader()).isEmpty()) {
                    return;
                }
                TreeMap<Segment, Owned> owned = new TreeMap<>(r.segments());
                for (Segment s : u.segments()) {
                    Long offset = state.unassigned.get(s);
                    if (offset != null) {
                        b.unassigned().remove(s);
                        owned.put(s, new Owned(offset, offset));
                    }
                }
                b.readers().put(u.reader(), r.withSegments(owned));
            });
            case GroupUpdate.Release u -> state.reader(u.reader(), u.incarnation()).ifPresent(r -> {
                TreeMap<Segment, Owned> owned = new TreeMap<>(r.segments());
                TreeMap<Segment, Long> released = new TreeMap<>();
                u.offsets().forEach((s, offset) -> {
                    if (owned.remove(s) != null) {
                        released.put(s, offset);
                    }
                });
                b.unassigned().putAll(released);
                b.readers().put(u.reader(), r.withSegments(owned));
                b.recordForPending(u.reader(), released);
            });
            case GroupUpdate.SegmentCompleted u -> state.reader(u.reader(), u.incarnation()).ifPresent(r -> {
                if (!r.segments().containsKey(u.segment())) {
                    return;
                }
                TreeMap<Segment, Owned> owned = new TreeMap<>(r.segments());
                owned.remove(u.segment());
                b.readers().put(u.reader(), r.withSegments(owned));
                b.recordForPending(u.reader(), Map.of(u.segment(), u.endOffset()));
                b.complete(u.segment(), u.endOffset(), u.successors());
            });
            case GroupUpdate.CreateCheckpoint u -> {
                boolean known = state.checkpointInProgress(u.name()).isPresent()
                        || state.completedCheckpoint(u.name()).isPresent();
                if (!known && state.checkpoints.size() < state.settings.maxOutstandingCheckpoints()) {
                    TreeMap<Segment, Long> positions = new TreeMap<>(state.unassigned);
                    positions.putAll(state.ended);
                    positions.putAll(state.finished);
                    b.checkpoints().add(new CheckpointProgress(u.name(), u.silent(),
                            new TreeSet<>(state.readers.keySet()), positions));
                    b.lastCheckpointMillis = Math.max(state.lastCheckpointMillis, u.nowMillis());
                }
            }
            case GroupUpdate.CheckpointReached u -> state.reader(u.reader(), u.incarnation()).ifPresent(r -> {
                List<CheckpointProgress> pending = state.pendingFor(u.reader());
                if (pending.isEmpty() || !pending.get(0).name().equals(u.name())) {
                    return;
                }
                TreeMap<Segment, Owned> owned = new TreeMap<>();
                TreeMap<Segment, Long> at = new TreeMap<>();
                r.segments().forEach((s, o) -> {
                    long offset = u.offsets().getOrDefault(s, o.offset());
                    owned.put(s, new Owned(offset, offset));
                    at.put(s, offset);
                });
                b.readers().put(u.reader(), r.withSegments(owned));
                b.passCheckpoint(u.name(), u.reader(), at);
            });
            case GroupUpdate.Reset u -> {
                b.generation = state.generation + 1;
                state.readers.forEach((id, r) -> b.readers().put(id, r.withSegments(new TreeMap<>())));
                b.unassigned = new TreeMap<>(u.positions());
                b.future = new TreeMap<>();
                b.ended = new TreeMap<>();
                b.finished = new TreeMap<>();
                b.checkpoints = new ArrayList<>();
            }
        }
        b.completeCheckpoints();
        return b.build();
    }

    /** Copies what an update changes, on first change; everything else is shared with the state before. */
    private static final class Builder {
        private final ReaderGroupState from;
        long generation;
        long lastCheckpointMillis;
        private TreeMap<String, ReaderInfo> readers;
        TreeMap<Segment, Long> unassigned;
        TreeMap<Segment, SortedSet<Segment>> future;
        TreeMap<Segment, Long> ended;
        TreeMap<Segment, Long> finished;
        ArrayList<CheckpointProgress> checkpoints;
        private ArrayList<CompletedCheckpoint> completed;

        Builder(ReaderGroupState from) {
            this.from = Objects.requireNonNull(from, "state");
            this.generation = from.generation;
            this.lastCheckpointMillis = from.lastCheckpointMillis;
        }

        TreeMap<String, ReaderInfo> readers() {
            if (readers == null) {
                readers = new TreeMap<>(from.readers);
            }
            return readers;
        }

        TreeMap<Segment, Long> unassigned() {
            if (unassigned == null) {
                unassigned = new TreeMap<>(from.unassigned);
            }
            return unassigned;
        }

        TreeMap<Segment, SortedSet<Segment>> future() {
            if (future == null) {
                future = new TreeMap<>(from.future);
            }
            return future;
        }

        TreeMap<Segment, Long> ended() {
            if (ended == null) {
                ended = new TreeMap<>(from.ended);
            }
            return ended;
        }

        TreeMap<Segment, Long> finished() {
            if (finished == null) {
                finished = new TreeMap<>(from.finished);
            }
            return finished;
        }

        ArrayList<CheckpointProgress> checkpoints() {
            if (checkpoints == null) {
                checkpoints = new ArrayList<>(from.checkpoints);
            }
            return checkpoints;
        }

        /** Removes a reader; its segments go back at {@code positions}, else per its ack mode. */
        void removeReader(String id, Map<Segment, Long> positions) {
            ReaderInfo r = readers().remove(id);
            TreeMap<Segment, Long> returned = new TreeMap<>();
            r.segments().forEach((s, o) -> {
                Long given = positions.get(s);
                returned.put(s, given != null ? given : r.ackOnCheckpoint() ? o.recoverFrom() : o.offset());
            });
            unassigned().putAll(returned);
            List<CheckpointProgress> cs = checkpoints();
            for (int i = 0; i < cs.size(); i++) {
                CheckpointProgress c = cs.get(i);
                if (c.remaining().contains(id)) {
                    TreeSet<String> remaining = new TreeSet<>(c.remaining());
                    remaining.remove(id);
                    TreeMap<Segment, Long> p = new TreeMap<>(c.positions());
                    p.putAll(returned);
                    cs.set(i, new CheckpointProgress(c.name(), c.silent(), remaining, p));
                }
            }
        }

        /** Records offsets in every checkpoint {@code reader} has not passed yet. */
        void recordForPending(String reader, Map<Segment, Long> offsets) {
            if (offsets.isEmpty()) {
                return;
            }
            List<CheckpointProgress> cs = checkpoints();
            for (int i = 0; i < cs.size(); i++) {
                CheckpointProgress c = cs.get(i);
                if (c.remaining().contains(reader)) {
                    TreeMap<Segment, Long> p = new TreeMap<>(c.positions());
                    p.putAll(offsets);
                    cs.set(i, new CheckpointProgress(c.name(), c.silent(), c.remaining(), p));
                }
            }
        }

        void passCheckpoint(String name, String reader, Map<Segment, Long> offsets) {
            List<CheckpointProgress> cs = checkpoints();
            for (int i = 0; i < cs.size(); i++) {
                CheckpointProgress c = cs.get(i);
                if (c.name().equals(name)) {
                    TreeSet<String> remaining = new TreeSet<>(c.remaining());
                    remaining.remove(reader);
                    TreeMap<Segment, Long> p = new TreeMap<>(c.positions());
                    p.putAll(offsets);
                    cs.set(i, new CheckpointProgress(c.name(), c.silent(), remaining, p));
                }
            }
        }

        /** A segment was read to {@code end}: track it until its successors are readable; promote those that are. */
        void complete(Segment segment, long end, SortedMap<Segment, SortedSet<Segment>> successors) {
            if (successors.isEmpty()) {
                finished().put(segment, end);
                return;
            }
            ended().put(segment, end);
            successors.forEach((successor, predecessors) -> {
                if (!known(successor)) {
                    future().put(successor, predecessors);
                }
            });
            TreeMap<Segment, SortedSet<Segment>> f = future();
            TreeMap<Segment, Long> e = ended();
            f.entrySet().removeIf(w -> {
                if (e.keySet().containsAll(w.getValue())) {
                    unassigned().put(w.getKey(), 0L);
                    return true;
                }
                return false;
            });
            TreeSet<Segment> waitedOn = new TreeSet<>();
            f.values().forEach(waitedOn::addAll);
            e.keySet().retainAll(waitedOn);
        }

        /** Is the segment already somewhere in the state? */
        private boolean known(Segment s) {
            if (unassigned().containsKey(s) || future().containsKey(s) || ended().containsKey(s)
                    || finished().containsKey(s)) {
                return true;
            }
            for (ReaderInfo r : readers().values()) {
                if (r.segments().containsKey(s)) {
                    return true;
                }
            }
            return false;
        }

        /** Moves checkpoints that every reader passed to the completed list. */
        void completeCheckpoints() {
            List<CheckpointProgress> cs = checkpoints == null ? from.checkpoints : checkpoints;
            if (cs.stream().noneMatch(c -> c.remaining().isEmpty())) {
                return;
            }
            completed = new ArrayList<>(from.completed);
            for (CheckpointProgress c : cs) {
                if (c.remaining().isEmpty()) {
                    completed.add(new CompletedCheckpoint(c.name(), c.silent(), c.positions()));
                }
            }
            while (completed.size() > COMPLETED_KEPT) {
                completed.remove(0);
            }
            checkpoints().removeIf(c -> c.remaining().isEmpty());
        }

        ReaderGroupState build() {
            return new ReaderGroupState(from.settings, generation, view(readers, from.readers),
                    view(unassigned, from.unassigned), view(future, from.future), view(ended, from.ended),
                    view(finished, from.finished), checkpoints == null ? from.checkpoints : List.copyOf(checkpoints),
                    completed == null ? from.completed : List.copyOf(completed), lastCheckpointMillis);
        }

        private static <K, V> SortedMap<K, V> view(TreeMap<K, V> changed, SortedMap<K, V> unchanged) {
            return changed == null ? unchanged : Collections.unmodifiableSortedMap(changed);
        }
    }
}
