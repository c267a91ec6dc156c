package io.sluice.segment;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Semaphore;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.TimeWindow;
import io.sluice.wire.Watermark;

/**
 * Follows one stream's watermarks ({@code _MARK<stream>}, one Pravega {@code Watermark} per event) as a reader group
 * moves through the stream, and says where the group stands in time — Pravega 0.13's {@code WatermarkReaderImpl}:
 * <ul>
 *   <li>watermarks are read in order; those the position has passed give the lower bound (the last passed one's
 *       lower time bound), those still ahead are kept, and reading stops at the first one ahead of the position;</li>
 *   <li>the upper bound is the upper time bound of the last watermark kept (ahead of the position); with none
 *       ahead it is unknown;</li>
 *   <li>a position is past a watermark if, comparing each of its segments with the watermark's segments that
 *       overlap it (the same segment, or else by key range), some are after and none before — or if it is exactly
 *       at it; a segment with a higher id (a successor) is after any offset of an older one.</li>
 * </ul>
 * See docs/watermarks.md.
 *
 * <p>Thread-safe: {@link #advanceTo} calls run one at a time (each blocks for its reads of the mark segment);
 * {@link #timeWindow} never blocks.
 */
public final class WatermarkFollower implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WatermarkFollower.class);

    /** Finds a segment's key range, for segments a watermark does not name. */
    @FunctionalInterface
    public interface Ranges {
        /** @return the segment's key range, or null if unknown (then every segment of a watermark overlaps it) */
        KeyRange range(Segment segment);
    }

    /** A watermark with its segments by id. */
    private record Mark(long lower, long upper, Map<Long, Long> offsets, Map<Long, KeyRange> ranges) {
        static Mark of(Watermark w) {
            Map<Long, Long> offsets = new HashMap<>();
            Map<Long, KeyRange> ranges = new HashMap<>();
            w.streamCut().forEach((s, o) -> {
                offsets.put(s.segmentId(), o);
                ranges.put(s.segmentId(), new KeyRange(s.rangeLow(), s.rangeHigh()));
            });
            return new Mark(w.lowerTimeBound(), w.upperTimeBound(), offsets, ranges);
        }
    }

    private final ScopedStream stream;
    private final RevisionedSegment log;
    private final Ranges ranges;
    private final Semaphore advancing = new Semaphore(1);
    // ---- confined to the holder of `advancing`
    private final ArrayDeque<Mark> ahead = new ArrayDeque<>();
    private final ArrayDeque<Mark> fetched = new ArrayDeque<>();
    private long location = -1;
    private Long passed;
    // ---- published
    private volatile TimeWindow window = TimeWindow.UNKNOWN;

    /**
     * @param stream the stream whose watermarks to follow
     * @param stores where its mark segment lives
     * @param tokens delegation tokens to read the mark stream
     * @param ranges key ranges of the reader's segments
     */
    public WatermarkFollower(ScopedStream stream, SegmentStores stores, DelegationTokenProvider tokens,
                             Ranges ranges) {
        this.stream = Objects.requireNonNull(stream, "stream");
        this.ranges = Objects.requireNonNull(ranges, "ranges");
        Objects.requireNonNull(tokens, "tokens");
        this.log = new RevisionedSegment(markSegment(stream).qualifiedName(), stores, () -> tokens,
                SegmentCalls.Config.DEFAULT);
    }

    /** @return the one segment of the stream's watermark stream, {@code scope/_MARK<stream>/0.#epoch.0} */
    public static Segment markSegment(ScopedStream stream) {
        return Segment.of(ScopedStream.of(stream.scope(), "_MARK" + stream.name()), 0, 0);
    }

    /** @return the time window as of the last {@link #advanceTo} (neither bound before the first) */
    public TimeWindow timeWindow() {
        return window;
    }

    /**
     * Moves to a position of the group in the stream: reads watermarks until the first one ahead of it. Blocks for
     * the reads (and for another thread's advance).
     *
     * @param position segment → offset of the next event, for the stream's segments being read
     * @return the time window at that position
     */
    public TimeWindow advanceTo(Map<Segment, Long> position) {
        try {
            advancing.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while following the watermarks of " + stream, e);
        }
        try {
            while (!ahead.isEmpty() && compare(position, ahead.getFirst()) > 0) {
                passed = ahead.removeFirst().lower();
            }
            while (ahead.isEmpty() || compare(position, ahead.getLast()) >= 0) {
                Mark mark = fetchNext();
                if (mark == null) {
                    break;
                }
                if (compare(position, mark) <= 0) {
                    ahead.addLast(mark);
                } else {
                    passed = mark.lower();
                }
            }
            TimeWindow w = new TimeWindow(passed, ahead.isEmpty() ? null : ahead.getLast().upper());
            window = w;
            return w;
        } finally {
            advancing.release();
        }
    }

    /** @return the next watermark of the segment, or null if there is none yet */
    private Mark fetchNext() {
        if (fetched.isEmpty()) {
            List<RevisionedSegment.Revisioned> read;
            try {
                if (location < 0) {
                    location = log.startRevision();
                }
                read = log.readFrom(location);
            } catch (SegmentTruncatedException e) {
                location = log.startRevision();
                read = log.readFrom(location);
            } catch (NoSuchSegmentException e) {
                return null;  // no watermark stream (yet): no watermarks
            }
            for (RevisionedSegment.Revisioned r : read) {
                location = r.revision();
                try {
                    fetched.add(Mark.of(Watermark.decode(r.update())));
                } catch (RuntimeException bad) {
                    LOG.warn("skipping an event of {} that is no watermark: {}", log.segment(), bad.getMessage());
                }
            }
        }
        return fetched.poll();
    }

    /**
     * @return above 0 if the position is past the mark (or exactly at it), below 0 if it is before it, 0 if it is
     *     partly before and partly after
     */
    private int compare(Map<Segment, Long> position, Mark mark) {
        boolean below = false;
        boolean above = false;
        for (Map.Entry<Segment, Long> e : position.entrySet()) {
            long id = e.getKey().segmentId();
            for (long[] match : overlapping(e.getKey(), mark)) {
                int c = compare(id, e.getValue(), match[0], match[1]);
                if (c > 0) {
                    above = true;
                } else if (c < 0) {
                    below = true;
                }
            }
        }
        if (below && above) {
            return 0;
        }
        return below ? -1 : 1;
    }

    /** @return {id, offset} of each segment of the mark that overlaps {@code segment} */
    private List<long[]> overlapping(Segment segment, Mark mark) {
        Long same = mark.offsets().get(segment.segmentId());
        if (same != null) {
            return List.of(new long[] {segment.segmentId(), same});
        }
        KeyRange range = ranges.range(segment);
        List<long[]> result = new ArrayList<>();
        mark.ranges().forEach((id, r) -> {
            if (range == null || (r.low() < range.high() && r.high() > range.low())) {
                result.add(new long[] {id, mark.offsets().get(id)});
            }
        });
        return result;
    }

    /** Pravega's order of (segment, offset): by segment id, then by offset, a negative offset (ended) last. */
    private static int compare(long id, long offset, long otherId, long otherOffset) {
        int c = Long.compare(id, otherId);
        if (c != 0) {
            return c;
        }
        if (offset < 0 && otherOffset >= 0) {
            return 1;
        }
        if (offset >= 0 && otherOffset < 0) {
            return -1;
        }
        return Long.compare(offset, otherOffset);
    }

    @Override
    public void close() {
        log.close();
    }

    @Override
    public String toString() {
        return "WatermarkFollower[" + stream + "]";
    }
}
