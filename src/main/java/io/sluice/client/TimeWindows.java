package io.sluice.client;

import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import io.sluice.controller.ControllerClient;
import io.sluice.readergroup.ReaderGroupState;
import io.sluice.segment.SegmentStores;
import io.sluice.segment.WatermarkFollower;
import io.sluice.stream.KeyRange;
import io.sluice.stream.Position;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.TimeWindow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reader's time windows ({@code EventStreamReader.currentTimeWindow}): a {@link WatermarkFollower} per stream of
 * the group, made on the first call for that stream (so a reader that never asks reads no {@code _MARK} segment),
 * advanced to where the group stands on each call. See docs/watermarks.md. Thread-safe.
 */
final class TimeWindows implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TimeWindows.class);

    private final SegmentStores stores;
    private final ReadTokens tokens;
    private final ControllerClient controller;
    /** Watermark followers by stream, created by the first time window asked of each. */
    private final ConcurrentHashMap<ScopedStream, WatermarkFollower> followers = new ConcurrentHashMap<>();
    /** Key ranges of segments, for watermarks that do not name the segment read. */
    private final ConcurrentHashMap<Segment, KeyRange> ranges = new ConcurrentHashMap<>();

    TimeWindows(SegmentStores stores, ReadTokens tokens, ControllerClient controller) {
        this.stores = Objects.requireNonNull(stores, "stores");
        this.tokens = Objects.requireNonNull(tokens, "tokens");
        this.controller = Objects.requireNonNull(controller, "controller");
    }

    /**
     * @param group the group's state as last read
     * @param stream a stream of the group
     * @param mine this reader's position as of its last read, laid over the group's
     * @return the time window of {@code stream} where the group stands; blocks while the follower reads watermarks
     */
    TimeWindow current(ReaderGroupState group, ScopedStream stream, Position mine) {
        WatermarkFollower follower = followers.computeIfAbsent(stream, s -> new WatermarkFollower(s, stores,
                tokens.forStream(WatermarkFollower.markSegment(s).scopedStream()), this::rangeOf));
        return follower.advanceTo(groupPosition(group, stream, mine));
    }

    /**
     * @return where the group stands in {@code stream}, as Pravega's reader group state's last read positions: the
     *     unassigned segments and the readers' owned ones (this reader's as of its last read), without the segments
     *     read to their end
     */
    private static SortedMap<Segment, Long> groupPosition(ReaderGroupState group, ScopedStream stream,
                                                          Position mine) {
        SortedMap<Segment, Long> all = new TreeMap<>();
        group.unassigned().forEach(all::put);
        group.readers().forEach((id, r) -> r.segments().forEach((s, o) -> all.put(s, o.offset())));
        if (mine != null) {
            all.putAll(mine.segments());
        }
        all.keySet().removeIf(s -> !s.scopedStream().equals(stream));
        return all;
    }

    /** @return the segment's key range from the controller (cached), or null if it cannot tell */
    private KeyRange rangeOf(Segment segment) {
        KeyRange known = ranges.get(segment);
        if (known != null) {
            return known;
        }
        try {
            for (SegmentWithRange r : controller.epochSegments(segment.scopedStream(), segment.epoch()).ranges()) {
                ranges.put(r.segment(), new KeyRange(r.low(), Math.min(1.0, r.high())));
            }
        } catch (RuntimeException e) {
            LOG.debug("no key range for {}: {}", segment, e.toString());
        }
        return ranges.get(segment);
    }

    /** Closes every follower. */
    @Override
    public void close() {
        followers.values().forEach(WatermarkFollower::close);
        followers.clear();
    }
}
