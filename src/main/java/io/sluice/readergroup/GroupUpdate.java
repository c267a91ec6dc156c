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

        public RemoveReader {
            Objects.requireNonNull(reader, "reader");
            positions = frozen(positions);
        }
    }

    /**
     * A reader is alive, and stands at these offsets (offsets of segments it does not own are ignored; offsets only
     * move forward).
     */
    record Heartbeat(String reader, long incarnation, long nowMillis, SortedMap<Segment, Long> offsets)
            implements GroupUpdate {
        public Heartbeat {
            Objects.requireNonNull(reader, "reader");
            offsets = frozen(offsets);
        }
    }

    /** A reader takes these unassigned segments (those still unassigned when applied). */
    record Acquire(String reader, long incarnation, SortedSet<Segment> segments) implements GroupUpdate {
        public Acquire {
            Objects.requireNonNull(reader, "reader");
            segments = Collections.unmodifiableSortedSet(new TreeSet<>(segments));
        }
    }

    /** A reader gives these segments back to the group at these offsets. */
    record Release(String reader, long incarnation, SortedMap<Segment, Long> offsets) implements GroupUpdate {
        public Release {
            Objects.requireNonNull(reader, "reader");
            offsets = frozen(offsets);
        }
    }

    /**
     * A reader read a segment to its end ({@code endOffset}). {@code successors} maps each segment that follows it to
     * all of that segment's predecessors; empty when nothing follows (sealed stream, or the group's ending cut).
     */
    record SegmentCompleted(String reader, long incarnation, Segment segment, long endOffset,
                            SortedMap<Segment, SortedSet<Segment>> successors) implements GroupUpdate {
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
        public CreateCheckpoint {
            Objects.requireNonNull(name, "name");
        }
    }

    /** A reader passed a checkpoint, standing at these offsets of the segments it owns. */
    record CheckpointReached(String reader, long incarnation, String name, SortedMap<Segment, Long> offsets)
            implements GroupUpdate {
        public CheckpointReached {
            Objects.requireNonNull(reader, "reader");
            Objects.requireNonNull(name, "name");
            offsets = frozen(offsets);
        }
    }

    /**
     * Every reader drops what it holds; the group starts again from {@code positions} (a new generation).
     * Checkpoints in progress are cancelled.
     */
    record Reset(SortedMap<Segment, Long> positions) implements GroupUpdate {
        public Reset {
            positions = frozen(positions);
        }
    }

    private static SortedMap<Segment, Long> frozen(Map<Segment, Long> map) {
        return Collections.unmodifiableSortedMap(new TreeMap<>(map));
    }
}
