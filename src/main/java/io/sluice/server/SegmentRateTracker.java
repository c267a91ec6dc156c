package io.sluice.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.common.Threads;
import io.sluice.server.controller.ScaleRequestListener;
import io.sluice.wire.CreateSegment;
import io.sluice.wire.DeleteSegment;
import io.sluice.wire.SealSegment;
import io.sluice.wire.SegmentCreated;
import io.sluice.wire.SegmentDeleted;
import io.sluice.wire.SegmentPolicyUpdated;
import io.sluice.wire.SegmentSealed;
import io.sluice.wire.UpdateSegmentPolicy;

/**
 * The segment store's side of auto-scaling (Pravega's {@code SegmentAggregates} and {@code AutoScaleProcessor}):
 * measures the event or byte rate of every stream segment whose policy scales by one, and asks the controller, through
 * a {@link ScaleRequestListener}, to split a segment that runs hot and to merge one that runs cold or sits idle.
 *
 * <p>Rates are exponentially weighted moving averages over four windows, ticked every {@link Windows#tick()}; the
 * rule and every duration are Pravega's, scaled by one <i>scale window</i> (Pravega's: 10 minutes), see
 * {@link Windows} and docs/scaling.md. Byte rates are compared with the target in KiB per second, event rates in events
 * per second.
 *
 * <p>Fed by the containers' applied changes ({@link ContainerObserver}): appends add to the counts, created segments
 * are tracked from their creation, sealed and deleted ones are forgotten. Transaction segments are not tracked.
 * Thread-safe: one lock guards the rates; nothing under it blocks, and requests go to the listener after it is released.
 */
final class SegmentRateTracker implements ContainerObserver, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentRateTracker.class);
    /** Pravega's scale window: its cool-down, mute and request-validity periods and its 10-minute rate. */
    static final Duration PRAVEGA_WINDOW = Duration.ofMinutes(10);
    /** {@code CreateSegment} scale types (Pravega's {@code ScaleType}). */
    static final byte NO_SCALING = 0;
    static final byte BY_BYTES = 1;
    static final byte BY_EVENTS = 2;

    /** Ticks per scale window: Pravega ticks every 5 s with a 10-minute window. */
    private static final int TICKS_PER_WINDOW = 120;
    private static final double TICK_SECONDS = 5.0;
    // exponential weights per tick, as Pravega's (window / tick does not depend on the scale window)
    private static final double ALPHA_2 = 1 - StrictMath.exp(-TICK_SECONDS / 120.0);
    private static final double ALPHA_5 = 1 - StrictMath.exp(-TICK_SECONDS / 300.0);
    private static final double ALPHA_10 = 1 - StrictMath.exp(-TICK_SECONDS / 600.0);
    private static final double ALPHA_20 = 1 - StrictMath.exp(-TICK_SECONDS / 1200.0);

    /**
     * Every duration of the rule, from one scale window {@code w} (Pravega's durations for {@code w} = 10 minutes).
     *
     * @param window the scale window: the cool-down after a segment's creation, the mute period between two requests
     *     of one kind for one segment, and the longest of the scale-up rates ("10 minutes")
     */
    record Windows(Duration window) {
        Windows {
            Objects.requireNonNull(window, "window");
            if (window.toMillis() < TICKS_PER_WINDOW / 10) {
                throw new IllegalArgumentException("the scale window must be at least 12 ms: " + window);
            }
        }

        long windowMillis() {
            return window.toMillis();
        }

        /** @return how often rates are updated and the rule applied ("5 seconds") */
        long tickMillis() {
            return Math.max(1, windowMillis() / TICKS_PER_WINDOW);
        }

        /** @return the shortest rate's window ("2 minutes") */
        long shortMillis() {
            return windowMillis() / 5;
        }

        /** @return the middle rate's window ("5 minutes") */
        long middleMillis() {
            return windowMillis() / 2;
        }

        /** @return the scale-down rate's window, and how long a segment may be idle before it asks to merge ("20 minutes") */
        long longMillis() {
            return windowMillis() * 2;
        }
    }

    /** One tracked segment's rates. Guarded by the tracker's lock. */
    private static final class Rates {
        byte type;
        int target;
        final long start;
        long lastTick;
        long lastActivity;
        long count;
        double rate2;
        double rate5;
        double rate10;
        double rate20;
        long lastUp;
        long lastDown;
        boolean idleReported;

        Rates(byte type, int target, long now) {
            this.type = type;
            this.target = target;
            this.start = now;
            this.lastTick = now;
            this.lastActivity = now;
            // a new segment is muted as if it had just asked both ways (Pravega's notifyCreated)
            this.lastUp = now;
            this.lastDown = now;
        }

        void decay(long count, double seconds) {
            rate2 = decayed(rate2, count, seconds, ALPHA_2);
            rate5 = decayed(rate5, count, seconds, ALPHA_5);
            rate10 = decayed(rate10, count, seconds, ALPHA_10);
            rate20 = decayed(rate20, count, seconds, ALPHA_20);
        }

        private static double decayed(double rate, long count, double seconds, double alpha) {
            double instant = count / seconds;
            // as Pravega: the first measurement is taken as it is
            return rate == 0 ? instant : rate + alpha * (instant - rate);
        }

        /** @return a rate in the target's unit (KiB/s for byte rates) */
        double inTargetUnit(double rate) {
            return type == BY_BYTES ? rate / 1024 : rate;
        }
    }

    /** A request decided under the lock, made after it. */
    private record Decision(String segment, boolean up, int splits, boolean silent, long at) {
    }

    private final Windows windows;
    private final LongSupplier clock;
    private final ScaleRequestListener listener;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by lock. */
    private final Map<String, Rates> segments = new HashMap<>();
    private final CountDownLatch stopping = new CountDownLatch(1);
    private Thread timer;

    /**
     * A tracker that ticks only when {@link #tick()} is called (tests drive it with their own clock).
     *
     * @param clock the time in milliseconds
     */
    SegmentRateTracker(Windows windows, LongSupplier clock, ScaleRequestListener listener) {
        this.windows = Objects.requireNonNull(windows, "windows");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Starts tracking every container of {@code store} on the system clock, ticking on a virtual thread of its own.
     *
     * @return the tracker; close it to stop
     */
    static SegmentRateTracker start(SegmentStore store, Duration window, ScaleRequestListener listener) {
        SegmentRateTracker tracker = new SegmentRateTracker(new Windows(window), System::currentTimeMillis, listener);
        for (SegmentContainer c : store.containers()) {
            c.observe(tracker);
        }
        tracker.timer = Threads.startVirtual("sluice-scale-rates", tracker::tickLoop);
        return tracker;
    }

    Windows windows() {
        return windows;
    }

    @Override
    public void applied(ContainerOp op, Object result, Segment segment) {
        switch (op) {
            case ContainerOp.Append a -> {
                if (segment != null && segment.scaleType != NO_SCALING
                        && result instanceof SegmentContainer.AppendResult.Appended) {
                    appended(a.segment(), segment.scaleType, segment.targetRate, a.eventCount(), a.data().remaining());
                }
            }
            case ContainerOp.Wire w -> {
                switch (w.request()) {
                    case CreateSegment c when result instanceof SegmentCreated -> policy(c.segment(), c.scaleType(),
                            c.targetRate());
                    case UpdateSegmentPolicy c when result instanceof SegmentPolicyUpdated -> policy(c.segment(),
                            c.scaleType(), c.targetRate());
                    case SealSegment c when result instanceof SegmentSealed -> forget(c.segment());
                    case DeleteSegment c when result instanceof SegmentDeleted -> forget(c.segment());
                    default -> {
                    }
                }
            }
            case ContainerOp.CreateTransient t -> {
            }
        }
    }

    private static boolean tracked(String segment, byte scaleType, int targetRate) {
        return (scaleType == BY_BYTES || scaleType == BY_EVENTS) && targetRate > 0
                && !segment.contains("#transaction.") && !segment.contains("#transient.");
    }

    /** A segment was created with, or changed to, this policy. */
    void policy(String segment, byte scaleType, int targetRate) {
        lock.lock();
        try {
            if (!tracked(segment, scaleType, targetRate)) {
                segments.remove(segment);
                return;
            }
            Rates r = segments.get(segment);
            if (r == null) {
                segments.put(segment, new Rates(scaleType, targetRate, clock.getAsLong()));
            } else {
                r.type = scaleType;
                r.target = targetRate;
            }
        } finally {
            lock.unlock();
        }
    }

    /** An append of {@code events} events, {@code bytes} bytes, to a segment with this policy. */
    void appended(String segment, byte scaleType, int targetRate, int events, long bytes) {
        if (!tracked(segment, scaleType, targetRate)) {
            return;
        }
        lock.lock();
        try {
            long now = clock.getAsLong();
            // a segment from before a restart is tracked from its first append
            Rates r = segments.computeIfAbsent(segment, k -> new Rates(scaleType, targetRate, now));
            r.type = scaleType;
            r.target = targetRate;
            r.count += scaleType == BY_BYTES ? bytes : events;
            r.lastActivity = now;
            r.idleReported = false;
        } finally {
            lock.unlock();
        }
    }

    /** The segment was sealed or deleted: it will not scale again. */
    void forget(String segment) {
        lock.lock();
        try {
            segments.remove(segment);
        } finally {
            lock.unlock();
        }
    }

    /** @return the segment's rates in the target's unit (2, 5, 10 and 20 "minute"), or null if it is not tracked */
    double[] rates(String segment) {
        lock.lock();
        try {
            Rates r = segments.get(segment);
            return r == null ? null : new double[] {r.inTargetUnit(r.rate2), r.inTargetUnit(r.rate5),
                    r.inTargetUnit(r.rate10), r.inTargetUnit(r.rate20)};
        } finally {
            lock.unlock();
        }
    }

    /** Updates every tracked segment's rates to now and makes the scale requests the rule asks for. */
    void tick() {
        List<Decision> decisions = new ArrayList<>();
        lock.lock();
        try {
            long now = clock.getAsLong();
            for (Map.Entry<String, Rates> e : segments.entrySet()) {
                Rates r = e.getValue();
                // as in Pravega, where appends trigger the reports: the rate rule applies to segments with traffic
                boolean traffic = r.count > 0;
                advance(r, now);
                decide(e.getKey(), r, now, traffic, decisions);
            }
        } finally {
            lock.unlock();
        }
        for (Decision d : decisions) {
            try {
                if (d.up()) {
                    LOG.debug("asking to split {} in {}", d.segment(), d.splits());
                    listener.scaleUp(d.segment(), d.splits(), d.at());
                } else {
                    LOG.debug("asking to merge {}{}", d.segment(), d.silent() ? " (idle)" : "");
                    listener.scaleDown(d.segment(), d.silent(), d.at());
                }
            } catch (RuntimeException ex) {
                LOG.warn("the scale request for {} failed", d.segment(), ex);
            }
        }
    }

    /** Pravega's {@code SegmentAggregates.update}: decays the rates over the ticks since the last one. */
    private void advance(Rates r, long now) {
        long tick = windows.tickMillis();
        long age = now - r.lastTick;
        if (age < tick) {
            return;
        }
        long iterations = age / tick;
        double tickSeconds = tick / 1000.0;
        // silent ticks (none of this tracker's timer, e.g. after a pause) decay with no traffic
        for (long i = 0; i < iterations - 1; i++) {
            r.decay(0, tickSeconds);
        }
        r.decay(r.count, (age - (iterations - 1) * tick) / 1000.0);
        r.count = 0;
        r.lastTick = now;
    }

    /** Pravega's {@code AutoScaleProcessor.report}, plus its cache expiry of idle segments. */
    private void decide(String segment, Rates r, long now, boolean traffic, List<Decision> out) {
        long window = windows.windowMillis();
        if (now - r.lastActivity > windows.longMillis() && !r.idleReported) {
            // idle (Pravega: the segment fell out of the auto-scaler's cache): a silent scale down, not muted
            r.idleReported = true;
            out.add(new Decision(segment, false, 0, true, now));
            return;
        }
        long age = now - r.start;
        if (!traffic || age <= window) {
            return; // the cool-down after creation
        }
        double target = r.target;
        double two = r.inTargetUnit(r.rate2);
        double five = r.inTargetUnit(r.rate5);
        double ten = r.inTargetUnit(r.rate10);
        double twenty = r.inTargetUnit(r.rate20);
        boolean hot = (two > 5 * target && age > windows.shortMillis())
                || (five > 2 * target && age > windows.middleMillis())
                || (ten > target && age > window);
        if (hot && now - r.lastUp > window) {
            int splits = Math.max(2, (int) (Math.max(Math.max(two, five), ten) / target));
            r.lastUp = now;
            r.lastDown = now;
            out.add(new Decision(segment, true, splits, false, now));
        }
        boolean cold = two < target && five < target && ten < target && twenty < target / 2.0
                && age > windows.longMillis();
        if (cold && now - r.lastDown > window) {
            r.lastDown = now;
            out.add(new Decision(segment, false, 0, false, now));
        }
    }

    private void tickLoop() {
        try {
            while (!stopping.await(windows.tickMillis(), TimeUnit.MILLISECONDS)) {
                try {
                    tick();
                } catch (RuntimeException e) {
                    LOG.warn("updating segment rates failed", e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the timer. Idempotent. */
    @Override
    public void close() {
        stopping.countDown();
        Thread t = timer;
        if (t != null) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
