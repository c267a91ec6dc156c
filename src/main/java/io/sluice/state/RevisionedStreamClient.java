package io.sluice.state;

import java.util.Iterator;
import java.util.Map;

/**
 * A log of values on a stream's segment with optimistic concurrency (Pravega's {@code RevisionedStreamClient}): every
 * value is one event of the segment, a {@link Revision} is the offset just after a value, and a conditional write
 * succeeds only if nobody wrote since the revision the caller names. A <em>mark</em> (the segment attribute Pravega
 * calls {@code RevisionStreamClientMark}) records one revision that all users agree on, typically where a compacted
 * state starts; {@link #truncateToRevision} discards what is before a revision.
 *
 * <p>Data written through this interface and through Pravega's own {@code RevisionedStreamClient} is the same on the
 * wire and in the segment: each can read and conditionally append to what the other wrote, given equivalent
 * serializers.
 *
 * <p>Thread-safe. Every method blocks the calling thread for the requests it needs (retrying lost connections) and
 * throws unchecked {@link io.sluice.errors.SluiceException}s: {@link io.sluice.errors.NoSuchSegmentException} once the
 * stream is gone, {@link io.sluice.errors.SegmentSealedException} when writing to a sealed one.
 *
 * @param <T> the values
 */
public interface RevisionedStreamClient<T> extends AutoCloseable {

    /**
     * Reads the values from {@code start} to the log's end as of this call (the read does not wait for more).
     *
     * @param start a revision this client returned, the oldest revision, or the mark
     * @return the values in log order, each with the revision just after it
     * @throws io.sluice.errors.SegmentTruncatedException if the log was truncated beyond {@code start}
     * @throws IllegalArgumentException if {@code start} is of another stream or beyond the log's end
     */
    Iterator<Map.Entry<Revision, T>> readFrom(Revision start);

    /** @return the revision at the log's end: a conditional write at it succeeds if nobody writes first */
    Revision fetchLatestRevision();

    /** @return the oldest revision still readable (the log's start: 0 unless it was truncated) */
    Revision fetchOldestRevision();

    /**
     * Appends {@code value} only if the log's end is still {@code latestRevision}.
     *
     * @param latestRevision the revision the caller believes is the end
     * @param value the value
     * @return the revision after {@code value}, or {@code null} if someone else wrote first (nothing was written)
     * @throws IllegalArgumentException if {@code latestRevision} is of another stream, or the value is larger than an
     *     event may be (8 MiB)
     */
    Revision writeConditionally(Revision latestRevision, T value);

    /**
     * Appends {@code value} at the log's end, whatever is there.
     *
     * @throws IllegalArgumentException if the value is larger than an event may be (8 MiB)
     */
    void writeUnconditionally(T value);

    /** @return the mark, or {@code null} if none is set */
    Revision getMark();

    /**
     * Moves the mark to {@code newLocation} if it is {@code expected} now (atomically, on the segment store).
     *
     * @param expected the mark as last read, {@code null} for "no mark"
     * @param newLocation the new mark, {@code null} to clear it
     * @return true if the mark was moved, false if it was not {@code expected}
     * @throws IllegalArgumentException if a revision is of another stream
     */
    boolean compareAndSetMark(Revision expected, Revision newLocation);

    /**
     * Discards the values before {@code revision}: reading from an older revision then fails with
     * {@link io.sluice.errors.SegmentTruncatedException}. Truncating below the current start does nothing.
     *
     * @throws IllegalArgumentException if {@code revision} is of another stream
     * @throws io.sluice.errors.InvalidRequestException if {@code revision} is beyond the log's end
     */
    void truncateToRevision(Revision revision);

    /** Ends this client's append session; later writes throw {@link IllegalStateException}. Idempotent. */
    @Override
    void close();
}
