package io.sluice.client;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import io.sluice.auth.AccessOperation;
import io.sluice.batch.BatchClient;
import io.sluice.batch.SegmentIterator;
import io.sluice.batch.SegmentRange;
import io.sluice.controller.ControllerClient;
import io.sluice.controller.SegmentSet;
import io.sluice.segment.DelegationTokenProvider;
import io.sluice.segment.SegmentInfo;
import io.sluice.segment.SegmentMetadataClient;
import io.sluice.segment.SegmentStores;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.Serializer;
import io.sluice.stream.StreamCut;

/**
 * The batch client: the controller's segments between two cuts ({@code getSegmentsBetween}), their offsets from the
 * cuts or, where a cut does not name a segment, from the segment store's info (as Pravega's BatchClientImpl does),
 * and a {@link SegmentIteratorImpl} per range. With both cuts unbounded the controller is asked from the head cut. Delegation tokens are kept per stream.
 */
final class BatchClientImpl implements BatchClient {
    private final ControllerClient controller;
    private final SegmentStores stores;
    private final Map<ScopedStream, DelegationTokenProvider> tokens = new ConcurrentHashMap<>();

    BatchClientImpl(ControllerClient controller, SegmentStores stores) {
        this.controller = controller;
        this.stores = stores;
    }

    private DelegationTokenProvider tokens(ScopedStream stream) {
        return tokens.computeIfAbsent(stream, s -> DelegationTokenProvider.fromController(controller, s,
                AccessOperation.READ));
    }

    private SegmentMetadataClient metadata(Segment segment) {
        return new SegmentMetadataClient(stores.calls(), segment.qualifiedName(), tokens(segment.scopedStream()));
    }

    @Override
    public List<SegmentRange> segments(ScopedStream stream, StreamCut from, StreamCut to) {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        requireOf(stream, from, "from");
        requireOf(stream, to, "to");
        // the controller wants one bounded cut; an unbounded start is the head (offsets then come from the info)
        SegmentSet set = controller.segmentsBetween(stream,
                from.isUnbounded() && to.isUnbounded() ? controller.headStreamCut(stream) : from, to);
        List<SegmentRange> ranges = new ArrayList<>(set.segments().size());
        for (Segment s : set.segments()) {
            Long start = from.positions().get(s);
            Long end = to.positions().get(s);
            if (start == null || end == null || end < 0) {
                SegmentInfo info = metadata(s).info();
                start = start == null ? info.startOffset() : start;
                end = end == null || end < 0 ? info.length() : end;
            }
            if (end < start) {
                throw new IllegalArgumentException("cut " + to + " ends segment " + s + " at " + end
                        + ", before cut " + from + " starts it at " + start + ": the cuts are the wrong way round");
            }
            ranges.add(new SegmentRange(s, start, end));
        }
        return List.copyOf(ranges);
    }

    private static void requireOf(ScopedStream stream, StreamCut cut, String which) {
        if (!cut.isUnbounded() && !cut.isFor(stream)) {
            throw new IllegalArgumentException("cut '" + which + "' " + cut + " is not a cut of stream " + stream);
        }
    }

    @Override
    public <T> SegmentIterator<T> readSegment(SegmentRange range, Serializer<T> serializer) {
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(serializer, "serializer");
        return new SegmentIteratorImpl<>(range, serializer, stores, tokens(range.stream()));
    }

    @Override
    public StreamCut nextStreamCut(StreamCut cut, long approximateDistanceBytes) {
        Objects.requireNonNull(cut, "cut");
        if (cut.isUnbounded()) {
            throw new IllegalArgumentException("nextStreamCut needs a bounded cut, not " + cut
                    + " (take the head with StreamManager.streamInfo(...).head())");
        }
        if (approximateDistanceBytes <= 0) {
            throw new IllegalArgumentException("approximateDistanceBytes must be positive: " + approximateDistanceBytes);
        }
        long share = Math.max(1, approximateDistanceBytes / cut.positions().size());
        Map<Segment, Long> next = new HashMap<>();
        for (Map.Entry<Segment, Long> e : cut.positions().entrySet()) {
            long offset = e.getValue();
            if (offset < 0) {
                throw new IllegalArgumentException("cut " + cut + " has no offset for " + e.getKey()
                        + " (" + offset + "): nextStreamCut needs an offset in every segment");
            }
            long target = offset > Long.MAX_VALUE - share ? Long.MAX_VALUE : offset + share;
            next.put(e.getKey(), Math.max(offset, metadata(e.getKey()).locateOffset(target)));
        }
        return StreamCut.of(new TreeMap<>(next));
    }

    @Override
    public String toString() {
        return "BatchClient[" + controller + "]";
    }
}
