package io.sluice.client;

import java.util.Objects;

import io.sluice.segment.SegmentCalls;
import io.sluice.segment.SegmentFetcher;
import io.sluice.stream.EventPointer;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.Segment;
import io.sluice.stream.Serializer;

/**
 * Random access for a reader ({@link EventStreamReader#fetchEvent}): reads the one event a pointer names, from any
 * segment (owned by this reader or not, sealed or not), through the segment-call layer, which follows a moved
 * segment and refreshes an expired token. Touches neither the reader's position nor its group. Thread-safe: any
 * thread may fetch while the consumer reads.
 */
final class EventFetcher<T> {
    private final SegmentCalls calls;
    private final ReadTokens tokens;
    private final Serializer<T> serializer;

    EventFetcher(SegmentCalls calls, ReadTokens tokens, Serializer<T> serializer) {
        this.calls = calls;
        this.tokens = tokens;
        this.serializer = serializer;
    }

    /**
     * Blocks for the read.
     *
     * @return the event at {@code pointer}, deserialized
     * @throws io.sluice.errors.SegmentTruncatedException if the event was truncated away
     * @throws io.sluice.errors.NoSuchSegmentException if the segment is gone
     * @throws IllegalArgumentException if there is no event of the pointer's length at its offset
     */
    T fetch(EventPointer pointer) {
        Objects.requireNonNull(pointer, "pointer");
        Segment segment = pointer.segment();
        SegmentFetcher fetcher = new SegmentFetcher(calls, segment.qualifiedName(),
                tokens.forStream(segment.scopedStream()));
        return serializer.deserialize(fetcher.fetchEvent(pointer.offset(), pointer.length()));
    }
}
