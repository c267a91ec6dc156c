package io.sluice.server.controller;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.common.KeyHash;
import io.sluice.server.controller.Journal.Decision;
import io.sluice.server.controller.StreamMeta.WriterMark;
import io.sluice.wire.EventFrames;
import io.sluice.wire.Watermark;
import io.sluice.wire.Watermark.SegmentWithRange;

/**
 * Periodic watermarking, as Pravega 0.13's controller does it ({@code PeriodicWatermarking}): on each pass, for every
 * stream with writer marks, the marks of the <em>active</em> writers give a watermark — the least and greatest time
 * they noted, and an upper bound on their positions completed into a stream cut — which is appended to the stream's
 * {@code _MARK<stream>} segment as one event ({@link Watermark}'s bytes). See docs/watermarks.md.
 *
 * <ul>
 *   <li>A writer <em>participates</em> if its time is after the previous watermark's lower bound. One that does not
 *       is still active until it has not participated for the stream's {@code timestampAggregationTimeout} (counted
 *       from the pass that first saw it behind) — or at once if it shut down ({@code removeWriter}). Inactive
 *       writers' marks are dropped.</li>
 *   <li>A watermark is written only if every active writer participates and the least time is after the previous
 *       watermark's lower bound; otherwise the pass writes nothing (and waits for writers to note or time out).</li>
 * </ul>
 *
 * <p>What is kept in memory only (as in Pravega's controller): the previous watermark (read back from the segment
 * after a restart, from its {@code RevisionStreamClientMark} attribute on, which is kept as Pravega keeps it) and
 * since when each writer has been behind. Passes over one stream run on its serial key.
 * Thread-safe.
 */
final class Watermarks {
    private static final Logger LOG = LoggerFactory.getLogger(Watermarks.class);
    private static final int READ_CHUNK = 64 * 1024;
    /**
     * The attribute Pravega's controller keeps on a {@code _MARK} segment (its revisioned stream client's mark): the
     * revision where the last watermark starts (once there are two), so a restarted controller reads only that one.
     */
    static final UUID MARK_ATTRIBUTE = KeyHash.attributeId("RevisionStreamClientMark");
    private static final long NO_MARK = Long.MIN_VALUE;

    private final Journal journal;
    private final SerialExecutors executors;
    private final SegmentAdmin admin;
    private final Clock clock;
    /** Per scoped stream name; an entry goes with its stream. */
    private final ConcurrentHashMap<String, StreamState> states = new ConcurrentHashMap<>();

    /** What a stream's passes remember; touched only on the stream's serial key. */
    private static final class StreamState {
        /** The last watermark written, or null if none. */
        Watermark previous;
        /** The mark segment's length when last seen, -1 to ask again. */
        long markLength = -1;
        /** Its {@code RevisionStreamClientMark} attribute as last seen or set. */
        long mark = NO_MARK;
        /** Writer → when a pass first found it behind the previous watermark. */
        final Map<String, Long> behindSince = new HashMap<>();
    }

    /**
     * A pass's decision for one stream.
     *
     * @param watermark what to write, or null
     * @param inactive writers whose marks to drop, with the mark the decision saw
     */
    record Outcome(Watermark watermark, Map<String, WriterMark> inactive) {
    }

    /** Looks up what the stream's metadata says about segments. */
    interface Segments {
        /** @return the segment's id and range, or null if the stream never had it */
        SegmentWithRange segment(long segmentId);

        /** @return the segments of an epoch */
        List<SegmentWithRange> epoch(int epoch);

        /** @return the active epoch's number */
        int activeEpoch();
    }

    Watermarks(Journal journal, SerialExecutors executors, SegmentAdmin admin, Clock clock) {
        this.journal = journal;
        this.executors = executors;
        this.admin = admin;
        this.clock = clock;
    }

    /**
     * One pass: computes and writes a watermark for every stream with writer marks. Blocks until done; failures of
     * one stream are logged and do not stop the others.
     *
     * @return how many watermarks were written
     */
    int run() {
        record Name(String scope, String stream) {
        }
        record Streams(List<Name> withMarks, Set<String> existing) {
        }
        Streams all = journal.read(m -> {
            List<Name> names = new ArrayList<>();
            Set<String> existing = new HashSet<>();
            m.scopes().values().forEach(scope -> scope.streams.values().forEach(s -> {
                existing.add(Names.scoped(s.scope, s.name));
                if (!s.markStream && !s.writers.isEmpty() && s.state != StreamMeta.State.CREATING) {
                    names.add(new Name(s.scope, s.name));
                }
            }));
            return new Streams(names, existing);
        });
        // what is remembered of a stream lasts while it exists (a stream whose writers left keeps its previous
        // watermark, so it need not be read back when writers return)
        states.keySet().retainAll(all.existing());
        List<Name> streams = all.withMarks();
        int written = 0;
        for (Name n : streams) {
            try {
                Boolean wrote = SerialExecutors.await(executors.submit(ControllerCore.streamKey(n.scope(), n.stream()),
                        () -> watermark(n.scope(), n.stream())));
                written += Boolean.TRUE.equals(wrote) ? 1 : 0;
            } catch (RuntimeException e) {
                LOG.warn("watermarking {} failed; trying again on the next pass", Names.scoped(n.scope(), n.stream()),
                        e);
            }
        }
        return written;
    }

    /** One stream's pass. Runs on the stream's key. @return whether a watermark was written */
    private boolean watermark(String scope, String stream) {
        String scoped = Names.scoped(scope, stream);
        StreamState state = states.computeIfAbsent(scoped, k -> new StreamState());
        String markSegment = Names.segmentName(scope, Names.markStream(stream), 0);
        if (state.markLength < 0) {
            Optional<SegmentAdmin.SegmentInfo> info = admin.segmentInfo(markSegment);
            if (info.isEmpty()) {
                return false;
            }
            long start = info.get().startOffset();
            long length = info.get().length();
            state.mark = admin.attribute(markSegment, MARK_ATTRIBUTE);
            if (state.mark == NO_MARK) {
                // as Pravega's WatermarkClient.reinitialize: an unset mark starts at the oldest revision
                state.mark = admin.compareAndSetAttribute(markSegment, MARK_ATTRIBUTE, NO_MARK, start) ? start
                        : admin.attribute(markSegment, MARK_ATTRIBUTE);
            }
            Watermark last = null;
            if (state.mark >= start && state.mark <= length) {
                last = lastWatermark(markSegment, state.mark, length);
            }
            state.previous = last != null ? last : lastWatermark(markSegment, start, length);
            state.markLength = length;
        }
        long now = clock.millis();
        Outcome outcome = journal.read(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s == null || s.state == StreamMeta.State.DELETING) {
                return new Outcome(null, Map.of());
            }
            return compute(s.writers, s.config.getTimestampAggregationTimeout(), state.previous, state.behindSince,
                    now, segmentsOf(s));
        });
        for (Map.Entry<String, WriterMark> e : outcome.inactive().entrySet()) {
            journal.write(m -> {
                StreamMeta s = m.stream(scope, stream);
                WriterMark current = s == null ? null : s.writers.get(e.getKey());
                // a writer that noted a new mark meanwhile stays
                return current == null || !current.equals(e.getValue()) ? Decision.of(null)
                        : Decision.of(null, new ControllerEvent.WriterRemoved(scope, stream, e.getKey()));
            });
            state.behindSince.remove(e.getKey());
        }
        if (outcome.watermark() == null) {
            return false;
        }
        long length = admin.appendEvent(markSegment, state.markLength, outcome.watermark().encode());
        if (length < 0) {
            state.markLength = -1;  // someone else wrote: read the segment again on the next pass
            return false;
        }
        if (state.previous != null) {
            // Pravega moves the mark to the revision after the previous watermark: where the new one starts
            long newMark = state.markLength;
            state.mark = admin.compareAndSetAttribute(markSegment, MARK_ATTRIBUTE, state.mark, newMark) ? newMark
                    : admin.attribute(markSegment, MARK_ATTRIBUTE);
        }
        state.markLength = length;
        state.previous = outcome.watermark();
        return true;
    }

    /** @return the last watermark in the segment between {@code from} (an event boundary) and {@code end}, or null */
    private Watermark lastWatermark(String segment, long from, long end) {
        ByteBuffer last = null;
        try {
            EventFrames.Reassembler events = new EventFrames.Reassembler(from, 16 * 1024 * 1024);
            long offset = from;
            while (offset < end) {
                ByteBuffer data = admin.read(segment, offset, (int) Math.min(READ_CHUNK, end - offset));
                if (!data.hasRemaining()) {
                    break;
                }
                offset += data.remaining();
                events.add(data);
                for (ByteBuffer e; (e = events.take()) != null; ) {
                    last = e;
                }
            }
            return last == null ? null : Watermark.decode(last);
        } catch (RuntimeException e) {
            LOG.warn("no watermark at the end of {} read from {} ({}); starting afresh", segment, from,
                    e.getMessage());
            return null;
        }
    }

    private static Segments segmentsOf(StreamMeta s) {
        return new Segments() {
            @Override
            public SegmentWithRange segment(long segmentId) {
                SegmentRecord r = s.segment(segmentId);
                return r == null ? null : range(r);
            }

            @Override
            public List<SegmentWithRange> epoch(int epoch) {
                EpochRecord e = s.epoch(epoch);
                return e == null ? List.of() : e.segments().stream().map(Watermarks::range).toList();
            }

            @Override
            public int activeEpoch() {
                return s.activeEpoch().epoch();
            }
        };
    }

    private static SegmentWithRange range(SegmentRecord r) {
        return new SegmentWithRange(r.id(), r.keyStart(), r.keyEnd());
    }

    // ------------------------------------------------------------------ the algorithm (pure but for behindSince)

    /**
     * Decides a pass for one stream.
     *
     * @param writers the writers' marks
     * @param timeoutMillis the stream's timestamp aggregation timeout
     * @param previous the last watermark written, or null
     * @param behindSince writer → when it was first seen behind {@code previous}; updated
     * @param now the time of the pass
     * @param segments the stream's segments
     * @return what to write and which marks to drop
     */
    static Outcome compute(Map<String, WriterMark> writers, long timeoutMillis, Watermark previous,
                           Map<String, Long> behindSince, long now, Segments segments) {
        long previousLower = previous == null ? Long.MIN_VALUE : previous.lowerTimeBound();
        List<WriterMark> active = new ArrayList<>();
        Map<String, WriterMark> inactive = new LinkedHashMap<>();
        boolean allParticipate = true;
        for (Map.Entry<String, WriterMark> e : writers.entrySet()) {
            WriterMark mark = e.getValue();
            boolean participates = previous == null || mark.timestamp() > previousLower;
            if (participates) {
                behindSince.remove(e.getKey());
                active.add(mark);
                continue;
            }
            long since = behindSince.computeIfAbsent(e.getKey(), k -> now);
            if (mark.alive() && now - since < timeoutMillis) {
                active.add(mark);
                allParticipate = false;
            } else {
                inactive.put(e.getKey(), mark);
            }
        }
        if (active.isEmpty() || !allParticipate) {
            return new Outcome(null, inactive);
        }
        long lower = Long.MAX_VALUE;
        long upper = Long.MIN_VALUE;
        for (WriterMark m : active) {
            lower = Math.min(lower, m.timestamp());
            upper = Math.max(upper, m.timestamp());
        }
        if (lower <= previousLower) {
            return new Outcome(null, inactive);
        }
        Map<SegmentWithRange, Long> bound = new LinkedHashMap<>();
        for (WriterMark m : active) {
            Map<SegmentWithRange, Long> position = new LinkedHashMap<>();
            m.position().forEach((id, offset) -> {
                SegmentWithRange s = segments.segment(id);
                if (s != null) {
                    position.put(s, offset);
                }
            });
            addToUpperBound(position, bound);
        }
        return new Outcome(new Watermark(lower, upper, streamCut(bound, previous, segments)), inactive);
    }

    /**
     * Raises {@code bound} to cover {@code position} too: a segment's offset becomes the greater of the two; a
     * segment is left out if a successor (overlapping, higher id) is in already, and takes out its predecessors.
     */
    static void addToUpperBound(Map<SegmentWithRange, Long> position, Map<SegmentWithRange, Long> bound) {
        for (Map.Entry<SegmentWithRange, Long> e : position.entrySet()) {
            SegmentWithRange segment = e.getKey();
            Long there = bound.get(segment);
            if (there != null) {
                bound.put(segment, Math.max(there, e.getValue()));
            } else if (bound.keySet().stream().noneMatch(x -> segment.overlaps(x)
                    && segment.segmentId() < x.segmentId())) {
                bound.keySet().removeIf(x -> segment.overlaps(x) && segment.segmentId() > x.segmentId());
                bound.put(segment, e.getValue());
            }
        }
    }

    /**
     * Completes an upper bound into a stream cut: the previous watermark's cut is laid over it (time and position
     * only advance), then key ranges nobody covers are filled with the highest epoch's segments at offset 0, until
     * the cut covers [0, 1).
     */
    static Map<SegmentWithRange, Long> streamCut(Map<SegmentWithRange, Long> bound, Watermark previous,
                                                 Segments segments) {
        Map<SegmentWithRange, Long> cut = new LinkedHashMap<>(bound);
        Map<Double, Double> missing = missingRanges(cut);
        if (previous != null) {
            addToUpperBound(previous.streamCut(), cut);
        }
        for (int round = 0; !missing.isEmpty() && round < 1000; round++) {
            int highest = cut.keySet().stream().mapToInt(x -> (int) (x.segmentId() >>> 32)).max()
                    .orElse(segments.activeEpoch());
            List<SegmentWithRange> epoch = segments.epoch(highest);
            for (Map.Entry<Double, Double> range : missing.entrySet()) {
                Map<SegmentWithRange, Long> fill = new LinkedHashMap<>();
                for (SegmentWithRange s : epoch) {
                    if (range.getValue() > s.rangeLow() && range.getKey() < s.rangeHigh()) {
                        fill.put(s, 0L);
                    }
                }
                addToUpperBound(fill, cut);
            }
            missing = missingRanges(cut);
        }
        return cut;
    }

    /** @return low → high of each key range in [0, 1) that no segment of the cut covers */
    static Map<Double, Double> missingRanges(Map<SegmentWithRange, Long> cut) {
        Map<Double, Double> missing = new LinkedHashMap<>();
        List<SegmentWithRange> sorted = cut.keySet().stream()
                .sorted(Comparator.comparingDouble(SegmentWithRange::rangeLow)).toList();
        if (sorted.isEmpty()) {
            missing.put(0.0, 1.0);
            return missing;
        }
        SegmentWithRange previous = sorted.getFirst();
        if (previous.rangeLow() > 0.0) {
            missing.put(0.0, previous.rangeLow());
        }
        for (int i = 1; i < sorted.size(); i++) {
            SegmentWithRange next = sorted.get(i);
            if (previous.rangeHigh() != next.rangeLow()) {
                missing.put(previous.rangeHigh(), next.rangeLow());
            }
            previous = next;
        }
        if (previous.rangeHigh() < 1.0) {
            missing.put(previous.rangeHigh(), 1.0);
        }
        return missing;
    }
}
