package io.sluice.server.controller;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.sluice.controller.grpc.v1.ScaleResponse;
import io.sluice.controller.grpc.v1.ScaleStatusResponse;
import io.sluice.controller.grpc.v1.SegmentRange;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.server.controller.ControllerEvent.KeyRange;
import io.sluice.server.controller.Journal.Decision;
import io.sluice.server.controller.StreamMeta.ScaleRecord;

import static io.sluice.server.controller.ControllerContext.requireStream;
import static io.sluice.server.controller.ControllerContext.streamKey;

/**
 * A stream's epochs and segments: scaling (manual scales, the rescale an update asks for, {@code checkScale}) and
 * the questions about which segments a stream has (current, per epoch, successors, between two stream cuts, valid
 * segments and stream cuts). A scale runs to its end on the stream's key. Thread-safe.
 */
final class Scaling {
    private final ControllerContext ctx;
    private final Journal journal;

    Scaling(ControllerContext ctx) {
        this.ctx = ctx;
        this.journal = ctx.journal();
    }

    // ---------------------------------------------------------------- scaling

    ScaleResponse scale(String scope, String stream, List<Long> sealed, List<KeyRange> requestedRanges,
                        long timestamp) {
        return ctx.onKey(streamKey(scope, stream), () -> {
            ScaleResponse refused = journal.write(m -> {
                StreamMeta s = m.stream(scope, stream);
                if (s == null || s.state != StreamMeta.State.ACTIVE) {
                    return Decision.of(scaleStatus(ScaleResponse.ScaleStreamStatus.FAILURE));
                }
                EpochRecord active = s.activeEpoch();
                for (long id : sealed) {
                    if (!active.contains(id)) {
                        return Decision.of(scaleStatus(ScaleResponse.ScaleStreamStatus.PRECONDITION_FAILED));
                    }
                }
                if (!validScaleInput(active, sealed, requestedRanges)) {
                    return Decision.of(scaleStatus(ScaleResponse.ScaleStreamStatus.FAILURE));
                }
                int after = active.segments().size() - new HashSet<>(sealed).size() + requestedRanges.size();
                if (after < s.config.getScalingPolicy().getMinNumSegments()) {
                    return Decision.of(scaleStatus(ScaleResponse.ScaleStreamStatus.PRECONDITION_FAILED));
                }
                List<KeyRange> ranges = new ArrayList<>(requestedRanges);
                ranges.sort(Comparator.comparingDouble(KeyRange::start));
                return Decision.of(null, new ControllerEvent.ScaleStarted(scope, stream, List.copyOf(
                        new LinkedHashSet<>(sealed)), ranges, timestamp));
            });
            if (refused != null) {
                return refused;
            }
            ScaleRecord scale = journal.read(m -> m.stream(scope, stream).scale);
            finishScale(scope, stream);
            return ScaleResponse.newBuilder().setStatus(ScaleResponse.ScaleStreamStatus.STARTED)
                    .addAllSegments(Protos.segmentRanges(scope, stream, scale.newSegments()))
                    .setEpoch(scale.previousEpoch()).build();
        });
    }

    private static ScaleResponse scaleStatus(ScaleResponse.ScaleStreamStatus status) {
        return ScaleResponse.newBuilder().setStatus(status).build();
    }

    /**
     * Pravega's {@code validateInputRange}: every new range is non-empty and inside [0, 1], and the new ranges cover
     * exactly what the sealed segments covered.
     */
    static boolean validScaleInput(EpochRecord active, List<Long> sealed, List<KeyRange> ranges) {
        Set<Double> starts = new HashSet<>();
        for (KeyRange r : ranges) {
            if (!(r.start() >= 0.0 && r.start() < r.end() && r.end() <= 1.0) || !starts.add(r.start())) {
                return false;
            }
        }
        List<KeyRange> old = new ArrayList<>();
        for (long id : new LinkedHashSet<>(sealed)) {
            SegmentRecord s = active.segment(id);
            old.add(new KeyRange(s.keyStart(), s.keyEnd()));
        }
        return reduce(old).equals(reduce(ranges));
    }

    /** Merges adjacent ranges into continuous blocks (Pravega's {@code RecordHelper.reduce}). */
    private static List<KeyRange> reduce(List<KeyRange> input) {
        List<KeyRange> ranges = new ArrayList<>(input);
        ranges.sort(Comparator.comparingDouble(KeyRange::start));
        List<KeyRange> result = new ArrayList<>();
        double low = -1.0;
        double high = -1.0;
        for (KeyRange range : ranges) {
            if (high != range.start()) {
                // a gap or an overlap ends the block
                if (low != -1.0 && high != -1.0) {
                    result.add(new KeyRange(low, high));
                }
                low = range.start();
                high = range.end();
            } else {
                high = range.end();
            }
        }
        if (low != -1.0 && high != -1.0) {
            result.add(new KeyRange(low, high));
        }
        return result;
    }

    /**
     * Pravega's {@code handleSegmentCountUpdates}: a fixed stream whose segment count differs from its configured
     * count, or any stream below its minimum, is scaled to that many equal key ranges. Runs on the stream's key.
     */
    void rescaleToMinimum(String scope, String stream) {
        boolean started = journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            int wanted = s.config.getScalingPolicy().getMinNumSegments();
            List<SegmentRecord> active = s.activeEpoch().segments();
            boolean fixed = s.config.getScalingPolicy().getScaleTypeValue() == 0;
            if ((fixed && active.size() != wanted) || active.size() < wanted) {
                List<Long> sealed = new ArrayList<>();
                for (SegmentRecord r : active) {
                    sealed.add(r.id());
                }
                double chunk = 1.0 / wanted;
                List<KeyRange> ranges = new ArrayList<>();
                for (int i = 0; i < wanted; i++) {
                    ranges.add(new KeyRange(i * chunk, (i + 1) * chunk));
                }
                return Decision.of(true, new ControllerEvent.ScaleStarted(scope, stream, sealed, ranges,
                        ctx.clock().millis()));
            }
            return Decision.of(false);
        });
        if (started) {
            finishScale(scope, stream);
        }
    }

    /**
     * Carries a started scale to its end: create the new segments, activate the new epoch, seal the old ones. Runs
     * on the stream's key (also after a restart).
     */
    void finishScale(String scope, String stream) {
        record Plan(ScaleRecord scale, StreamConfig config) {
        }
        Plan plan = journal.read(m -> {
            StreamMeta s = m.stream(scope, stream);
            return new Plan(s.scale, s.config);
        });
        if (plan.scale() == null) {
            return;
        }
        if (!plan.scale().epochCreated()) {
            for (SegmentRecord segment : plan.scale().newSegments()) {
                ctx.createStreamSegment(Names.segmentName(scope, stream, segment.id()), plan.config());
            }
            journal.write(m -> Decision.of(null, new ControllerEvent.ScaleEpochCreated(scope, stream)));
        }
        for (long id : plan.scale().sealedSegments()) {
            ctx.sealSegment(Names.segmentName(scope, stream, id));
        }
        journal.write(m -> Decision.of(null, new ControllerEvent.ScaleCompleted(scope, stream)));
    }

    /** Pravega's {@code checkScale}: is the scale that started from {@code epoch} done? */
    ScaleStatusResponse.ScaleStatus checkScale(String scope, String stream, int epoch) {
        return journal.read(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s == null || epoch < 0) {
                return ScaleStatusResponse.ScaleStatus.INVALID_INPUT;
            }
            EpochRecord active = s.activeEpoch();
            if (epoch > active.epoch()) {
                return ScaleStatusResponse.ScaleStatus.INVALID_INPUT;
            }
            if (active.epoch() == epoch || active.referenceEpoch() == epoch) {
                return ScaleStatusResponse.ScaleStatus.IN_PROGRESS;
            }
            if (epoch + 1 == active.referenceEpoch() && s.scale != null) {
                return ScaleStatusResponse.ScaleStatus.IN_PROGRESS;
            }
            return ScaleStatusResponse.ScaleStatus.SUCCESS;
        });
    }

    // ---------------------------------------------------------------- segments

    /** @return the active segments sorted by key (none once sealed) */
    List<SegmentRange> currentSegments(String scope, String stream) {
        return journal.read(m -> Protos.segmentRanges(scope, stream,
                requireStream(m, scope, stream).currentSegments()));
    }

    List<SegmentRange> epochSegments(String scope, String stream, int epoch) {
        if (epoch < 0) {
            throw Protos.invalid("epoch must not be negative, got " + epoch);
        }
        return journal.read(m -> {
            EpochRecord e = requireStream(m, scope, stream).epoch(epoch);
            if (e == null) {
                throw Protos.notFound("stream " + Names.scoped(scope, stream) + " has no epoch " + epoch);
            }
            return Protos.segmentRanges(scope, stream, e.segments());
        });
    }

    /** @return each successor of the segment with its predecessors' ids */
    Map<SegmentRange, List<Long>> successors(String scope, String stream, long segmentId) {
        return journal.read(m -> {
            Map<SegmentRange, List<Long>> result = new LinkedHashMap<>();
            for (Map.Entry<SegmentRecord, List<Long>> e
                    : requireStream(m, scope, stream).successors(segmentId).entrySet()) {
                result.put(Protos.segmentRange(scope, stream, e.getKey()), List.copyOf(e.getValue()));
            }
            return result;
        });
    }

    /** @return ids of the segments between two stream cuts (empty map: the start, or the current end) */
    List<Long> segmentsBetween(String scope, String stream, Map<Long, Long> from, Map<Long, Long> to) {
        if (from.isEmpty() && to.isEmpty()) {
            throw Protos.invalid("at least one of the stream cuts must be bounded");
        }
        return journal.read(m -> {
            StreamMeta s = requireStream(m, scope, stream);
            if (!s.knowsAll(from) || !s.knowsAll(to)) {
                throw Protos.invalid("a stream cut names a segment stream " + Names.scoped(scope, stream)
                        + " never had");
            }
            Map<Long, Integer> spanFrom = from.isEmpty() ? StreamMeta.spanOf(s.epochs.getFirst()) : s.span(from);
            Map<Long, Integer> spanTo = to.isEmpty() ? StreamMeta.spanOf(s.activeEpoch()) : s.span(to);
            if (!from.isEmpty() && !to.isEmpty() && !s.equalOrAfter(to, spanTo, from, spanFrom)) {
                throw Protos.invalid("the 'to' stream cut is before the 'from' stream cut");
            }
            List<Long> ids = new ArrayList<>();
            for (SegmentRecord r : s.segmentsBetween(spanFrom, spanTo)) {
                ids.add(r.id());
            }
            return ids;
        });
    }

    boolean isSegmentValid(String scope, String stream, long segmentId) {
        return journal.read(m -> requireStream(m, scope, stream).currentSegments().stream()
                .anyMatch(s -> s.id() == segmentId));
    }

    boolean isStreamCutValid(String scope, String stream, Map<Long, Long> streamCut) {
        return journal.read(m -> requireStream(m, scope, stream).isValidStreamCut(streamCut));
    }
}
