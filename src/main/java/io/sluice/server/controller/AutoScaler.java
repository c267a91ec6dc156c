package io.sluice.server.controller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.common.Threads;
import io.sluice.controller.grpc.v1.ScaleResponse;
import io.sluice.controller.grpc.v1.ScalingPolicy;
import io.sluice.controller.grpc.v1.SegmentRange;
import io.sluice.server.controller.ControllerEvent.KeyRange;

/**
 * The controller's side of auto-scaling (Pravega's {@code AutoScaleTask}): turns the segment store's scale requests
 * into scales through {@link ControllerCore#scale}, the path a manual scale takes, so they are journaled and recovered
 * like any other.
 *
 * <ul>
 *   <li>scale up: the hot segment is split into {@code min(max(2, splits), max(2, scaleFactor))} equal key ranges;
 *   <li>scale down: the segment is marked cold (until the request's time plus the scale window, or for good when the
 *       request is silent); then, unless the stream is at its minimum number of segments, it is merged with those of
 *       its two neighbours that are cold too — only two segments when the stream may lose just one;
 *   <li>requests older than the scale window (Pravega: 10 minutes) are dropped; fixed streams are never scaled.
 * </ul>
 *
 * <p>Requests are handled one at a time on one virtual thread, in the order they came: never two scales of one stream
 * (or of any two streams) at once. Cold marks live in memory only (a restart forgets them; the segments are reported
 * cold again). Thread-safe.
 */
final class AutoScaler implements ScaleRequestListener {
    private static final Logger LOG = LoggerFactory.getLogger(AutoScaler.class);

    /** One request of the segment store. */
    record Request(String segment, boolean up, int splits, boolean silent, long timestampMillis) {
    }

    private static final Request STOP = new Request("", false, 0, false, 0);

    private final ControllerCore core;
    private final long windowMillis;
    private final LongSupplier clock;
    private final LinkedBlockingQueue<Request> queue = new LinkedBlockingQueue<>();
    /** Cold marks: qualified segment name to the time the mark expires. Only the worker thread touches it. */
    private final Map<String, Long> coldUntil = new HashMap<>();
    private final Thread worker;
    private volatile boolean closed;

    AutoScaler(ControllerCore core, Duration window, LongSupplier clock) {
        this.core = core;
        this.windowMillis = window.toMillis();
        this.clock = clock;
        this.worker = Threads.startVirtual("sluice-auto-scaler", this::work);
    }

    @Override
    public void scaleUp(String segment, int splits, long timestampMillis) {
        offer(new Request(segment, true, splits, false, timestampMillis));
    }

    @Override
    public void scaleDown(String segment, boolean silent, long timestampMillis) {
        offer(new Request(segment, false, 0, silent, timestampMillis));
    }

    private void offer(Request r) {
        if (!closed) {
            queue.add(r);
        }
    }

    /** Stops the worker after the request it is handling (waits up to 10 s for it). */
    @Override
    public void close() {
        closed = true;
        queue.clear();
        queue.add(STOP);
        try {
            worker.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void work() {
        while (true) {
            Request r;
            try {
                r = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            if (r == STOP || closed) {
                return;
            }
            try {
                handle(r);
            } catch (RuntimeException e) {
                // the stream went away, was sealed, or the server is closing: the next report asks again
                LOG.debug("auto-scaling request {} not carried out: {}", r, e.toString());
            }
        }
    }

    /** Handles one request (on the worker thread). */
    void handle(Request r) {
        long now = clock.getAsLong();
        if (r.timestampMillis() + windowMillis <= now) {
            LOG.info("auto-scaling request for {} expired", r.segment());
            return;
        }
        SegmentName name = SegmentName.parse(r.segment());
        if (name == null) {
            return;
        }
        ScalingPolicy policy = core.streamConfig(name.scope(), name.stream()).getScalingPolicy();
        if (policy.getScaleType() == ScalingPolicy.ScalingPolicyType.FIXED_NUM_SEGMENTS) {
            return;
        }
        List<SegmentRange> active = core.currentSegments(name.scope(), name.stream());
        SegmentRange current = active.stream().filter(s -> s.getSegmentId().getSegmentId() == name.id())
                .findFirst().orElse(null);
        if (r.up()) {
            if (current != null) {
                scaleUp(name, current, r.splits(), policy);
            }
        } else {
            coldUntil.put(r.segment(), r.silent() ? Long.MAX_VALUE : r.timestampMillis() + windowMillis);
            if (current != null && active.size() > policy.getMinNumSegments()) {
                scaleDown(name, current, active, active.size() - policy.getMinNumSegments(), now);
            }
        }
    }

    private void scaleUp(SegmentName name, SegmentRange segment, int requested, ScalingPolicy policy) {
        int splits = Math.min(Math.max(2, requested), Math.max(2, policy.getScaleFactor()));
        double low = segment.getMinKey();
        double high = segment.getMaxKey();
        double width = (high - low) / splits;
        List<KeyRange> ranges = new ArrayList<>(splits);
        for (int i = 0; i < splits; i++) {
            // the last range ends exactly where the segment did, whatever the rounding of the others
            ranges.add(new KeyRange(low + width * i, i == splits - 1 ? high : low + width * (i + 1)));
        }
        scale(name, List.of(name.id()), ranges, "split " + name.id() + " into " + splits);
    }

    private void scaleDown(SegmentName name, SegmentRange current, List<SegmentRange> active, int mayLose, long now) {
        List<SegmentRange> cold = new ArrayList<>();
        for (SegmentRange s : active) {
            boolean neighbour = s.getMaxKey() == current.getMinKey() || s.getMinKey() == current.getMaxKey()
                    || s == current;
            String segmentName = Names.segmentName(name.scope(), name.stream(), s.getSegmentId().getSegmentId());
            if (neighbour && coldUntil.getOrDefault(segmentName, Long.MIN_VALUE) > now) {
                cold.add(s);
            }
        }
        cold.sort(Comparator.comparingDouble(SegmentRange::getMinKey));
        if (mayLose == 1 && cold.size() == 3) {
            cold = cold.subList(0, 2);
        }
        if (cold.size() < 2) {
            return;
        }
        List<Long> sealed = cold.stream().map(s -> s.getSegmentId().getSegmentId()).toList();
        KeyRange merged = new KeyRange(cold.get(0).getMinKey(), cold.get(cold.size() - 1).getMaxKey());
        if (scale(name, sealed, List.of(merged), "merge " + sealed)) {
            for (long id : sealed) {
                coldUntil.remove(Names.segmentName(name.scope(), name.stream(), id));
            }
        }
    }

    private boolean scale(SegmentName name, List<Long> sealed, List<KeyRange> ranges, String what) {
        ScaleResponse response = core.scale(name.scope(), name.stream(), sealed, ranges, clock.getAsLong());
        boolean started = response.getStatus() == ScaleResponse.ScaleStreamStatus.STARTED;
        if (started) {
            LOG.info("auto-scaling {}/{}: {}", name.scope(), name.stream(), what);
        } else {
            LOG.debug("auto-scaling {}/{}: {} refused: {}", name.scope(), name.stream(), what, response.getStatus());
        }
        return started;
    }

    /** A stream segment's qualified name taken apart. */
    record SegmentName(String scope, String stream, long id) {
        private static final String EPOCH = ".#epoch.";

        /** @return the parts of {@code scope/stream/number.#epoch.epoch}, or null for any other name */
        static SegmentName parse(String qualified) {
            String[] parts = qualified.split("/", -1);
            if (parts.length != 3) {
                return null;
            }
            int at = parts[2].indexOf(EPOCH);
            if (at <= 0) {
                return null;
            }
            try {
                int number = Integer.parseInt(parts[2].substring(0, at));
                int epoch = Integer.parseInt(parts[2].substring(at + EPOCH.length()));
                return new SegmentName(parts[0], parts[1], Names.segmentId(number, epoch));
            } catch (NumberFormatException e) {
                return null;
            }
        }
    }
}
