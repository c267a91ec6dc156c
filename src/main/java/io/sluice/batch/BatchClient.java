package io.sluice.batch;

import java.util.List;

import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializer;
import io.sluice.stream.StreamCut;

/**
 * Reads a stream's events segment by segment, without a reader group: list the segments between two stream cuts
 * ({@link #segments}), then read each {@link SegmentRange} on its own ({@link #readSegment}) — on any thread, in any
 * order, in parallel (for example one virtual thread per range). Events of one segment come in order; there is no
 * order between segments. Thread-safe; get one with {@link io.sluice.client.SluiceClient#batchClient()}, it lives as
 * long as its client.
 */
public interface BatchClient {

    /**
     * Every segment of {@code stream} between two stream cuts, with the offsets to read it between: the segments of
     * {@code from}, those of {@code to}, and every segment of the epochs between (after a scale). A segment's start is
     * its offset in {@code from} (else its current start), its end its offset in {@code to} (else its current
     * length: the length at the time of this call, an event boundary).
     *
     * @param stream the stream
     * @param from where to start, {@link StreamCut#UNBOUNDED} for the stream's head
     * @param to where to end, {@link StreamCut#UNBOUNDED} for its tail now
     * @return the ranges, ordered by segment
     * @throws IllegalArgumentException if a cut belongs to another stream
     * @throws io.sluice.errors.NoSuchStreamException if the stream does not exist
     */
    List<SegmentRange> segments(ScopedStream stream, StreamCut from, StreamCut to);

    /**
     * An iterator over the events of {@code range}: from its start up to exactly its end.
     *
     * @param range the range, usually one of {@link #segments}'s
     * @param serializer turns an event's bytes into an event
     * @return the iterator; close it when done
     * @throws io.sluice.errors.SegmentTruncatedException from {@code hasNext()} if the range's data was truncated away
     */
    <T> SegmentIterator<T> readSegment(SegmentRange range, Serializer<T> serializer);

    /**
     * A stream cut about {@code approximateDistanceBytes} after {@code cut}: each segment of {@code cut} moves on by
     * its share of the distance (the distance divided by the number of segments) to the first event boundary at or
     * after that offset, as the segment store locates it (the wire command {@code LocateOffset}), and at most to the
     * segment's current length. The cut keeps the segments of {@code cut}; a segment that is read to its end stays at
     * its end (read on with {@link #segments} from the cut to {@link StreamCut#UNBOUNDED}).
     *
     * @param cut the cut to start from; not {@link StreamCut#UNBOUNDED}
     * @param approximateDistanceBytes how far to move on, in bytes, positive
     * @return the next cut, on event boundaries
     * @throws IllegalArgumentException if the cut is unbounded or the distance is not positive
     * @throws UnsupportedOperationException if a segment store speaks a wire version without {@code LocateOffset}
     *     (before 17, as Pravega 0.13's 16); the message names the server's version
     */
    StreamCut nextStreamCut(StreamCut cut, long approximateDistanceBytes);
}
