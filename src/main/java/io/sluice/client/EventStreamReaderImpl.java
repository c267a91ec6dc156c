package io.sluice.client;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.auth.AccessOperation;
import io.sluice.auth.DelegationTokenProvider;
import io.sluice.common.Deadline;
import io.sluice.common.Threads;
import io.sluice.connection.ConnectionPool;
import io.sluice.controller.ControllerClient;
import io.sluice.controller.SegmentSuccessors;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.RetriableException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.errors.TokenExpiredException;
import io.sluice.errors.WrongHostException;
import io.sluice.readergroup.GroupUpdate;
import io.sluice.readergroup.Membership;
import io.sluice.readergroup.ReaderGroupState;
import io.sluice.readergroup.ReaderGroupState.CheckpointProgress;
import io.sluice.readergroup.ReaderGroupState.Owned;
import io.sluice.readergroup.ReaderGroupState.ReaderInfo;
import io.sluice.segment.SegmentCalls;
import io.sluice.segment.SegmentFetcher;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.SegmentMetadataClient;
import io.sluice.segment.SegmentReader;
import io.sluice.stream.EventDeserializationException;
import io.sluice.stream.EventPointer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.ReaderConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentRange;
import io.sluice.stream.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reader of a reader group: one {@link SegmentReader} per owned segment, a shared ready queue, and a membership
 * thread.
 *
 * <p><b>Two threads.</b> The <em>consumer</em> (whoever calls {@link #readNextEvent}) owns everything that depends on
 * what was handed out: the owned segments, their positions, and every change of ownership (acquire, release,
 * segment completed, checkpoint passed) — so a segment is always given back exactly where the application stands.
 * The <em>membership thread</em> (a virtual thread per reader) waits for changes of the group state (a long-poll read
 * at the end of the state log) or for the next heartbeat; it sends heartbeats with the reader's offsets, removes
 * readers whose heartbeat did not change for their offline timeout (judged on this process's clock, so clocks need
 * not agree), starts automatic checkpoints and compacts the log (both only on the group's first reader by id), and
 * when the consumer has something to do, sets {@link #attention} and puts {@link #wake} on the ready queue.
 *
 * <p><b>Ready queue.</b> A segment reader that gets something to hand out puts its segment on {@link #ready} (once:
 * {@link OwnedSegment#queued}); the consumer takes one event from the segment at the head and puts it back at the
 * tail if it has more, so busy segments take turns and idle ones cost nothing.
 */
final class EventStreamReaderImpl<T> implements EventStreamReader<T> {
    private static final Logger LOG = LoggerFactory.getLogger(EventStreamReaderImpl.class);
    /** Heartbeats go out at the group's refresh interval, but not more often than this. */
    static final long MIN_HEARTBEAT_MILLIS = 100;
    /** The membership thread handles bursts of state changes at most this often. */
    private static final long MIN_GAP_MILLIS = 20;
    /** The first reader compacts the state log once it grew this much. */
    private static final long COMPACT_BYTES = 512 * 1024;
    /** How long close waits for a concurrent readNextEvent and for the membership thread. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(60);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /**
     * A consumer that keeps finding events without ever waiting yields its carrier thread this often, so that virtual
     * threads that share the carrier (heartbeats, prefetchers) still run on a saturated machine.
     */
    private static final long YIELD_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    /**
     * Events the consumer takes in a row from one segment while others have events too, before it moves on. Staying
     * saves a trip through the ready queue per event; moving on keeps every segment's events flowing.
     */
    private static final int STREAK = 64;

    private static final int WORKING = 0;
    private static final int WAITING = 1;
    private static final int STOPPING = 2;

    /** A segment the reader owns. {@link #reader}, {@link #slot} and {@link #recoverFrom} are the consumer's. */
    static final class OwnedSegment {
        final Segment segment;
        final AtomicBoolean queued = new AtomicBoolean();
        SegmentReader reader;
        int slot;
        /** Where the reader stood when it acquired the segment or last passed a checkpoint. */
        long recoverFrom;
        /** No longer owned: its reader is closed, and a stale entry on the ready queue is ignored. */
        boolean dropped;

        OwnedSegment(Segment segment) {
            this.segment = segment;
        }
    }


    private final String scope;
    private final String group;
    private final String readerId;
    private final Serializer<T> serializer;
    private final ReaderConfig config;
    private final ControllerClient controller;
    private final ConnectionPool pool;
    private final SegmentLocator locator;
    private final SegmentCalls calls;
    private final GroupStateClient state;
    private final SegmentReader.Config segmentConfig;
    private final long heartbeatMillis;
    private final Runnable onClose;
    private final ConcurrentHashMap<ScopedStream, DelegationTokenProvider> tokens = new ConcurrentHashMap<>();

    // ---- consumer-confined (the thread in readNextEvent, or the constructor, or close once the consumer left)
    private final Map<Segment, OwnedSegment> owned = new HashMap<>();
    private final PositionTracker tracker = new PositionTracker();
    private long generation;
    /** A checkpoint handed out to the application; reported as passed at the next call. */
    private String passedCheckpoint;
    private boolean endOfData;
    /** {@link #endOfData} was handed out once: later calls wait for their timeout (or a reset) before repeating it. */
    private boolean endOfDataReported;
    /** When the consumer last waited (or yielded). */
    private long lastWaitNanos = System.nanoTime();
    /** A segment with events buffered that the consumer goes on with, off the ready queue ({@code queued} false). */
    private OwnedSegment current;
    /** Events taken from {@link #current} in a row. */
    private int streak;

    // ---- shared with the membership thread
    private volatile long incarnation;
    private volatile long consumerGeneration;
    private volatile Map<Segment, OwnedSegment> ownedView = Map.of();
    private final LinkedBlockingQueue<OwnedSegment> ready = new LinkedBlockingQueue<>();
    /** Put on the ready queue to make the consumer look at the group state. */
    private final OwnedSegment wake = new OwnedSegment(null);
    private final AtomicBoolean attention = new AtomicBoolean(true);
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile boolean closed;
    /** Why the reader stopped working if not by {@link #close}: another reader with its id replaced it. */
    private volatile String replacedBy;
    private final Semaphore consumer = new Semaphore(1);
    private final CountDownLatch stop = new CountDownLatch(1);
    private final AtomicInteger phase = new AtomicInteger(WORKING);
    private final Thread membership;

    EventStreamReaderImpl(String scope, String group, String readerId, Serializer<T> serializer, ReaderConfig config,
                          ControllerClient controller, ConnectionPool pool, SegmentLocator locator, Runnable onClose) {
        this.scope = Objects.requireNonNull(scope, "scope");
        this.group = Objects.requireNonNull(group, "group");
        this.readerId = Objects.requireNonNull(readerId, "readerId");
        if (readerId.isEmpty() || readerId.length() > 1024) {
            throw new IllegalArgumentException("reader id must have 1 to 1024 characters: '" + readerId + "'");
        }
        this.serializer = Objects.requireNonNull(serializer, "serializer");
        this.config = Objects.requireNonNull(config, "config");
        this.controller = controller;
        this.pool = pool;
        this.locator = locator;
        this.onClose = onClose;
        this.calls = new SegmentCalls(pool, locator, new SegmentCalls.Config(RetryPolicies.toRetry(config.retry()),
                REQUEST_TIMEOUT));
        this.segmentConfig = new SegmentReader.Config(config.bufferBytes(), RetryPolicies.toRetry(config.retry()));
        this.state = GroupStateClient.open(scope, group, controller, pool, locator);
        try {
            ReaderGroupState s = state.state();
            this.heartbeatMillis = Math.max(MIN_HEARTBEAT_MILLIS, s.settings().refreshMillis());
            if (config.offlineTimeout().toMillis() < 3 * heartbeatMillis) {
                throw new IllegalArgumentException("reader " + readerId + ": offlineTimeout " + config.offlineTimeout()
                        .toMillis() + " ms must be at least three heartbeat intervals (" + 3 * heartbeatMillis
                        + " ms; readers of group " + scope + "/" + group + " heartbeat every " + heartbeatMillis
                        + " ms, its refresh interval)");
            }
            this.incarnation = newIncarnation();
            // segments are taken at the first readNextEvent (attention starts set): readers created together
            // share them evenly from the start, rather than the first one taking all and handing them on
            join();
        } catch (RuntimeException e) {
            owned.values().forEach(o -> o.reader.close());
            try {
                long inc = incarnation;
                state.update(s -> s.reader(readerId, inc).isPresent()
                        ? List.of(new GroupUpdate.RemoveReader(readerId, inc, currentOffsets())) : List.of());
            } catch (RuntimeException leaving) {
                e.addSuppressed(leaving);
            }
            state.close();
            throw e;
        }
        this.membership = Threads.startVirtual("sluice-membership-" + scope + "/" + group + "/" + readerId,
                this::membershipLoop);
    }

    @Override
    public String readerId() {
        return readerId;
    }

    // ------------------------------------------------------------------ consumer

    @Override
    public EventRead<T> readNextEvent(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative: " + timeout);
        }
        if (closed) {
            throw new IllegalStateException(replacedBy != null ? replacedBy
                    : "reader " + readerId + " of group " + scope + "/" + group + " is closed");
        }
        if (!consumer.tryAcquire()) {
            throw new IllegalStateException(closed ? "reader " + readerId + " is closed"
                    : "another thread is in readNextEvent of reader " + readerId + ": a reader serves one thread at a time");
        }
        try {
            return next(Deadline.after(timeout));
        } finally {
            consumer.release();
        }
    }

    private EventRead<T> next(Deadline deadline) {
        if (passedCheckpoint != null) {
            // the application came back after the checkpoint: everything before it is processed
            reportCheckpoint(passedCheckpoint);
            passedCheckpoint = null;
            attention.set(true);
        }
        while (!closed) {
            if (attention.getAndSet(false)) {
                EventRead<T> checkpoint = handleGroup();
                if (checkpoint != null) {
                    return checkpoint;
                }
            }
            if (endOfData && !endOfDataReported) {
                endOfDataReported = true;
                return new EventRead<>(null, tracker.position(), null, null, true);
            }
            OwnedSegment o = current;
            current = null;
            if (o == null) {
                o = ready.poll();
                if (o == null) {
                    try {
                        o = ready.poll(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new StreamingInterruptedException("interrupted while reader " + readerId
                                + " waited for events", e);
                    }
                    lastWaitNanos = System.nanoTime();
                }
                if (o == null) {
                    break;
                }
                if (o == wake) {
                    wake.queued.set(false);
                    continue;
                }
                o.queued.set(false);
                streak = 0;
            }
            if (System.nanoTime() - lastWaitNanos > YIELD_NANOS) {
                Thread.yield();
                lastWaitNanos = System.nanoTime();
            }
            if (o.dropped) {
                continue;
            }
            SegmentReader.ReadEvent e;
            try {
                e = o.reader.next();
            } catch (SegmentTruncatedException t) {
                throw skipTruncated(o, t);
            } catch (SluiceException failure) {
                signal(o);  // fail again on the next call rather than go quiet
                throw failure;
            }
            if (e != null) {
                if (o.reader.hadMore()) {
                    // stay with this segment without a trip through the ready queue, unless others wait too long
                    if (++streak < STREAK || ready.isEmpty()) {
                        current = o;
                    } else {
                        streak = 0;
                        signal(o);
                    }
                }
                tracker.advance(o.slot, e.nextOffset());
                EventPointer pointer = new EventPointer(o.segment, e.offset(), e.framedLength());
                T event;
                try {
                    event = serializer.deserialize(e.payload());
                } catch (RuntimeException bad) {
                    throw new EventDeserializationException(pointer, bad);
                }
                return new EventRead<>(event, tracker.position(), pointer, null, false);
            }
            if (o.reader.isFinished()) {
                completeSegment(o);
            }
        }
        return new EventRead<>(null, tracker.position(), null, null, endOfData);
    }

    /**
     * Acts on the group state as the local copy shows it: rejoins after being removed, follows a reset, matches the
     * owned segments to the state, passes checkpoints, releases and acquires segments. Consumer thread.
     *
     * @return a checkpoint to hand out, or null
     */
    private EventRead<T> handleGroup() {
        ReaderGroupState s = state.state();
        ReaderInfo me = s.readers().get(readerId);
        if (me == null || me.incarnation() != incarnation) {
            if (me != null) {
                replacedBy = "reader " + readerId + " of group " + scope + "/" + group + " was replaced by another "
                        + "reader with the same id (a restart of this reader?); close this one";
                closed = true;
                throw new IllegalStateException(replacedBy);
            }
            LOG.warn("reader {} of group {}/{} was removed from the group (no heartbeat within its offline timeout, "
                    + "or declared offline); it rejoins, and its segments were handed to the group", readerId, scope,
                    group);
            dropAll();
            incarnation = newIncarnation();
            s = join();
        }
        if (s.generation() != generation) {
            LOG.debug("reader {} of group {}/{} follows a reset to generation {}", readerId, scope, group,
                    s.generation());
            dropAll();
            generation = s.generation();
            consumerGeneration = generation;
            passedCheckpoint = null;
        }
        reconcile(s);
        for (List<CheckpointProgress> pending = s.pendingFor(readerId); !pending.isEmpty();
             pending = s.pendingFor(readerId)) {
            CheckpointProgress c = pending.get(0);
            if (!c.silent()) {
                passedCheckpoint = c.name();
                return new EventRead<>(null, tracker.position(), null, c.name(), false);
            }
            s = reportCheckpoint(c.name());
            List<CheckpointProgress> after = s.pendingFor(readerId);
            if (!after.isEmpty() && after.get(0).name().equals(c.name())) {
                break;
            }
        }
        if (s.generation() == generation && Membership.releaseCount(s, readerId) > 0) {
            s = release(Membership.releaseCount(s, readerId));
        }
        if (s.generation() == generation && Membership.acquireCount(s, readerId) > 0) {
            s = acquire();
        }
        endOfData = owned.isEmpty() && s.generation() == generation && s.isEndOfData();
        if (!endOfData) {
            endOfDataReported = false;
        }
        return null;
    }

    /** Makes the owned segments what the state says: stops those taken away, starts those given. */
    private void reconcile(ReaderGroupState s) {
        if (s.generation() != generation) {
            attention.set(true);
            return;
        }
        ReaderInfo me = s.reader(readerId, incarnation).orElse(null);
        SortedMap<Segment, Owned> mine = me == null ? Collections.emptySortedMap() : me.segments();
        boolean changed = false;
        for (Iterator<OwnedSegment> it = owned.values().iterator(); it.hasNext();) {
            OwnedSegment o = it.next();
            if (!mine.containsKey(o.segment)) {
                it.remove();
                drop(o);
                changed = true;
            }
        }
        for (Map.Entry<Segment, Owned> e : mine.entrySet()) {
            if (!owned.containsKey(e.getKey())) {
                start(s, e.getKey(), e.getValue().offset());
                changed = true;
            }
        }
        if (changed) {
            ownershipChanged();
        }
    }

    private void start(ReaderGroupState s, Segment segment, long offset) {
        long end = s.settings().endOffsets().getOrDefault(segment, Long.MAX_VALUE);
        OwnedSegment o = new OwnedSegment(segment);
        ScopedStream stream = segment.scopedStream();
        o.recoverFrom = Math.min(offset, end);
        o.reader = new SegmentReader(segment.qualifiedName(), o.recoverFrom, end, pool, locator,
                () -> tokensFor(stream), segmentConfig, r -> signal(o));
        owned.put(segment, o);
        if (o.reader.hasSomething()) {
            signal(o);
        }
    }

    private void ownershipChanged() {
        TreeMap<Segment, Long> offsets = new TreeMap<>();
        owned.forEach((segment, o) -> offsets.put(segment, o.reader.position()));
        Segment[] order = tracker.reset(offsets);
        for (int i = 0; i < order.length; i++) {
            owned.get(order[i]).slot = i;
        }
        ownedView = Map.copyOf(owned);
    }

    /** Stops every owned segment (they are no longer ours, or we leave). */
    private void dropAll() {
        owned.values().forEach(EventStreamReaderImpl::drop);
        owned.clear();
        ownershipChanged();
        endOfData = false;
    }

    /** Stops reading a segment that is no longer owned. Consumer thread. */
    private static void drop(OwnedSegment o) {
        o.dropped = true;
        o.reader.close();
    }

    private void signal(OwnedSegment o) {
        if (o.queued.compareAndSet(false, true)) {
            ready.add(o);
        }
    }

    /** Membership thread (or anyone): the consumer should look at the group state. */
    private void signalAttention() {
        attention.set(true);
        signal(wake);
    }

    private ReaderGroupState join() {
        long inc = incarnation;
        boolean ack = config.ackMode() == ReaderConfig.AckMode.ON_CHECKPOINT;
        long timeout = config.offlineTimeout().toMillis();
        ReaderGroupState after = state.update(s -> List.of(new GroupUpdate.AddReader(readerId, inc, ack, timeout,
                System.currentTimeMillis())));
        generation = after.generation();
        consumerGeneration = generation;
        return after;
    }

    private ReaderGroupState acquire() {
        long inc = incarnation;
        long gen = generation;
        ReaderGroupState after = state.update(s -> {
            if (s.reader(readerId, inc).isEmpty() || s.generation() != gen) {
                return List.of();
            }
            int n = Membership.acquireCount(s, readerId);
            if (n <= 0) {
                return List.of();
            }
            TreeSet<Segment> pick = new TreeSet<>();
            for (Segment segment : s.unassigned().keySet()) {
                if (pick.size() == n) {
                    break;
                }
                pick.add(segment);
            }
            return List.of(new GroupUpdate.Acquire(readerId, inc, pick));
        });
        reconcile(after);
        return after;
    }

    /**
     * Gives {@code count} segments back at exactly where this reader stands (buffered events are dropped). A reader
     * that counts events as processed only at checkpoints gives back only segments it handed nothing out of since it
     * acquired them or passed a checkpoint, so that nothing unprocessed is handed over.
     */
    private ReaderGroupState release(int count) {
        List<OwnedSegment> candidates = new ArrayList<>(owned.values());
        if (config.ackMode() == ReaderConfig.AckMode.ON_CHECKPOINT) {
            candidates.removeIf(o -> o.reader.position() != o.recoverFrom);
            if (candidates.isEmpty()) {
                return state.state();
            }
        }
        candidates.sort(Comparator.comparing((OwnedSegment o) -> o.segment).reversed());
        TreeMap<Segment, Long> offsets = new TreeMap<>();
        for (OwnedSegment o : candidates.subList(0, Math.min(count, candidates.size()))) {
            offsets.put(o.segment, o.reader.position());
        }
        long inc = incarnation;
        long gen = generation;
        ReaderGroupState after = state.update(s -> {
            ReaderInfo me = s.reader(readerId, inc).orElse(null);
            if (me == null || s.generation() != gen || !me.segments().keySet().containsAll(offsets.keySet())
                    || Membership.releaseCount(s, readerId) <= 0) {
                return List.of();
            }
            return List.of(new GroupUpdate.Release(readerId, inc, offsets));
        });
        reconcile(after);
        return after;
    }

    /** A segment was read to its end: tell the group, with its successors. */
    private void completeSegment(OwnedSegment o) {
        Segment segment = o.segment;
        long end = o.reader.position();
        ReaderGroupState after;
        try {
            SortedMap<Segment, SortedSet<Segment>> successors =
                    state.state().settings().endOffsets().containsKey(segment) ? Collections.emptySortedMap()
                            : successorsOf(segment);
            long inc = incarnation;
            long gen = generation;
            after = state.update(s -> {
                ReaderInfo me = s.reader(readerId, inc).orElse(null);
                if (me == null || s.generation() != gen || !me.segments().containsKey(segment)) {
                    return List.of();
                }
                return List.of(new GroupUpdate.SegmentCompleted(readerId, inc, segment, end, successors));
            });
        } catch (RuntimeException e) {
            signal(o);  // try again on the next call
            throw e;
        }
        LOG.debug("reader {} finished segment {} at {}", readerId, segment, end);
        reconcile(after);
        attention.set(true);   // successors may be ours to take
    }

    private SortedMap<Segment, SortedSet<Segment>> successorsOf(Segment segment) {
        SegmentSuccessors successors = controller.successors(segment);
        tokensFor(segment.scopedStream()).offer(successors.delegationToken());
        TreeMap<Segment, SortedSet<Segment>> out = new TreeMap<>();
        for (Map.Entry<SegmentRange, List<Segment>> e : successors.successors().entrySet()) {
            out.put(e.getKey().segment(), new TreeSet<>(e.getValue()));
        }
        return out;
    }

    private ReaderGroupState reportCheckpoint(String name) {
        TreeMap<Segment, Long> offsets = currentOffsets();
        long inc = incarnation;
        long gen = generation;
        owned.values().forEach(o -> o.recoverFrom = offsets.get(o.segment));
        return state.update(s -> {
            if (s.reader(readerId, inc).isEmpty() || s.generation() != gen) {
                return List.of();
            }
            List<CheckpointProgress> pending = s.pendingFor(readerId);
            if (pending.isEmpty() || !pending.get(0).name().equals(name)) {
                return List.of();
            }
            return List.of(new GroupUpdate.CheckpointReached(readerId, inc, name, offsets));
        });
    }

    private TreeMap<Segment, Long> currentOffsets() {
        TreeMap<Segment, Long> offsets = new TreeMap<>();
        owned.forEach((segment, o) -> offsets.put(segment, o.reader.position()));
        return offsets;
    }

    /**
     * The data at the reader's offset in a segment was truncated: continue at the segment's new start and tell the
     * application what was skipped.
     */
    private SegmentTruncatedException skipTruncated(OwnedSegment o, SegmentTruncatedException cause) {
        Segment segment = o.segment;
        long from = o.reader.position();
        long start;
        try {
            start = new SegmentMetadataClient(calls, segment.qualifiedName(), tokensFor(segment.scopedStream()))
                    .startOffset();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
            signal(o);
            return cause;
        }
        drop(o);
        owned.remove(segment);
        start(state.state(), segment, start);
        ownershipChanged();
        return new SegmentTruncatedException("segment " + segment + " was truncated: the events between offsets "
                + from + " and " + start + " are gone; reader " + readerId + " continues at offset " + start, cause);
    }

    // ------------------------------------------------------------------ membership thread

    private void membershipLoop() {
        Map<String, Seen> seen = new HashMap<>();
        Map<OwnedSegment, Long> reported = new IdentityHashMap<>();
        long nextHeartbeat = System.nanoTime();
        long compactedAt = state.revision();
        while (true) {
            try {
                long wait = nextHeartbeat - System.nanoTime();
                if (wait > 0) {
                    if (!phase.compareAndSet(WORKING, WAITING)) {
                        return;
                    }
                    try {
                        state.awaitChange(Deadline.after(Duration.ofNanos(wait)));
                    } finally {
                        if (!phase.compareAndSet(WAITING, WORKING)) {
                            return;
                        }
                    }
                }
                if (closed) {
                    return;
                }
                ReaderGroupState s = state.fetch();
                if (System.nanoTime() - nextHeartbeat >= 0) {
                    s = heartbeat(reported);
                    nextHeartbeat = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(heartbeatMillis);
                }
                s = removeDeadReaders(s, seen);
                boolean leader = !s.readers().isEmpty() && s.readers().firstKey().equals(readerId);
                if (leader) {
                    s = automaticCheckpoint(s);
                    if (state.revision() - compactedAt >= COMPACT_BYTES) {
                        state.compact();
                        compactedAt = state.revision();
                    }
                }
                if (consumerShouldAct(s)) {
                    signalAttention();
                }
                pause(MIN_GAP_MILLIS);
            } catch (StreamingInterruptedException e) {
                if (closed) {
                    return;
                }
                LOG.debug("membership of reader {} interrupted", readerId, e);
            } catch (RuntimeException e) {
                if (closed) {
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
        long inc = incarnation;
        Map<Segment, OwnedSegment> view = ownedView;
        Map<OwnedSegment, Long> now = new IdentityHashMap<>();
        TreeMap<Segment, Long> moved = new TreeMap<>();
        view.forEach((segment, o) -> {
            long position = o.reader.position();
            now.put(o, position);
            Long before = reported.get(o);
            if (before == null || before != position) {
                moved.put(segment, position);
            }
        });
        ReaderGroupState after = state.update(s -> s.reader(readerId, inc).isEmpty() ? List.of()
                : List.of(new GroupUpdate.Heartbeat(readerId, inc, System.currentTimeMillis(), moved)));
        reported.clear();
        reported.putAll(now);
        return after;
    }

    /** A reader's heartbeat as last seen, and when it last changed on this process's clock. */
    private record Seen(long incarnation, long heartbeat, long sinceNanos) {
    }

    private ReaderGroupState removeDeadReaders(ReaderGroupState s, Map<String, Seen> seen) {
        long now = System.nanoTime();
        seen.keySet().retainAll(s.readers().keySet());
        for (Map.Entry<String, ReaderInfo> e : s.readers().entrySet()) {
            String id = e.getKey();
            ReaderInfo r = e.getValue();
            if (id.equals(readerId)) {
                continue;
            }
            Seen last = seen.get(id);
            if (last == null || last.incarnation() != r.incarnation() || last.heartbeat() != r.heartbeat()) {
                seen.put(id, new Seen(r.incarnation(), r.heartbeat(), now));
            } else if (now - last.sinceNanos() > TimeUnit.MILLISECONDS.toNanos(r.offlineTimeoutMillis())) {
                LOG.info("reader {} of group {}/{} sent no heartbeat for {} ms: removing it, its segments go back to "
                        + "the group", id, scope, group, r.offlineTimeoutMillis());
                s = state.update(st -> {
                    ReaderInfo current = st.readers().get(id);
                    if (current == null || current.incarnation() != r.incarnation() || current.heartbeat() != r.heartbeat()) {
                        return List.of();
                    }
                    return List.of(new GroupUpdate.RemoveReader(id, r.incarnation(), Collections.emptySortedMap()));
                });
                seen.remove(id);
            }
        }
        return s;
    }

    private ReaderGroupState automaticCheckpoint(ReaderGroupState s) {
        long interval = s.settings().checkpointIntervalMillis();
        if (interval < 0 || !s.checkpoints().isEmpty() || System.currentTimeMillis() - s.lastCheckpointMillis() < interval) {
            return s;
        }
        String name = "auto-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        return state.update(st -> {
            long now = System.currentTimeMillis();
            if (!st.checkpoints().isEmpty() || now - st.lastCheckpointMillis() < interval) {
                return List.of();
            }
            return List.of(new GroupUpdate.CreateCheckpoint(name, true, now));
        });
    }

    /** Does the consumer have something to do in this state? */
    private boolean consumerShouldAct(ReaderGroupState s) {
        ReaderInfo me = s.readers().get(readerId);
        if (me == null || me.incarnation() != incarnation || s.generation() != consumerGeneration) {
            return true;
        }
        if (!s.pendingFor(readerId).isEmpty() || !me.segments().keySet().equals(ownedView.keySet())) {
            return true;
        }
        if (Membership.acquireCount(s, readerId) > 0) {
            return true;
        }
        if (Membership.releaseCount(s, readerId) > 0) {
            return true;
        }
        return s.isEndOfData();
    }

    // ------------------------------------------------------------------ fetchEvent

    @Override
    public T fetchEvent(EventPointer pointer) {
        Objects.requireNonNull(pointer, "pointer");
        Segment segment = pointer.segment();
        SegmentFetcher fetcher = new SegmentFetcher(calls, segment.qualifiedName(), tokensFor(segment.scopedStream()));
        return serializer.deserialize(fetcher.fetchEvent(pointer.offset(), pointer.length()));
    }

    private DelegationTokenProvider tokensFor(ScopedStream stream) {
        return tokens.computeIfAbsent(stream, s -> new DelegationTokenProvider(s.scope(), s.name(),
                AccessOperation.READ, () -> controller.delegationToken(s, AccessOperation.READ)));
    }

    // ------------------------------------------------------------------ close

    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        closed = true;
        boolean consumerLeft = awaitConsumer();
        stopMembership();
        try {
            if (consumerLeft) {
                TreeMap<Segment, Long> offsets = currentOffsets();
                long inc = incarnation;
                state.update(s -> s.reader(readerId, inc).isPresent()
                        ? List.of(new GroupUpdate.RemoveReader(readerId, inc, offsets)) : List.of());
            }
        } catch (RuntimeException e) {
            LOG.warn("reader {} could not leave group {}/{} cleanly ({}); its segments return to the group after its "
                    + "offline timeout", readerId, scope, group, e.toString());
        } finally {
            ownedView.values().forEach(o -> o.reader.close());
            state.close();
            if (onClose != null) {
                onClose.run();
            }
        }
    }

    /** For tests, on the consumer's thread between two reads: how many owned segments have an event buffered. */
    int segmentsWithEventsBuffered() {
        int n = 0;
        for (OwnedSegment o : owned.values()) {
            if (o.reader.hasSomething()) {
                n++;
            }
        }
        return n;
    }

    /**
     * Stops as if the process had died: no update of the group, so the others take over after the offline timeout.
     * For tests of crash recovery.
     */
    void abandon() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        closed = true;
        awaitConsumer();
        stopMembership();
        ownedView.values().forEach(o -> o.reader.close());
        state.close();
        if (onClose != null) {
            onClose.run();
        }
    }

    /** Wakes a consumer blocked in readNextEvent and waits for it to leave. @return true if it left in time */
    private boolean awaitConsumer() {
        signal(wake);
        try {
            if (consumer.tryAcquire(CLOSE_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
                return true;
            }
            LOG.warn("reader {}: readNextEvent did not return within {} s of close", readerId, CLOSE_WAIT.toSeconds());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void stopMembership() {
        stop.countDown();
        if (phase.getAndSet(STOPPING) == WAITING) {
            membership.interrupt();
        }
        try {
            if (!membership.join(CLOSE_WAIT)) {
                LOG.warn("membership thread of reader {} did not stop within {} s", readerId, CLOSE_WAIT.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long newIncarnation() {
        long v;
        do {
            v = ThreadLocalRandom.current().nextLong();
        } while (v == GroupUpdate.RemoveReader.ANY_INCARNATION);
        return v;
    }

    @Override
    public String toString() {
        return "EventStreamReader[" + scope + "/" + group + "/" + readerId + "]";
    }
}
