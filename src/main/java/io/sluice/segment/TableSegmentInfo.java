package io.sluice.segment;

import java.util.Objects;

/**
 * What a segment store says about one table segment.
 *
 * @param segment the table segment's name
 * @param startOffset the first offset still held (a real server truncates a table segment after compacting it)
 * @param length the table segment's length in bytes: every update and removal makes it grow, which is what a
 *     {@link TableSegmentDeltaReader} waits for; a delta read from this position sees only later changes
 * @param entryCount the number of keys. A real Pravega 0.13 segment store counts asynchronously, and its count can
 *     lag, settle on a wrong value or even go negative; it always reports 0 for tables with fixed-length keys. The
 *     embedded server's count is exact.
 * @param keyLength the length every key must have, or 0 if keys may have any length
 */
public record TableSegmentInfo(String segment, long startOffset, long length, long entryCount, int keyLength) {
    /** Checks that the name is present. */
    public TableSegmentInfo {
        Objects.requireNonNull(segment, "segment");
    }
}
