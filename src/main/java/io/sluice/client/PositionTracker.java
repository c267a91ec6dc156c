package io.sluice.client;

import java.util.Arrays;
import java.util.SortedMap;
import java.util.TreeMap;

import io.sluice.stream.Position;
import io.sluice.stream.Segment;

/**
 * Hands out a {@link Position} per event in amortised constant time, however many segments a reader owns.
 *
 * <p>The offsets of all owned segments are kept in an array ({@code current}); a position is a snapshot. Instead of
 * copying the array per event, the tracker keeps an immutable base copy plus an append-only journal of
 * {@code (slot, offset)} changes since the base; a position captures the base, the journal and the journal's
 * length, and replays them only if someone asks for its map. When the journal holds as many entries as there are
 * segments (at least 16), a fresh base is copied: one array copy per {@code n} events. Entries below a captured
 * length are never written again (a new journal array starts with each base), so positions stay valid while the
 * reader goes on.
 *
 * <p>Confined to the reader's consumer thread; the positions it returns are immutable and may go anywhere.
 */
final class PositionTracker {
    private static final int MIN_JOURNAL = 16;

    private Segment[] segments = new Segment[0];
    private long[] current = new long[0];
    private long[] base = new long[0];
    private int[] journalSlots = new int[MIN_JOURNAL];
    private long[] journalOffsets = new long[MIN_JOURNAL];
    private int journalLength;

    /**
     * Starts over with another set of segments (ownership changed).
     *
     * @param offsets the owned segments, in order, and where each stands
     * @return the segments in slot order ({@code slot i} is element {@code i})
     */
    Segment[] reset(SortedMap<Segment, Long> offsets) {
        int n = offsets.size();
        segments = offsets.keySet().toArray(new Segment[0]);
        current = new long[n];
        int i = 0;
        for (long o : offsets.values()) {
            current[i++] = o;
        }
        rebase();
        return segments.clone();
    }

    /** Records that the segment in {@code slot} now stands at {@code offset}. */
    void advance(int slot, long offset) {
        current[slot] = offset;
        if (journalLength == journalSlots.length) {
            rebase();
            return;
        }
        journalSlots[journalLength] = slot;
        journalOffsets[journalLength] = offset;
        journalLength++;
    }

    private void rebase() {
        base = current.clone();
        int capacity = Math.max(MIN_JOURNAL, current.length);
        journalSlots = new int[capacity];
        journalOffsets = new long[capacity];
        journalLength = 0;
    }

    /** @return the position now, its map computed only if asked for */
    Position position() {
        Segment[] s = segments;
        long[] b = base;
        int[] slots = journalSlots;
        long[] offsets = journalOffsets;
        int length = journalLength;
        return Position.lazy(() -> {
            long[] values = Arrays.copyOf(b, b.length);
            for (int i = 0; i < length; i++) {
                values[slots[i]] = offsets[i];
            }
            SortedMap<Segment, Long> map = new TreeMap<>();
            for (int i = 0; i < s.length; i++) {
                map.put(s[i], values[i]);
            }
            return map;
        });
    }
}
