package io.sluice.client;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.sluice.client.OwnedSegments.OwnedSegment;
import io.sluice.common.Deadline;
import io.sluice.controller.ControllerClient;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.readergroup.ReaderGroupState;
import io.sluice.segment.SegmentCalls;
import io.sluice.segment.SegmentStores;
import io.sluice.segment.SegmentMetadataClient;
import io.sluice.segment.SegmentReader;
import io.sluice.stream.EventDeserializationException;
import io.sluice.stream.EventPointer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.Position;
import io.sluice.stream.ReaderConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentSlice;
import io.sluice.stream.Serializer;
import io.sluice.stream.TimeWindow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reader of a reader group: the consumer loop of {@link #readNextEvent}, and the reader's life from joining the
 * group to leaving it. The rest is in classes of their own:
 * <ul>
 *   <li>{@link OwnedSegments}: the owned segments, one {@link SegmentReader} with prefetch each, the ready queue
 *       they announce events on, and the reader's position;</li>
 *   <li>{@link GroupMember}: the group membership the consumer carries out (join, acquire and release as
 *       {@link io.sluice.readergroup.Membership} decides, checkpoints, completed segments, reset, leave);</li>
 *   <li>{@link MembershipThread}: heartbeats, offline readers, and on the group's leader
 *       {@link AutomaticCheckpoints} and compaction;</li>
 *   <li>{@link EventFetcher}: {@link #fetchEvent}, random access by pointer.</li>
 * </ul>
 *
 * <p><b>Two threads.</b> The <em>consumer</em> (whoever calls {@link #readNextEvent}) owns everything that depends on
 * what was handed out: the owned segments, their positions, and every change of ownership (acquire, release,
 * segment completed, checkpoint passed) — so a segment is always given back exactly where the application stands.
 * The <em>membership thread</em> only watches the group and tells the consumer when it has something to do.
 *
 * <p><b>The consumer permit.</b> What is consumer-confined is touched only by the holder of {@link #consumer}:
 * {@link #readNextEvent} for its call; {@link #acquireSegment}, {@link #releaseSegment} and slices
 * ({@link SegmentSliceImpl}, between two events: {@link #handleGroupFromSlice}) briefly, to handle the group. A slice's
 * thread takes its segment's events without the permit; {@link #readNextEvent} leaves segments out in slices alone.
 * In {@code AckMode.EXPLICIT} each owned segment counts its unacknowledged events ({@link Acks}); {@link #ack} may
 * come from any thread.
 *
 * <p><b>Taking turns.</b> The consumer takes one event from the segment at the head of the ready queue and puts it
 * back at the tail if it has more, so busy segments take turns and idle ones cost nothing; it stays with a segment
 * for a short streak while it has events buffered, which saves a trip through the queue per event.
 */
final class EventStreamReaderImpl<T> implements EventStreamReader<T> {
    private static final Logger LOG = LoggerFactory.getLogger(EventStreamReaderImpl.class);
    /** How long close waits for a concurrent readNextEvent. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(60);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /**
     * A consumer that keeps finding events without ever waiting yields its carrier thread this often, so that virtual
     * threads that share the carrier (heartbeats, prefetchers) still run on a saturated machine.
     */
    private static final long YIELD_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /**
     * The consumer reads the clock for its yield once in this many calls that found an event at once (a reading costs
     * some 30 ns on a virtual machine, a tenth of what handing out a small event does).
     */
    private static final int CLOCK_EVERY = 64;

    /**
     * Events the consumer takes in a row from one segment while others have events too, before it moves on. Staying
     * saves a trip through the ready queue per event; moving on keeps every segment's events flowing.
     */
    private static final int STREAK = 64;

    private final String scope;
    private final String group;
    private final String readerId;
    private final Serializer<T> serializer;
    private final ReaderConfig config;
    private final SegmentCalls calls;
    private final ReadTokens tokens;
    private final TimeWindows timeWindows;
    private final GroupStateClient state;
    private final OwnedSegments segments;
    private final GroupMember member;
    private final MembershipThread membership;
    private final EventFetcher<T> fetcher;
    private final Runnable onClose;
    private final ControllerClient controller;
    private final SegmentStores stores;

    // ---- consumer-confined (the thread in readNextEvent, or the constructor, or close once the consumer left)
    /** The end of data was handed out once: later calls wait for their timeout (or a reset) before repeating it. */
    private boolean endOfDataReported;
    /** When the consumer last waited (or yielded). */
    private long lastWaitNanos = System.nanoTime();
    /** A segment with events buffered that the consumer goes on with, off the ready queue ({@code queued} false). */
    private OwnedSegment current;
    /** Events taken from {@link #current} in a row. */
    private int streak;
    /** Calls since the consumer last read the clock for its yield. */
    private int sinceClock;
    /** The timeout of the call in progress; its deadline is taken only if the call has to wait ({@link #deadline}). */
    private Duration callTimeout;
    /** The deadline of the call in progress, once it had to wait; {@code null} before. */
    private Deadline callDeadline;

    // ---- shared
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile boolean closed;
    /**
     * The consumer permit: its holder may touch what is consumer-confined (the owned segments, the membership).
     * {@link #readNextEvent} holds it for its call; slices, {@link #acquireSegment} and {@link #releaseSegment} for
     * their handling of the group.
     */
    private final Semaphore consumer = new Semaphore(1);
    /**
     * The thread in {@link #readNextEvent}, holding the permit; {@code null} when none is (slices and the group's
     * handling hold the permit without setting it). A second thread that finds the permit taken and this set was a
     * misuse; one that comes while another has taken the permit but not yet set this waits for its turn instead.
     * Written with opaque stores (no fence per call); the permit orders everything else.
     */
    @SuppressWarnings("unused")   // through CONSUMER_THREAD
    private volatile Thread consumerThread;
    /** The position of the last read {@link #readNextEvent} returned, for a call that could not take the permit
     * and for {@link #currentTimeWindow}; written with release stores (through LAST_POSITION). */
    private volatile Position lastPosition = Position.of(java.util.Map.of());
    private static final VarHandle CONSUMER_THREAD;
    private static final VarHandle LAST_POSITION;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            CONSUMER_THREAD = lookup.findVarHandle(EventStreamReaderImpl.class, "consumerThread", Thread.class);
            LAST_POSITION = lookup.findVarHandle(EventStreamReaderImpl.class, "lastPosition", Position.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    EventStreamReaderImpl(String scope, String group, String readerId, Serializer<T> serializer, ReaderConfig config,
                          ControllerClient controller, SegmentStores stores, Runnable onClose) {
        this.scope = Objects.requireNonNull(scope, "scope");
        this.group = Objects.requireNonNull(group, "group");
        this.readerId = Objects.requireNonNull(readerId, "readerId");
        if (readerId.isEmpty() || readerId.length() > 1024) {
            throw new IllegalArgumentException("reader id must have 1 to 1024 characters: '" + readerId + "'");
        }
        this.serializer = Objects.requireNonNull(serializer, "serializer");
        this.config = Objects.requireNonNull(config, "config");
        this.onClose = onClose;
        this.controller = controller;
        this.stores = stores;
        this.tokens = new ReadTokens(controller);
        this.timeWindows = new TimeWindows(stores, tokens, controller);
        this.calls = stores.calls().withConfig(new SegmentCalls.Config(RetryPolicies.toRetry(config.retry()),
                REQUEST_TIMEOUT));
        this.fetcher = new EventFetcher<>(calls, tokens, serializer);
        this.segments = new OwnedSegments(stores, tokens, new SegmentReader.Config(config.bufferBytes(),
                RetryPolicies.toRetry(config.retry())), config.ackMode() == ReaderConfig.AckMode.EXPLICIT);
        this.state = GroupStateClient.open(scope, group, controller, stores);
        GroupMember joined = null;
        long heartbeatMillis;
        try {
            heartbeatMillis = MembershipThread.heartbeatMillis(state.state());
            if (config.offlineTimeout().toMillis() < 3 * heartbeatMillis) {
                throw new IllegalArgumentException("reader " + readerId + ": offlineTimeout " + config.offlineTimeout()
                        .toMillis() + " ms must be at least three heartbeat intervals (" + 3 * heartbeatMillis
                        + " ms; readers of group " + scope + "/" + group + " heartbeat every " + heartbeatMillis
                        + " ms, its refresh interval)");
            }
            joined = new GroupMember(scope, group, readerId, config, controller, tokens, state, segments,
                    () -> closed = true);
            // segments are taken at the first readNextEvent (attention starts set): readers created together
            // share them evenly from the start, rather than the first one taking all and handing them on
            joined.join();
        } catch (RuntimeException e) {
            segments.closeAll();
            if (joined != null) {
                try {
                    joined.leave();
                } catch (RuntimeException leaving) {
                    e.addSuppressed(leaving);
                }
            }
            state.close();
            throw e;
        }
        this.member = joined;
        this.membership = new MembershipThread(scope, group, readerId, state, member, segments,
                new AutomaticCheckpoints(state), heartbeatMillis, () -> closed);
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
            String replaced = member.replacedBy();
            throw new IllegalStateException(replaced != null ? replaced
                    : "reader " + readerId + " of group " + scope + "/" + group + " is closed");
        }
        Deadline waited = null;
        // the permit is held briefly by slices and acquireSegment/releaseSegment when they handle the group
        if (!consumer.tryAcquire()) {
            if (CONSUMER_THREAD.getOpaque(this) != null) {
                throw new IllegalStateException("another thread is in readNextEvent of reader " + readerId
                        + ": a reader serves one thread at a time");
            }
            waited = Deadline.after(timeout);
            if (!acquireConsumer(waited)) {
                if (closed) {
                    throw new IllegalStateException("reader " + readerId + " of group " + scope + "/" + group
                            + " is closed");
                }
                return new EventRead<>(null, lastPosition, null, null, false);
            }
        }
        CONSUMER_THREAD.setOpaque(this, Thread.currentThread());
        try {
            // no reading of the clock while events are ready: the deadline is taken when the call first has to wait
            callTimeout = timeout;
            callDeadline = waited;
            EventRead<T> read = next();
            LAST_POSITION.setRelease(this, read.position());
            return read;
        } finally {
            CONSUMER_THREAD.setOpaque(this, null);
            consumer.release();
        }
    }

    /** @return the deadline of the call in progress, taken now if this is the call's first wait */
    private Deadline deadline() {
        Deadline d = callDeadline;
        if (d == null) {
            d = Deadline.after(callTimeout);
            callDeadline = d;
        }
        return d;
    }

    /** Takes the consumer permit, waiting until the deadline. */
    private boolean acquireConsumer(Deadline deadline) {
        if (consumer.tryAcquire()) {
            return true;   // the usual case, without the timed path's interrupt check and clock read
        }
        try {
            return consumer.tryAcquire(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while reader " + readerId + " waited for its "
                    + "membership", e);
        }
    }

    private EventRead<T> next() {
        member.resumeAfterCheckpoint();
        while (!closed) {
            if (member.takeAttention()) {
                String checkpoint = member.handleGroup(true);
                if (checkpoint != null) {
                    return new EventRead<>(null, segments.position(), null, checkpoint, false);
                }
                if (!member.endOfData()) {
                    endOfDataReported = false;
                }
            }
            if (member.endOfData() && !endOfDataReported) {
                endOfDataReported = true;
                return new EventRead<>(null, segments.position(), null, null, true);
            }
            OwnedSegment o = current;
            current = null;
            if (o == null) {
                o = segments.poll();
                if (o == null) {
                    try {
                        o = segments.poll(Math.max(0, deadline().remainingNanos()));
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
                o.queued.set(false);
                if (segments.isWake(o)) {
                    continue;
                }
                streak = 0;
            }
            if (++sinceClock >= CLOCK_EVERY) {
                sinceClock = 0;
                if (System.nanoTime() - lastWaitNanos > YIELD_NANOS) {
                    Thread.yield();
                    lastWaitNanos = System.nanoTime();
                }
            }
            if (o.dropped || o.slice != null) {
                continue;   // no longer ours, or out in a slice
            }
            SegmentReader.ReadEvent e;
            try {
                e = o.reader.next();
            } catch (SegmentTruncatedException t) {
                throw skipTruncated(o, t);
            } catch (SluiceException failure) {
                segments.signal(o);  // fail again on the next call rather than go quiet
                throw failure;
            }
            if (e != null) {
                if (o.reader.hadMore()) {
                    // stay with this segment without a trip through the ready queue, unless others wait too long
                    if (++streak < STREAK || segments.nothingReady()) {
                        current = o;
                    } else {
                        streak = 0;
                        segments.signal(o);
                    }
                }
                segments.advance(o, e.nextOffset());
                EventPointer pointer = new EventPointer(o.segment, e.offset(), e.framedLength());
                T event;
                try {
                    event = serializer.deserialize(e.payload());
                } catch (RuntimeException bad) {
                    if (o.acks != null) {
                        o.acks.skipped(e.nextOffset());
                    }
                    throw new EventDeserializationException(pointer, bad);
                }
                EventRead<T> read = new EventRead<>(event, segments.position(), pointer, null, false);
                if (o.acks != null) {
                    o.acks.handedOut(e.offset(), e.nextOffset(), read);
                }
                return read;
            }
            if (o.reader.isFinished()) {
                OwnedSegment finished = o;
                // EXPLICIT: a segment counts as read only once all of it is acknowledged; the last ack brings it back
                if (o.acks == null || o.acks.whenAllAcknowledged(() -> segments.signal(finished))) {
                    member.completeSegment(o);
                }
            }
        }
        return new EventRead<>(null, segments.position(), null, null, member.endOfData());
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
            start = new SegmentMetadataClient(calls, segment.qualifiedName(), tokens.forStream(segment.scopedStream()))
                    .startOffset();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
            segments.signal(o);
            return cause;
        }
        segments.restart(o, start, state.state().settings().endOffsets());
        return new SegmentTruncatedException("segment " + segment + " was truncated: the events between offsets "
                + from + " and " + start + " are gone; reader " + readerId + " continues at offset " + start, cause);
    }

    // ------------------------------------------------------------------ time windows

    @Override
    public TimeWindow currentTimeWindow() {
        Set<ScopedStream> streams = state.state().settings().start().keySet();
        if (streams.size() != 1) {
            throw new IllegalStateException("group " + scope + "/" + group + " reads " + streams.size()
                    + " streams " + streams + ": name one with currentTimeWindow(stream)");
        }
        return currentTimeWindow(streams.iterator().next());
    }

    @Override
    public TimeWindow currentTimeWindow(ScopedStream stream) {
        Objects.requireNonNull(stream, "stream");
        if (closed) {
            throw new IllegalStateException("reader " + readerId + " of group " + scope + "/" + group + " is closed");
        }
        ReaderGroupState group = state.state();
        if (!group.settings().start().containsKey(stream)) {
            throw new IllegalArgumentException("reader " + readerId + " is not reading stream " + stream + ": group "
                    + scope + "/" + this.group + " reads " + group.settings().start().keySet());
        }
        return timeWindows.current(group, stream, lastPosition);
    }

    // ------------------------------------------------------------------ slices

    @Override
    public SegmentSlice<T> acquireSegment(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative: " + timeout);
        }
        Deadline deadline = Deadline.after(timeout);
        while (true) {
            checkOpen();
            long seen = segments.wakes();
            if (!acquireConsumer(deadline)) {
                checkOpen();
                return null;
            }
            try {
                checkOpen();
                if (member.takeAttention()) {
                    member.handleGroup(false);
                }
                OwnedSegment free = segments.freeSegment();
                if (free != null) {
                    SegmentSliceImpl<T> slice = new SegmentSliceImpl<>(this, free, serializer);
                    free.slice = slice;
                    LOG.debug("reader {}: segment {} out in a slice at {}", readerId, free.segment, slice.offset());
                    return slice;
                }
            } finally {
                consumer.release();
            }
            long nanos = deadline.remainingNanos();
            if (nanos <= 0) {
                return null;
            }
            try {
                segments.awaitWake(seen, nanos);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StreamingInterruptedException("interrupted while reader " + readerId + " waited for a "
                        + "segment", e);
            }
        }
    }

    @Override
    public void releaseSegment(SegmentSlice<T> slice) {
        release(slice, null);
    }

    @Override
    public void releaseSegment(SegmentSlice<T> slice, long offset) {
        release(slice, offset);
    }

    private void release(SegmentSlice<T> slice, Long offset) {
        Objects.requireNonNull(slice, "slice");
        if (!(slice instanceof SegmentSliceImpl<T> mine) || mine.reader != this) {
            throw new IllegalArgumentException(slice + " is not a slice of reader " + readerId + " of group " + scope
                    + "/" + group);
        }
        if (offset != null) {
            long handed = mine.owned.reader.position();
            if (offset < 0 || offset > handed) {
                throw new IllegalArgumentException("reader " + readerId + " cannot release segment "
                        + mine.segment() + " at offset " + offset + ": its slice handed out events up to offset "
                        + handed + " only, and releasing beyond would skip events nobody read");
            }
        }
        if (!mine.markReleased()) {
            throw new IllegalArgumentException("slice of segment " + mine.segment() + " of reader " + readerId
                    + " was released already");
        }
        if (closed) {
            return;   // the close gave the segment back
        }
        if (!acquireConsumer(Deadline.after(CLOSE_WAIT))) {
            if (closed) {
                return;
            }
            throw new DeadlineExceededException("reader " + readerId + " could not release segment "
                    + mine.segment() + ": readNextEvent did not return within " + CLOSE_WAIT.toSeconds() + " s");
        }
        try {
            if (!closed) {
                member.giveBackSlice(mine.owned, offset);
            }
        } finally {
            consumer.release();
        }
        segments.wake();
    }

    /**
     * On a slice's thread, between two events: does what the group asks of the reader if it asks something and no
     * other thread of the reader is at it (then that one does).
     */
    void handleGroupFromSlice() {
        if (closed || !member.attentionPending() || !consumer.tryAcquire()) {
            return;
        }
        try {
            if (!closed && member.takeAttention()) {
                member.handleGroup(false);
            }
        } finally {
            consumer.release();
        }
    }

    /** Any thread. @return true once the reader is closed (or closing) */
    boolean isClosed() {
        return closed;
    }

    private void checkOpen() {
        if (closed) {
            String replaced = member.replacedBy();
            throw new IllegalStateException(replaced != null ? replaced
                    : "reader " + readerId + " of group " + scope + "/" + group + " is closed");
        }
    }

    // ------------------------------------------------------------------ ack

    @Override
    public void ack(EventRead<T> read) {
        Objects.requireNonNull(read, "read");
        if (config.ackMode() != ReaderConfig.AckMode.EXPLICIT) {
            throw new IllegalStateException("reader " + readerId + " of group " + scope + "/" + group + " was created "
                    + "with AckMode." + config.ackMode() + ": only readers with AckMode.EXPLICIT take "
                    + "acknowledgements");
        }
        EventPointer pointer = read.pointer();
        if (pointer == null) {
            throw new IllegalArgumentException("reader " + readerId + ": this read carries no event ("
                    + (read.isCheckpoint() ? "checkpoint " + read.checkpointName() : read.readCompleted()
                            ? "read completed" : "timeout") + "), there is nothing to acknowledge");
        }
        if (closed) {
            throw new IllegalStateException("reader " + readerId + " of group " + scope + "/" + group + " is closed: "
                    + "what it had not acknowledged when it closed is read again by the group");
        }
        OwnedSegment o = segments.view().get(pointer.segment());
        if (o == null || o.acks == null) {
            throw new IllegalArgumentException("reader " + readerId + " of group " + scope + "/" + group + " does not "
                    + "own segment " + pointer.segment() + " of the event at offset " + pointer.offset() + ": it is an "
                    + "event of another reader, or of a segment this reader has lost (the group reads its "
                    + "unacknowledged events again)");
        }
        o.acks.ack(pointer.offset(), read, readerId);
    }

    // ------------------------------------------------------------------ fetchEvent

    @Override
    public T fetchEvent(EventPointer pointer) {
        return fetcher.fetch(pointer);
    }

    // ------------------------------------------------------------------ close

    @Override
    public ReaderConfig config() {
        return config;
    }

    @Override
    public void close() {
        closeAt(null, false);
    }

    @Override
    public void closeAt(Position position) {
        closeAt(Objects.requireNonNull(position, "position"), true);
    }

    /** Leaves the group at {@code position}, or where the reader stands if it is null. */
    private void closeAt(Position position, boolean explicit) {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        closed = true;
        boolean consumerLeft = awaitConsumer();
        membership.stop();
        IllegalArgumentException refused = null;
        try {
            if (consumerLeft) {
                refused = position == null ? null : member.checkLeavingAt(position);
                member.leave(refused == null ? position : null);
            }
        } catch (RuntimeException e) {
            LOG.warn("reader {} could not leave group {}/{} cleanly ({}); its segments return to the group after its "
                    + "offline timeout", readerId, scope, group, e.toString());
        } finally {
            segments.closeAll();
            timeWindows.close();
            state.close();
            if (onClose != null) {
                onClose.run();
            }
        }
        if (refused != null) {
            throw refused;
        }
    }

    /** For tests, on the consumer's thread between two reads: how many owned segments have an event buffered. */
    int segmentsWithEventsBuffered() {
        return segments.segmentsWithEventsBuffered();
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
        membership.stop();
        segments.closeAll();
        timeWindows.close();
        state.close();
        if (onClose != null) {
            onClose.run();
        }
    }

    /** Wakes a consumer blocked in readNextEvent and waits for it to leave. @return true if it left in time */
    private boolean awaitConsumer() {
        segments.wake();
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

    @Override
    public String toString() {
        return "EventStreamReader[" + scope + "/" + group + "/" + readerId + "]";
    }
}
