package io.sluice.client;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.readergroup.Membership.Held;
import io.sluice.readergroup.ReaderGroupState.Owned;
import io.sluice.segment.SegmentStores;
import io.sluice.segment.SegmentReader;
import io.sluice.stream.Position;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;

/**
 * The segments a reader owns: one {@link SegmentReader} (with its prefetch thread) per segment, the ready queue they
 * announce events on, and the reader's position over all of them.
 *
 * <p><b>Ready queue.</b> A segment reader that gets something to hand out puts its segment on the queue (once:
 * {@link OwnedSegment#queued}); the consumer takes one event from the segment at the head and puts it back at the
 * tail if it has more, so busy segments take turns and idle ones cost nothing. A {@link #wake} entry on the queue
 * makes a waiting consumer look at the group state.
 *
 * <p><b>Threads.</b> Confined to the consumer (the thread that holds the reader's consumer permit: the one in
 * {@code readNextEvent}, {@code acquireSegment} or {@code releaseSegment}, a slice's thread handling the group, the
 * reader's constructor, or its close once the consumer left), except: {@link #view()}, which the membership thread
 * and acknowledgements read; {@link #signal}, {@link #wake} and {@link #awaitWake}, which prefetch threads, the
 * membership thread and waiters call.
 */
final class OwnedSegments {

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
        /** In {@code AckMode.EXPLICIT}: the events handed out and not acknowledged yet; else null. */
        Acks acks;
        /**
         * The slice the segment is out in ({@code reader.acquireSegment}), or null: then the slice's thread alone
         * takes events from {@link #reader}, and the consumer of {@code readNextEvent} leaves the segment alone. Set
         * by the holder of the consumer permit; read by any thread.
         */
        volatile SegmentSliceImpl<?> slice;

        OwnedSegment(Segment segment) {
            this.segment = segment;
        }
    }

    private final SegmentStores stores;
    private final ReadTokens tokens;
    private final SegmentReader.Config config;
    private final boolean explicitAck;

    // ---- consumer-confined
    private final Map<Segment, OwnedSegment> owned = new HashMap<>();
    private final PositionTracker tracker = new PositionTracker();

    // ---- shared
    /** A copy of {@link #owned}, published at every change of ownership. */
    private volatile Map<Segment, OwnedSegment> view = Map.of();
    private final LinkedBlockingQueue<OwnedSegment> ready = new LinkedBlockingQueue<>();
    /** Put on the ready queue to make the consumer look at the group state. */
    private final OwnedSegment wake = new OwnedSegment(null);
    /** Wakes threads waiting in {@code acquireSegment} (see {@link #awaitWake}). */
    private final ReentrantLock wakeLock = new ReentrantLock();
    private final Condition woken = wakeLock.newCondition();
    /** Guarded by wakeLock: how many times {@link #wake} was called. */
    private long wakes;

    /** @param explicitAck whether the application acknowledges events ({@code AckMode.EXPLICIT}) */
    OwnedSegments(SegmentStores stores, ReadTokens tokens, SegmentReader.Config config, boolean explicitAck) {
        this.stores = stores;
        this.tokens = tokens;
        this.config = config;
        this.explicitAck = explicitAck;
    }

    // ------------------------------------------------------------------ ready queue

    /** @return the segment at the head of the ready queue, or null if none is ready */
    OwnedSegment poll() {
        return ready.poll();
    }

    /** Waits up to {@code nanos} for a segment to be ready. @return it, or null if none was in time */
    OwnedSegment poll(long nanos) throws InterruptedException {
        return ready.poll(nanos, TimeUnit.NANOSECONDS);
    }

    /** @return true if no segment waits on the ready queue */
    boolean nothingReady() {
        return ready.isEmpty();
    }

    /** @return true if {@code o} is the {@link #wake} entry rather than a segment */
    boolean isWake(OwnedSegment o) {
        return o == wake;
    }

    /**
     * Any thread: puts {@code o} on the ready queue unless it is there already; wakes its slice instead if it is out
     * in one.
     */
    void signal(OwnedSegment o) {
        SegmentSliceImpl<?> slice = o.slice;
        if (slice != null) {
            slice.wake();
            return;
        }
        if (o.queued.compareAndSet(false, true)) {
            ready.add(o);
        }
    }

    /**
     * Any thread: wakes a consumer waiting on the ready queue, the slices waiting for events, and the threads waiting
     * in {@code acquireSegment}: the group has something for the reader to do.
     */
    void wake() {
        signal(wake);
        for (OwnedSegment o : view.values()) {
            SegmentSliceImpl<?> slice = o.slice;
            if (slice != null) {
                slice.wake();
            }
        }
        wakeLock.lock();
        try {
            wakes++;
            woken.signalAll();
        } finally {
            wakeLock.unlock();
        }
    }

    /** Any thread. @return how many times {@link #wake} was called, for {@link #awaitWake} */
    long wakes() {
        wakeLock.lock();
        try {
            return wakes;
        } finally {
            wakeLock.unlock();
        }
    }

    /** Any thread: waits up to {@code nanos} until {@link #wake} is called after it returned {@code seen}. */
    void awaitWake(long seen, long nanos) throws InterruptedException {
        wakeLock.lock();
        try {
            long left = nanos;
            while (wakes == seen && left > 0) {
                left = woken.awaitNanos(left);
            }
        } finally {
            wakeLock.unlock();
        }
    }

    // ------------------------------------------------------------------ ownership

    /** @return true if the reader owns no segment */
    boolean isEmpty() {
        return owned.isEmpty();
    }

    /** @return the owned segment {@code segment}, or null */
    OwnedSegment get(Segment segment) {
        return owned.get(segment);
    }

    /** @return true if a segment of the reader's is out in a slice */
    boolean hasSlices() {
        for (OwnedSegment o : owned.values()) {
            if (o.slice != null) {
                return true;
            }
        }
        return false;
    }

    /** @return the first owned segment, in segment order, that is in no slice; or null */
    OwnedSegment freeSegment() {
        OwnedSegment first = null;
        for (OwnedSegment o : owned.values()) {
            if (o.slice == null && (first == null || o.segment.compareTo(first.segment) < 0)) {
                first = o;
            }
        }
        return first;
    }

    /**
     * Makes the owned segments these: stops those not among them, starts those new among them at their offsets.
     *
     * @param endOffsets where the group stops reading, for segments of its ending cuts
     */
    void reconcile(SortedMap<Segment, Owned> mine, Map<Segment, Long> endOffsets) {
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
                start(e.getKey(), e.getValue().offset(), endOffsets);
                changed = true;
            }
        }
        if (changed) {
            ownershipChanged();
        }
    }

    /** Reads an owned segment again from {@code offset} with a new segment reader (its data before was truncated). */
    void restart(OwnedSegment o, long offset, Map<Segment, Long> endOffsets) {
        drop(o);
        owned.remove(o.segment);
        start(o.segment, offset, endOffsets);
        ownershipChanged();
    }

    /** Stops every owned segment (they are no longer ours, or we leave). */
    void dropAll() {
        owned.values().forEach(OwnedSegments::drop);
        owned.clear();
        ownershipChanged();
    }

    private void start(Segment segment, long offset, Map<Segment, Long> endOffsets) {
        long end = endOffsets.getOrDefault(segment, Long.MAX_VALUE);
        OwnedSegment o = new OwnedSegment(segment);
        ScopedStream stream = segment.scopedStream();
        o.recoverFrom = Math.min(offset, end);
        if (explicitAck) {
            o.acks = new Acks(segment, o.recoverFrom);
        }
        o.reader = new SegmentReader(segment.qualifiedName(), o.recoverFrom, end, stores,
                () -> tokens.forStream(stream), config, r -> signal(o));
        owned.put(segment, o);
        if (o.reader.hasSomething()) {
            signal(o);
        }
    }

    /** Stops reading a segment that is no longer owned. */
    private static void drop(OwnedSegment o) {
        o.dropped = true;
        o.reader.close();
        SegmentSliceImpl<?> slice = o.slice;
        if (slice != null) {
            slice.wake();   // it ends: the segment is no longer ours
        }
    }

    private void ownershipChanged() {
        Segment[] order = tracker.reset(offsets());
        for (int i = 0; i < order.length; i++) {
            owned.get(order[i]).slot = i;
        }
        view = Map.copyOf(owned);
    }

    /** @return where the reader stands in each owned segment */
    TreeMap<Segment, Long> offsets() {
        TreeMap<Segment, Long> offsets = new TreeMap<>();
        owned.forEach((segment, o) -> offsets.put(segment, o.reader.position()));
        return offsets;
    }

    /**
     * @return where each owned segment stands as the group is told: its acknowledged position in
     *     {@code AckMode.EXPLICIT}, else where the reader stands ({@link #offsets()})
     */
    TreeMap<Segment, Long> reportedOffsets() {
        TreeMap<Segment, Long> offsets = new TreeMap<>();
        owned.forEach((segment, o) -> offsets.put(segment, reported(o)));
        return offsets;
    }

    /** Any thread. @return where {@code o} stands as the group is told (see {@link #reportedOffsets()}) */
    static long reported(OwnedSegment o) {
        return o.acks != null ? o.acks.position() : o.reader.position();
    }

    /** The reader passed a checkpoint standing at these offsets: its segments now recover from there. */
    void checkpointPassed(Map<Segment, Long> offsets) {
        owned.values().forEach(o -> o.recoverFrom = offsets.get(o.segment));
    }

    /**
     * @return each owned segment with where the reader stands in it and where it would recover from (in
     *     {@code AckMode.EXPLICIT}: its acknowledged position)
     */
    Map<Segment, Held> held() {
        Map<Segment, Held> out = new HashMap<>();
        owned.forEach((segment, o) -> out.put(segment, new Held(o.reader.position(),
                o.acks != null ? o.acks.position() : o.recoverFrom)));
        return out;
    }

    /** Any thread. @return the owned segments as of the last change of ownership */
    Map<Segment, OwnedSegment> view() {
        return view;
    }

    /** Closes the segment readers of {@link #view()} (the reader closes). */
    void closeAll() {
        view.values().forEach(o -> o.reader.close());
    }

    // ------------------------------------------------------------------ position

    /** The consumer handed out an event of {@code o}: the segment's offset moves to {@code nextOffset}. */
    void advance(OwnedSegment o, long nextOffset) {
        tracker.advance(o.slot, nextOffset);
    }

    /** @return the reader's position: every owned segment's offset */
    Position position() {
        return tracker.position();
    }

    /** @return how many owned segments have an event buffered */
    int segmentsWithEventsBuffered() {
        int n = 0;
        for (OwnedSegment o : owned.values()) {
            if (o.reader.hasSomething()) {
                n++;
            }
        }
        return n;
    }
}
