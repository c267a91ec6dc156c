package io.sluice.stream;

/**
 * Where a reader stands in time, by the watermarks the controller computed from writers' noted times
 * ({@link EventStreamWriter#noteTime}, automatic noting, transaction commit times): as Pravega's {@code TimeWindow}.
 * See docs/watermarks.md.
 *
 * <p>The lower bound is at most the time any writer noted at or before the reader's position: events read from now
 * on were, as far as the writers said, written after it. It is null near the head of the stream (or when no writer
 * notes time): no watermark lies behind the reader. The upper bound is at least every time a writer noted before
 * the reader's position; it is null near the tail: no watermark lies ahead of the reader yet.
 *
 * @param lowerTimeBound milliseconds (the writers' clock), or null if unknown
 * @param upperTimeBound milliseconds, or null if unknown; never below the lower bound
 */
public record TimeWindow(Long lowerTimeBound, Long upperTimeBound) {

    /** The window with neither bound: nothing is known. */
    public static final TimeWindow UNKNOWN = new TimeWindow(null, null);

    /** Checks that the bounds are in order. */
    public TimeWindow {
        if (lowerTimeBound != null && upperTimeBound != null && upperTimeBound < lowerTimeBound) {
            throw new IllegalArgumentException("a time window's upper bound " + upperTimeBound
                    + " is below its lower bound " + lowerTimeBound);
        }
    }

    /** @return whether no lower bound is known: the reader is near the head of the stream */
    public boolean isNearHeadOfStream() {
        return lowerTimeBound == null;
    }

    /** @return whether no upper bound is known: the reader is near the tail of the stream */
    public boolean isNearTailOfStream() {
        return upperTimeBound == null;
    }
}
