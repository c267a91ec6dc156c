package io.sluice.stream;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A consistent position of a whole reader group: every reader had read exactly up to it when it passed the
 * checkpoint. Resetting a group to it makes the group read every event after it exactly once.
 *
 * @param name the checkpoint's name
 * @param positions for each stream of the group, the stream cut of the checkpoint
 */
public record Checkpoint(String name, SortedMap<ScopedStream, StreamCut> positions) {

    /** Copies the map. */
    public Checkpoint {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(positions, "positions");
        positions = Collections.unmodifiableSortedMap(new TreeMap<>(positions));
    }

    /** @return a checkpoint of these positions */
    public static Checkpoint of(String name, Map<ScopedStream, StreamCut> positions) {
        return new Checkpoint(name, new TreeMap<>(Objects.requireNonNull(positions, "positions")));
    }
}
