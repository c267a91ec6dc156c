package io.sluice.client;

import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import io.sluice.client.OwnedSegments.OwnedSegment;
import io.sluice.common.Deadline;
import io.sluice.common.Threads;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.readergroup.Membership;
import io.sluice.readergroup.Membership.Liveness;
import io.sluice.readergroup.Membership.Sighting;
import io.sluice.readergroup.ReaderGroupState;
import io.sluice.stream.Segment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reader's membership thread (a virtual thread per reader). It waits for a change of the group state (a long-poll
 * read at the end of the state log) or for the next heartbeat; it sends heartbeats with the offsets that moved,
 * removes readers whose heartbeat did not change for their offline timeout ({@link Membership#watch}, judged on this
 * process's clock, so clocks need not agree), and on the group's leader only starts automatic checkpoints
 * ({@link AutomaticCheckpoints}) and compacts the state log. It never changes what the reader owns: when the
 * consumer has something to do ({@link GroupMember#needsAttention}), it tells it ({@link GroupMember#signalAttention}).
 *
 * <p>{@link #stop} interrupts the thread only while it waits for the state log ({@link Phase#WAITING}), never while it
 * writes an update, so that an update is never cut off halfway.
 */
final class MembershipThread {
    private static final Logger LOG = LoggerFactory.getLogger(MembershipThread.class);
    /** Heartbeats go out at the group's refresh interval, but not more often than this. */
    static final long MIN_HEARTBEAT_MILLIS = 100;
    /** The thread handles bursts of state changes at most this often. */
    private static final long MIN_GAP_MILLIS = 20;
    /** The leader compacts the state log once it grew this much. */
    private static final long COMPACT_BYTES = 512 * 1024;
    /** How long {@link #stop} waits for the thread. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(60);

    /** What the thread is doing, for {@link #stop}. */
    enum Phase {
        /** Working on the state (heartbeat, removals, checkpoints, compaction): not to be interrupted. */
        WORKING,
        /** Waiting for a change of the state log or for the next heartbeat: may be interrupted. */
        WAITING,
        /** Told to stop: it returns at its next step. */
        STOPPING
    }

    private final String scope;
    private final String group;
    private final String readerId;
    private final GroupStateClient state;
    private final GroupMember member;
    private final OwnedSegments segments;
    private final AutomaticCheckpoints checkpoints;
    private final long heartbeatMillis;
    private final BooleanSupplier closed;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.WORKING);
    private final Thread thread;

    /**
     * Starts the thread.
     *
     * @param heartbeatMillis the heartbeat interval ({@link #heartbeatMillis(ReaderGroupState)})
     * @param closed whether the reader is closed: the thread then returns
     */
    MembershipThread(String scope, String group, String readerId, GroupStateClient state, GroupMember member,
                     OwnedSegments segments, AutomaticCheckpoints checkpoints, long heartbeatMillis,
                     BooleanSupplier closed) {
        this.scope = scope;
        this.group = group;
        this.readerId = readerId;
        this.state = state;
        this.member = member;
        this.segments = segments;
        this.checkpoints = checkpoints;
        this.heartbeatMillis = heartbeatMillis;
        this.closed = closed;
        this.thread = Threads.startVirtual("sluice-membership-" + scope + "/" + group + "/" + readerId, this::run);
    }

    /** @return how often readers of a group in this state heartbeat: its refresh interval, at least 100 ms */
    static long heartbeatMillis(ReaderGroupState s) {
        return Math.max(MIN_HEARTBEAT_MILLIS, s.settings().refreshMillis());
    }

    private void run() {
        Map<String, Sighting> sightings = new TreeMap<>();
        Map<OwnedSegment, Long> reported = new IdentityHashMap<>();
        long nextHeartbeat = System.nanoTime();
        long compactedAt = state.revision();
        while (true) {
            try {
                long wait = nextHeartbeat - System.nanoTime();
                if (wait > 0) {
                    if (!phase.compareAndSet(Phase.WORKING, Phase.WAITING)) {
                        return;
                    }
                    try {
                        state.awaitChange(Deadline.after(Duration.ofNanos(wait)));
                    } finally {
                        if (!phase.compareAndSet(Phase.WAITING, Phase.WORKING)) {
                            return;
                        }
                    }
                }
                if (closed.getAsBoolean()) {
                    return;
                }
                ReaderGroupState s = state.fetch();
                if (System.nanoTime() - nextHeartbeat >= 0) {
                    s = heartbeat(reported);
                    nextHeartbeat = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(heartbeatMillis);
                }
                s = removeOfflineReaders(s, sightings);
                if (Membership.isLeader(s, readerId)) {
                    s = checkpoints.startIfDue(s);
                    if (state.revision() - compactedAt >= COMPACT_BYTES) {
                        state.compact();
                        compactedAt = state.revision();
                    }
                }
                if (member.needsAttention(s)) {
                    member.signalAttention();
                }
                pause(MIN_GAP_MILLIS);
            } catch (StreamingInterruptedException e) {
                if (closed.getAsBoolean()) {
                    return;
                }
                LOG.debug("membership of reader {} interrupted", readerId, e);
            } catch (RuntimeException e) {
                if (closed.getAsBoolean()) {
                    return;
                }
                LOG.warn("reader {} of group {}/{}: updating the group state failed ({}); trying again", readerId,
                        scope, group, e.toString());
                pause(heartbeatMillis);
            }
        }
    }

    private void pause(long millis) {
        try {
            stop.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("membership of reader " + readerId + " interrupted", e);
        }
    }

    /**
     * Sends a heartbeat with the offsets that moved since the last one (an idle segment costs nothing), or none.
     *
     * @param reported what earlier heartbeats reported, by owned-segment instance (a segment acquired again is a new
     *     instance, so it is always reported once)
     */
    private ReaderGroupState heartbeat(Map<OwnedSegment, Long> reported) {
        long inc = member.incarnation();
        Map<Segment, OwnedSegment> view = segments.view();
        Map<OwnedSegment, Long> now = new IdentityHashMap<>();
        TreeMap<Segment, Long> moved = new TreeMap<>();
        view.forEach((segment, o) -> {
            long position = OwnedSegments.reported(o);
            now.put(o, position);
            Long before = reported.get(o);
            if (before == null || before != position) {
                moved.put(segment, position);
            }
        });
        ReaderGroupState after = state.update(s -> Membership.heartbeat(s, readerId, inc, System.currentTimeMillis(),
                moved));
        reported.clear();
        reported.putAll(now);
        return after;
    }

    /**
     * Removes the readers whose heartbeat stood still for longer than their offline timeout; their segments go back
     * to the group.
     *
     * @param sightings the other readers as last seen; updated
     */
    private ReaderGroupState removeOfflineReaders(ReaderGroupState s, Map<String, Sighting> sightings) {
        ReaderGroupState seenIn = s;
        Liveness look = Membership.watch(seenIn, readerId, sightings, System.nanoTime());
        sightings.clear();
        sightings.putAll(look.sightings());
        sightings.putAll(look.offline());   // until removed below
        for (Map.Entry<String, Sighting> e : look.offline().entrySet()) {
            String id = e.getKey();
            Sighting seen = e.getValue();
            LOG.info("reader {} of group {}/{} sent no heartbeat for {} ms: removing it, its segments go back to "
                    + "the group", id, scope, group, seenIn.readers().get(id).offlineTimeoutMillis());
            s = state.update(st -> Membership.removeOffline(st, id, seen));
            sightings.remove(id);
        }
        return s;
    }

    /**
     * Stops the thread and waits for it (up to a minute): interrupts it if it waits for the state log, else lets it
     * finish its step.
     */
    void stop() {
        stop.countDown();
        if (phase.getAndSet(Phase.STOPPING) == Phase.WAITING) {
            thread.interrupt();
        }
        try {
            if (!thread.join(STOP_WAIT)) {
                LOG.warn("membership thread of reader {} did not stop within {} s", readerId, STOP_WAIT.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
