package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;

import io.sluice.stream.Position;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Positions handed out per event stay exactly what they were, whatever the reader did afterwards. */
@Timeout(30)
class PositionTrackerTest {
    private static final ScopedStream STREAM = ScopedStream.of("sc", "st");

    @Test
    void everyPositionMaterialisesAsItWasWhenHandedOut() {
        PositionTracker tracker = new PositionTracker();
        Random random = new Random(7);
        List<Position> positions = new ArrayList<>();
        List<SortedMap<Segment, Long>> expected = new ArrayList<>();
        for (int round = 0; round < 5; round++) {
            int n = 1 + random.nextInt(40);
            TreeMap<Segment, Long> current = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                current.put(Segment.of(STREAM, i, round), (long) random.nextInt(1000));
            }
            Segment[] slots = tracker.reset(current);
            assertThat(slots).containsExactly(current.keySet().toArray(new Segment[0]));
            positions.add(tracker.position());
            expected.add(new TreeMap<>(current));
            for (int e = 0; e < 500; e++) {
                int slot = random.nextInt(n);
                long offset = current.get(slots[slot]) + 1 + random.nextInt(100);
                current.put(slots[slot], offset);
                tracker.advance(slot, offset);
                if (random.nextInt(3) == 0) {
                    positions.add(tracker.position());
                    expected.add(new TreeMap<>(current));
                }
            }
        }
        // materialise only now, long after the journals they captured were replaced
        for (int i = positions.size() - 1; i >= 0; i--) {
            assertThat(positions.get(i).segments()).as("position %s", i).isEqualTo(expected.get(i));
            assertThat(positions.get(i)).isEqualTo(Position.of(expected.get(i)));
        }
    }
}
