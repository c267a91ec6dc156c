package io.sluice.server.controller;

/**
 * A stream segment in the controller's history: its id ({@code (creation epoch << 32) | number}), key range
 * {@code [keyStart, keyEnd)} and creation time. Immutable.
 */
record SegmentRecord(long id, double keyStart, double keyEnd, long creationTime) {

    /** @return the segment number (low 32 bits of the id) */
    int number() {
        return Names.segmentNumber(id);
    }

    /** @return the epoch the segment was created in (high 32 bits of the id) */
    int epoch() {
        return Names.epoch(id);
    }

    /** @return whether the key ranges overlap (Pravega's {@code StreamSegmentRecord.overlaps}) */
    boolean overlaps(SegmentRecord other) {
        return other.keyStart < keyEnd && other.keyEnd > keyStart;
    }

    /** @return whether this segment's range overlaps {@code [start, end)} */
    boolean overlaps(double start, double end) {
        return end > keyStart && start < keyEnd;
    }
}
