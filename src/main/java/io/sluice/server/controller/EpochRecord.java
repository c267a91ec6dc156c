package io.sluice.server.controller;

import java.util.List;

/**
 * One epoch of a stream: the segments that were active together. A rolling transaction adds epochs that copy an
 * older epoch's segments; {@code referenceEpoch} names the epoch an epoch copies (itself otherwise). Immutable.
 */
record EpochRecord(int epoch, int referenceEpoch, List<SegmentRecord> segments, long creationTime) {

    /** Copies the segment list. */
    EpochRecord {
        segments = List.copyOf(segments);
    }

    /** @return the segment with this id, or null */
    SegmentRecord segment(long segmentId) {
        for (SegmentRecord s : segments) {
            if (s.id() == segmentId) {
                return s;
            }
        }
        return null;
    }

    /** @return whether the epoch holds the segment with this id */
    boolean contains(long segmentId) {
        return segment(segmentId) != null;
    }

    /** @return the highest segment number in this epoch, or -1 if it has none */
    int maxSegmentNumber() {
        int max = -1;
        for (SegmentRecord s : segments) {
            max = Math.max(max, s.number());
        }
        return max;
    }
}
