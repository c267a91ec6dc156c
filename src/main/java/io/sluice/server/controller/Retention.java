package io.sluice.server.controller;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.common.Threads;
import io.sluice.controller.grpc.v1.RetentionPolicy;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;
import io.sluice.server.controller.SegmentAdmin.SegmentInfo;

/**
 * Periodic stream retention, as Pravega 0.13's controller does it ({@code StreamMetadataTasks.retention}): every
 * interval, for each active stream with a time or size retention policy, a <em>reference record</em> is taken — the
 * stream's tail cut, the time, and every live segment's length — and the stream is truncated at the newest record the
 * policy allows, bounded by the subscribers' (consumption-based retention) lower bound and the policy's min/max limits.
 * Records are tail cuts, so a truncation never cuts an event; subscriber cuts are readers' positions, also on event
 * boundaries. See docs/retention.md for the rules.
 *
 * <p>Reference records are kept in memory only and recomputed after a restart: the first pass after a restart takes a
 * new record, so time retention truncates again one minimum limit after the restart (never more than the policy
 * allows). Passes over one stream run on their own serial key; the truncation itself goes through
 * {@link ControllerCore#truncateStream}. Thread-safe.
 */
final class Retention implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Retention.class);
    /** Pravega's default period ({@code controller.retention.frequency.minutes} = 30). */
    static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(30);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final Journal journal;
    private final SerialExecutors executors;
    private final ControllerCore core;
    private final SegmentAdmin admin;
    private final Clock clock;
    /** Scoped stream name → its reference records, oldest first; touched only on the stream's retention key. */
    private final ConcurrentHashMap<String, List<Ref>> records = new ConcurrentHashMap<>();
    private final CountDownLatch stopping = new CountDownLatch(1);
    private final Thread timer;

    /**
     * One reference record.
     *
     * @param time when it was taken (ms)
     * @param tail the active segments' lengths then: a stream cut on event boundaries
     * @param lengths every live segment's length then (to tell how many bytes were written since)
     */
    record Ref(long time, Map<Long, Long> tail, Map<Long, Long> lengths) {
    }

    /** What a pass reads of one stream's metadata. */
    private record Snapshot(RetentionPolicy policy, List<Long> active, Set<Long> live,
                            List<Map<Long, Long>> subscriberCuts) {
    }

    private Retention(Journal journal, SerialExecutors executors, ControllerCore core, SegmentAdmin admin, Clock clock,
                      Duration interval) {
        this.journal = journal;
        this.executors = executors;
        this.core = core;
        this.admin = admin;
        this.clock = clock;
        this.timer = interval.isZero() ? null : Threads.startVirtual("sluice-controller-retention",
                () -> loop(interval));
    }

    /**
     * @param interval how often to run a pass; {@link Duration#ZERO}: no timer (callers use {@link #run()})
     * @return the retention task, its timer started
     */
    static Retention start(Journal journal, SerialExecutors executors, ControllerCore core, SegmentAdmin admin,
                           Clock clock, Duration interval) {
        return new Retention(journal, executors, core, admin, clock, checkInterval(interval));
    }

    /**
     * @return the interval
     * @throws IllegalArgumentException if it is negative
     */
    static Duration checkInterval(Duration interval) {
        if (interval == null || interval.isNegative()) {
            throw new IllegalArgumentException("retention interval must be zero (off) or positive, got " + interval);
        }
        return interval;
    }

    private void loop(Duration interval) {
        try {
            while (!stopping.await(interval.toMillis(), TimeUnit.MILLISECONDS)) {
                try {
                    run();
                } catch (RuntimeException e) {
                    LOG.warn("retention pass failed", e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One pass over every stream with a retention policy. Blocks; a failure on one stream is logged and does not stop
     * the others.
     *
     * @return how many streams were truncated
     */
    int run() {
        Set<String> existing = new HashSet<>();
        List<String[]> streams = journal.read(m -> {
            List<String[]> names = new ArrayList<>();
            m.scopes().values().forEach(scope -> scope.streams.values().forEach(s -> {
                existing.add(Names.scoped(s.scope, s.name));
                RetentionPolicy.RetentionPolicyType type = s.config.getRetentionPolicy().getRetentionType();
                if (!s.markStream && s.state == StreamMeta.State.ACTIVE
                        && (type == RetentionPolicy.RetentionPolicyType.TIME
                        || type == RetentionPolicy.RetentionPolicyType.SIZE)) {
                    names.add(new String[] {s.scope, s.name});
                }
            }));
            return names;
        });
        records.keySet().retainAll(existing);
        int truncated = 0;
        for (String[] n : streams) {
            try {
                Boolean done = SerialExecutors.await(executors.submit("retention:" + Names.scoped(n[0], n[1]),
                        () -> pass(n[0], n[1])));
                truncated += Boolean.TRUE.equals(done) ? 1 : 0;
            } catch (RuntimeException e) {
                LOG.warn("retention of {} failed; trying again on the next pass", Names.scoped(n[0], n[1]), e);
            }
        }
        return truncated;
    }

    /** @return the reference records of a stream, oldest first (for tests) */
    List<Ref> records(String scope, String stream) {
        return List.copyOf(records.getOrDefault(Names.scoped(scope, stream), List.of()));
    }

    private boolean pass(String scope, String stream) {
        String scoped = Names.scoped(scope, stream);
        Snapshot snap = journal.read(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s == null || s.state != StreamMeta.State.ACTIVE) {
                return null;
            }
            List<Long> active = new ArrayList<>();
            s.currentSegments().forEach(r -> active.add(r.id()));
            List<Map<Long, Long>> cuts = new ArrayList<>();
            s.subscribers.values().forEach(sub -> cuts.add(sub.streamCut()));
            return new Snapshot(s.config.getRetentionPolicy(), active, new HashSet<>(s.liveSegmentIds()), cuts);
        });
        if (snap == null) {
            records.remove(scoped);
            return false;
        }
        Map<Long, Long> lengths = new TreeMap<>();
        for (long id : snap.live()) {
            Optional<SegmentInfo> info = admin.segmentInfo(Names.segmentName(scope, stream, id));
            info.ifPresent(i -> lengths.put(id, i.length()));
        }
        Map<Long, Long> tail = new TreeMap<>();
        for (long id : snap.active()) {
            Long length = lengths.get(id);
            if (length == null) {
                return false; // an active segment without info: the store is not ready; try on the next pass
            }
            tail.put(id, length);
        }
        long now = clock.millis();
        List<Ref> refs = records.computeIfAbsent(scoped, k -> new CopyOnWriteArrayList<>());
        if (refs.isEmpty() || !refs.getLast().tail().equals(tail)) {
            refs.add(new Ref(now, tail, Map.copyOf(lengths)));
        }
        RetentionPolicy policy = snap.policy();
        ToLongFunction<Ref> delta = policy.getRetentionType() == RetentionPolicy.RetentionPolicyType.TIME
                ? r -> now - r.time()
                : r -> retainedBytes(r, lengths);
        long param = policy.getRetentionParam();
        long max = policy.getRetentionMax() < param ? Long.MAX_VALUE : policy.getRetentionMax();
        List<Ref> view = List.copyOf(refs);
        Map<Long, Long> target = journal.read(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s == null) {
                return null;
            }
            Map<Long, Long> cut = choose(s, view, delta, param, max, snap.subscriberCuts());
            Map<Long, Long> head = s.head();
            return cut == null || after(s, head, cut) ? null : cut;
        });
        if (target == null) {
            return false;
        }
        UpdateStreamStatus.Status status = core.truncateStream(scope, stream, target);
        if (status != UpdateStreamStatus.Status.SUCCESS) {
            LOG.debug("retention could not truncate {} at {}: {}", scoped, target, status);
            return false;
        }
        LOG.info("retention truncated {} at {}", scoped, target);
        // records before the new head can never be truncation points again
        journal.read(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s != null) {
                refs.removeIf(r -> !after(s, r.tail(), target));
            }
            return null;
        });
        return true;
    }

    /** @return bytes written after the record was taken, in segments that still exist */
    static long retainedBytes(Ref r, Map<Long, Long> lengths) {
        long sum = 0;
        for (Map.Entry<Long, Long> e : lengths.entrySet()) {
            sum += Math.max(0, e.getValue() - r.lengths().getOrDefault(e.getKey(), 0L));
        }
        return sum;
    }

    /**
     * Pravega's choice of truncation point (time or size alike, by {@code delta}: how much a record retains).
     *
     * @param refs reference records, oldest first
     * @param subscriberCuts the subscribers' reported cuts (an empty one: not reported yet)
     * @return where to truncate, or null for nowhere
     */
    static Map<Long, Long> choose(StreamMeta s, List<Ref> refs, ToLongFunction<Ref> delta, long param, long max,
                                  List<Map<Long, Long>> subscriberCuts) {
        Ref minRef = null;      // the newest record that keeps at least param
        Ref maxRef = null;      // the oldest record that keeps at least param and at most max
        Ref maxBound = null;    // the newest record that keeps max or more
        for (Ref r : refs) {
            long d = delta.applyAsLong(r);
            if (d >= param) {
                minRef = r;
                if (d <= max && maxRef == null) {
                    maxRef = r;
                }
            }
            if (max != Long.MAX_VALUE && d >= max) {
                maxBound = r;
            }
        }
        if (minRef == null) {
            return null;
        }
        if (maxRef == null) {
            maxRef = minRef;
        }
        if (subscriberCuts.isEmpty()) {
            return minRef.tail();
        }
        Map<Long, Long> lb = lowerBound(s, subscriberCuts);
        if (lb == null) {
            // a subscriber has not released anything (or the cuts cannot be ordered): only the max limit applies
            return maxBound == null ? null : maxRef.tail();
        }
        if (after(s, minRef.tail(), lb)) {
            if (maxBound == null || after(s, lb, maxBound.tail())) {
                return lb;
            }
            return after(s, maxBound.tail(), lb) ? maxRef.tail() : maxBound.tail();
        }
        if (after(s, lb, minRef.tail())) {
            return minRef.tail();
        }
        Map<Long, Long> before = null;
        for (Ref r : refs) {
            if (after(s, lb, r.tail())) {
                before = r.tail();
            }
        }
        return before;
    }

    /**
     * @return the lower bound of the subscribers' cuts: per segment the least offset when they name the same segments,
     *     otherwise the earliest cut; null if one is empty (nothing released) or two cannot be ordered
     */
    static Map<Long, Long> lowerBound(StreamMeta s, List<Map<Long, Long>> cuts) {
        Map<Long, Long> lb = null;
        for (Map<Long, Long> cut : cuts) {
            if (cut.isEmpty()) {
                return null;
            }
            if (lb == null) {
                lb = new TreeMap<>(cut);
            } else if (lb.keySet().equals(cut.keySet())) {
                Map<Long, Long> bound = lb;
                cut.forEach((id, offset) -> bound.merge(id, offset, Math::min));
            } else if (after(s, lb, cut)) {
                lb = new TreeMap<>(cut);
            } else if (!after(s, cut, lb)) {
                return null;
            }
        }
        return lb;
    }

    /** @return whether cut 1 is at or after cut 2 everywhere */
    static boolean after(StreamMeta s, Map<Long, Long> cut1, Map<Long, Long> cut2) {
        return s.equalOrAfter(cut1, s.span(cut1), cut2, s.span(cut2));
    }

    /** Stops the timer (waiting up to 30 s for a pass in progress). */
    @Override
    public void close() {
        stopping.countDown();
        if (timer != null) {
            try {
                timer.join(CLOSE_TIMEOUT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
