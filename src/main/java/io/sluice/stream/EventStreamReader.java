package io.sluice.stream;

import java.time.Duration;

/**
 * Reads events as a member of a reader group: the group hands each of its segments to one reader at a time, so
 * the readers of a group together read every event exactly once, each segment in order (and so each routing key in
 * order). Segments move between readers when readers join or leave; a successor segment is handed out only once
 * all its predecessors are read.
 *
 * <p>A reader takes its share of the group's segments at its first {@link #readNextEvent} (so readers started
 * together share them evenly from the start). Every segment it owns prefetches on its own virtual thread into a
 * small buffer; {@link #readNextEvent} waits on all of them at once, so an idle segment never delays a busy one, and
 * busy segments take turns: the reader goes on with a segment while it has events buffered, up to 64 in a row when
 * others have events too. Membership runs in the background: the reader sends heartbeats to the group, takes over
 * the segments of readers that stopped sending theirs, and takes its share of segments when others join or leave.
 *
 * <p><b>Threads.</b> One thread at a time calls {@link #readNextEvent} (a second concurrent caller gets an
 * {@link IllegalStateException}); {@link #fetchEvent}, {@link #ack}, {@link #readerId} and {@link #close} may be
 * called from any thread; {@link #acquireSegment} and {@link #releaseSegment} from any thread too (they wait for a
 * concurrent {@link #readNextEvent}); each {@link SegmentSlice} is iterated by one thread at a time. Create readers
 * with {@code SluiceClient.newReader}.
 *
 * @param <T> the event type
 */
public interface EventStreamReader<T> extends AutoCloseable {

    /**
     * Returns the next event, waiting up to {@code timeout} for one. Blocks. Segments out in a
     * {@link SegmentSlice} are not read here (and the positions returned here do not follow them).
     *
     * <p>Without an event, the result says why: the reader reached a checkpoint ({@link EventRead#isCheckpoint()}:
     * it has handed out every event before it; it reports the checkpoint as passed on the next call), the group has
     * read everything up to its end ({@link EventRead#readCompleted()}: returned at once the first time; later calls
     * return it again when the timeout passes, unless the group was reset meanwhile), or the timeout passed.
     *
     * @param timeout how long to wait for an event; zero polls
     * @return the event with its position and pointer, or an {@link EventRead} without an event
     * @throws io.sluice.errors.SegmentTruncatedException if data the reader was due to read was truncated away; the
     *     message names the segment and the offsets skipped, and the next call continues after the truncation
     * @throws EventDeserializationException if the serializer failed on the next event; the reader
     *     has moved past it (the exception has its pointer, for {@link #fetchEvent} with another serializer), and the
     *     next call continues after it
     * @throws IllegalStateException if the reader is closed, another thread is in this method, or another reader
     *     with the same id replaced this one in the group
     * @throws io.sluice.errors.SluiceException if reading or updating the group failed past the retry policy
     */
    EventRead<T> readNextEvent(Duration timeout);

    /**
     * Acknowledges that the application processed an event this reader handed out
     * ({@link ReaderConfig.AckMode#EXPLICIT} only). Acknowledgements may come in any order and from any thread; a
     * segment's acknowledged position is the end of the longest acknowledged prefix of the events handed out from it,
     * and it is what the reader reports to the group: a reader that crashes, closes or gives a segment back leaves
     * every unacknowledged event to be read again. Events of a {@link SegmentSlice} are acknowledged here too. Does
     * not block (no I/O: the acknowledged positions go to the group with the next heartbeat).
     *
     * @param read an event read as {@link #readNextEvent} returned it, by this reader
     * @throws NullPointerException if {@code read} is null
     * @throws IllegalStateException if the reader does not use {@link ReaderConfig.AckMode#EXPLICIT}, or is closed
     * @throws IllegalArgumentException if {@code read} carries no event, was acknowledged already, or is not an
     *     unacknowledged event of this reader (another reader handed it out, or this one has lost its segment
     *     meanwhile — the group then reads it again)
     */
    void ack(EventRead<T> read);

    /**
     * Takes one of the reader's segments out of {@link #readNextEvent} to be read on its own, as a
     * {@link SegmentSlice}, e.g. on a virtual thread per segment. Blocks up to {@code timeout} for a segment: one the
     * reader owns and that no slice of its has; it takes its share of the group's segments here as in
     * {@link #readNextEvent} (and the successors of segments read to their end, once their slices are released).
     * {@link #readNextEvent} does not read a segment while it is in a slice.
     *
     * <p><b>Membership keeps working while slices are out</b>: heartbeats go on in the background; whichever of the
     * reader's threads comes next between two events — a slice's {@link SegmentSlice#hasNext()},
     * {@link #readNextEvent}, this method or {@link #releaseSegment} — does what the group asks of the reader. A
     * checkpoint is then passed at once, without a checkpoint read, where every segment stands at that moment (for a
     * slice: before its next event; in {@code AckMode.EXPLICIT}: at the acknowledged positions): every event a slice
     * handed out before lies before the checkpoint, every later one after it. A segment the group wants for another
     * reader is taken from a reader's segments outside slices first; then a slice ends (its
     * {@link SegmentSlice#hasNext()} answers false) and the segment goes back where it stands (in
     * {@code AckMode.EXPLICIT}: once the slice's events are acknowledged). Release an ended slice all the same.
     *
     * <p>Waits for a concurrent {@link #readNextEvent} to return (it owns the reader's membership while it runs).
     *
     * @param timeout how long to wait for a free segment; zero polls
     * @return a slice of a segment, or {@code null} if none was free within the timeout
     * @throws IllegalStateException if the reader is closed
     * @throws io.sluice.errors.SluiceException if updating the group failed past the retry policy
     */
    SegmentSlice<T> acquireSegment(Duration timeout);

    /**
     * Ends a slice and gives its segment back to the group where the slice stands (in {@code AckMode.EXPLICIT}: at its
     * acknowledged position); if the slice read the segment to its end (and, in {@code AckMode.EXPLICIT}, everything
     * is acknowledged), tells the group the segment is read instead, so that its successors can be acquired. The
     * group may hand the segment to any of its readers, this one included. Nothing happens to a slice whose segment
     * the reader has lost meanwhile, nor after the reader closed (its close gave the segment back). Blocks for one
     * update of the group state (waiting for a concurrent {@link #readNextEvent} to return first).
     *
     * @param slice a slice this reader handed out
     * @throws IllegalArgumentException if the slice is not of this reader, or was released already
     */
    void releaseSegment(SegmentSlice<T> slice);

    /**
     * Like {@link #releaseSegment(SegmentSlice)}, but gives the segment back at {@code offset} (an event boundary,
     * typically the {@link EventPointer#offset()} of the first event the application did not process): the group
     * reads the segment on from there.
     *
     * @param offset where the group goes on reading the segment; at most the slice's {@link SegmentSlice#offset()}
     * @throws IllegalArgumentException as {@link #releaseSegment(SegmentSlice)} does, or if {@code offset} is
     *     negative or beyond what the slice handed out (that would skip events nobody read)
     */
    void releaseSegment(SegmentSlice<T> slice, long offset);

    /**
     * Reads one event directly, wherever it is, without affecting the reader's position. Blocks for one read.
     *
     * @param pointer where the event is ({@link EventRead#pointer()})
     * @return the event
     * @throws io.sluice.errors.NoSuchSegmentException if its segment is gone
     * @throws io.sluice.errors.SegmentTruncatedException if it was truncated away
     * @throws IllegalArgumentException if there is no event at the pointer (it lies beyond the segment's end, or its
     *     offset or length do not match an event)
     */
    T fetchEvent(EventPointer pointer);

    /**
     * Where the group stands in time in {@code stream}, by the watermarks the controller computed from writers'
     * noted times (see {@link TimeWindow} and docs/watermarks.md), as Pravega's {@code getCurrentTimeWindow}. The
     * reader starts following the stream's watermarks ({@code _MARK<stream>}) on the first call; each call then
     * reads the watermarks up to the group's position (this reader's position as of its last
     * {@link #readNextEvent}, the other readers' as last reported to the group). Blocks for those reads; may be
     * called from any thread.
     *
     * @param stream a stream the group reads
     * @return the window, never null; either bound may be null (unknown)
     * @throws IllegalArgumentException if the group does not read {@code stream}
     * @throws IllegalStateException if the reader is closed
     */
    TimeWindow currentTimeWindow(ScopedStream stream);

    /**
     * {@link #currentTimeWindow(ScopedStream)} for the one stream the group reads.
     *
     * @return the window, never null
     * @throws IllegalStateException if the group reads more than one stream (name it then), or the reader is closed
     */
    TimeWindow currentTimeWindow();

    /** @return the reader's id within its group */
    String readerId();

    /** @return the configuration the reader was created with */
    ReaderConfig config();

    /**
     * Leaves the group like {@link #close()}, but gives the reader's segments back at {@code position} (typically
     * {@link EventRead#position()} of the last event the application processed) instead of where the reader stands:
     * the events it handed out after {@code position} are read again by the group. A segment the reader owns that is
     * not in {@code position} (it took it over later) goes back where the reader started reading it; segments of
     * {@code position} the reader no longer owns are left alone. Blocks like {@link #close()}; idempotent with it.
     *
     * @param position where the application stands
     * @throws NullPointerException if {@code position} is null
     * @throws IllegalArgumentException if {@code position} lies beyond what the reader handed out in a segment it owns
     *     (that would skip events nobody read); the reader is then closed at its own position, so nothing is lost
     */
    void closeAt(Position position);

    /**
     * Leaves the group: the reader's segments go back to the group at the reader's position (every event it handed
     * out counts as processed), and its threads stop. Blocks for one update of the group state; waits for a
     * concurrent {@link #readNextEvent} to return first. Idempotent; does not throw (a failed update is logged, and
     * the segments then return after the reader's offline timeout).
     */
    @Override
    void close();
}
