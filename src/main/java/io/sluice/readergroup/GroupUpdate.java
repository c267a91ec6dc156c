package io.sluice.readergroup;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import io.sluice.stream.Segment;

/**
 * One change of a reader group's shared state ({@link ReaderGroupState#apply}). Updates are small records written to
 * the group's state segment by whoever makes the change; every process applies them in log order. Each is checked
 * against the state it is applied to and does nothing when it no longer fits (e.g. a reader that was removed
 * meanwhile), so applying is total and deterministic. Immutable values.
 */
public sealed interface GroupUpdate {

    /**
     * A reader joins. If a reader with this id is already in the group, that one is removed first (its segments go
     * back to the group as {@link RemoveReader} with no positions would put them).
     *
     * @param reader the reader's id
     * @param incarnation a random number naming this instance of the reader; later updates must carry it
     * @param ackOnCheckpoint whether the reader counts events as processed only at checkpoints
     * @param offlineTimeoutMillis how long others wait for its heartbeat before removing it
     * @param nowMillis the joining reader's clock (informational: liveness is judged by observed change)
     */
    record AddReader(String reader, long incarnation, boolean ackOnCheckpoint, long offlineTimeoutMillis,
                     long nowMillis) implements GroupUpdate {
        /** Checks the components. */
        public AddReader {
            Objects.requireNonNull(reader, "reader");
        }
    }

    /**
     * A reader leaves (closed, declared offline, or timed out). Its segments go back to the group at
     * {@code positions} where given, else at its last checkpointed offset (ack-on-checkpoint readers) or its last
     * reported offset.
     *
     * @param reader the reader
     * @param incarnation the instance to remove; {@link #ANY_INCARNATION} removes whichever is there
     * @param positions where its segments resume; may be empty
     */
    record RemoveReader(String reader, long incarnation, SortedMap<Segment, Long> positions) implements GroupUpdate {
        /** Matches every incarnation. */
        public static final long ANY_INCARNATION = 0;

        /** Checks and freezes the components. */
        public RemoveReader {
            Objects.requireNonNull(reader, "reader");
            positions = frozen(positions);
        }
    }

    /**
     * A reader is alive, and stands at these offsets (offsets of segments it does not own are ignored; offsets only
     * move forward).
     *
     * @param reader the reader
     * @param incarnation its instance
     * @param nowMillis the reader's clock: others watch it change, never compare it with theirs
     * @param offsets where it stands in the segments whose offset moved since its last heartbeat
     */
    record Heartbeat(String reader, long incarnation, long nowMillis, SortedMap<Segment, Long> offsets)
            implements GroupUpdate {
        /** Checks and freezes the components. */
        public Heartbeat {
            Objects.requireNonNull(reader, "reader");
            offsets = frozen(offsets);
        }
    }

    /**
     * A reader takes these unassigned segments (those still unassigned when applied; nothing while it has a checkpoint
     * to pass).
     *
     * @param reader the reader
     * @param incarnation its instance
     * @param segments the segments to take
     */
    record Acquire(String reader, long incarnation, SortedSet<Segment> segments) implements GroupUpdate {
        /** Checks and freezes the components. */
        public Acquire {
            Objects.requireNonNull(reader, "reader");
            segments = Collections.unmodifiableSortedSet(new TreeSet<>(segments));
        }
    }

    /**
     * A reader gives these segments back to the group at these offsets.
     *
     * @param reader the reader
     * @param incarnation its instance
     * @param offsets the segments it gives back (those it owns), each where reading resumes
     */
    record Release(String reader, long incarnation, SortedMap<Segment, Long> offsets) implements GroupUpdate {
        /** Checks and freezes the components. */
        public Release {
            Objects.requireNonNull(reader, "reader");
            offsets = frozen(offsets);
        }
    }

    /**
     * A reader read a segment to its end ({@code endOffset}).
     *
     * @param reader the reader
     * @param incarnation its instance
     * @param segment the segment it read to its end
     * @param endOffset the segment's end
     * @param successors each segment that follows it → all of that segment's predecessors; empty when nothing follows
     *     (sealed stream, or the group's ending cut)
     */
    record SegmentCompleted(String reader, long incarnation, Segment segment, long endOffset,
                            SortedMap<Segment, SortedSet<Segment>> successors) implements GroupUpdate {
        /** Checks and freezes the components. */
        public SegmentCompleted {
            Objects.requireNonNull(reader, "reader");
            Objects.requireNonNull(segment, "segment");
            TreeMap<Segment, SortedSet<Segment>> copy = new TreeMap<>();
            successors.forEach((s, p) -> copy.put(s, Collections.unmodifiableSortedSet(new TreeSet<>(p))));
            successors = Collections.unmodifiableSortedMap(copy);
        }
    }

    /**
     * Starts a checkpoint that every reader online now must pass.
     *
     * @param name unique among the checkpoints in progress and those remembered
     * @param silent automatic checkpoints are silent: readers pass them without handing out a checkpoint read
     * @param nowMillis the creator's clock, for the automatic checkpoint interval
     */
    record CreateCheckpoint(String name, boolean silent, long nowMillis) implements GroupUpdate {
        /** Checks the components. */
        public CreateCheckpoint {
            Objects.requireNonNull(name, "name");
        }
    }

    /**
     * A reader passed a checkpoint, standing at these offsets of the segments it owns.
     *
     * @param reader the reader
     * @param incarnation its instance
     * @param name the checkpoint (the oldest it has to pass)
     * @param offsets where it stands; a segment it owns but does not list stays at its last reported offset
     */
    record CheckpointReached(String reader, long incarnation, String name, SortedMap<Segment, Long> offsets)
            implements GroupUpdate {
        /** Checks and freezes the components. */
        public CheckpointReached {
            Objects.requireNonNull(reader, "reader");
            Objects.requireNonNull(name, "name");
            offsets = frozen(offsets);
        }
    }

    /**
     * Every reader drops what it holds; the group starts again from {@code positions} (a new generation).
     * Checkpoints in progress are cancelled.
     *
     * @param positions every segment the group reads from now on, with its offset
     */
    record Reset(SortedMap<Segment, Long> positions) implements GroupUpdate {
        /** Freezes the positions. */
        public Reset {
            positions = frozen(positions);
        }
    }

    private static SortedMap<Segment, Long> frozen(Map<Segment, Long> map) {
        return Collections.unmodifiableSortedMap(new TreeMap<>(map));
    }
}
