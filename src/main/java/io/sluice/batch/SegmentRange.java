package io.sluice.batch;

import java.util.Objects;

import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;

/**
 * One segment of a batch read with the offsets to read it between: the events in {@code [startOffset, endOffset)}.
 * Both offsets are event boundaries. Immutable value; ranges may be handed to other threads or processes.
 *
 * @param segment the segment
 * @param startOffset the offset of the first event to read
 * @param endOffset where reading stops (the offset just after the last event read)
 */
public record SegmentRange(Segment segment, long startOffset, long endOffset) {

    /** Checks the offsets. */
    public SegmentRange {
        Objects.requireNonNull(segment, "segment");
        if (startOffset < 0) {
            throw new IllegalArgumentException("startOffset of a range of " + segment + " must not be negative: "
                    + startOffset);
        }
        if (endOffset < startOffset) {
            throw new IllegalArgumentException("endOffset " + endOffset + " of a range of " + segment
                    + " must not be before its startOffset " + startOffset);
        }
    }

    /** @return the stream of the segment */
    public ScopedStream stream() {
        return segment.scopedStream();
    }

    /** @return the number of bytes in the range (framing included) */
    public long length() {
        return endOffset - startOffset;
    }

    @Override
    public String toString() {
        return "SegmentRange[" + segment + " " + startOffset + ".." + endOffset + "]";
    }
}
