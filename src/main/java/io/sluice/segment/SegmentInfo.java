package io.sluice.segment;

import java.util.Objects;

/**
 * What a segment store says about one existing segment.
 *
 * @param segment the qualified segment name
 * @param sealed whether the segment is sealed (no more appends)
 * @param startOffset the first readable offset: 0 unless the segment was truncated
 * @param length the segment's length: the offset of its next append
 * @param lastModified when the segment last changed, in milliseconds since the epoch (as the server reports it)
 */
public record SegmentInfo(String segment, boolean sealed, long startOffset, long length, long lastModified) {
    /** Checks that the name is present. */
    public SegmentInfo {
        Objects.requireNonNull(segment, "segment");
    }
}
