package io.sluice.segment;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import io.sluice.segment.DelegationTokenProvider;
import io.sluice.common.ClientMetrics;
import io.sluice.common.Deadline;
import io.sluice.common.Retry;
import io.sluice.common.Threads;
import io.sluice.connection.Connection;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.Lease;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.RetriesExhaustedException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.errors.WriterClosedException;
import io.sluice.wire.AppendEncoder;
import io.sluice.wire.AppendSetup;
import io.sluice.wire.AuthTokenCheckFailed;
import io.sluice.wire.DataAppended;
import io.sluice.wire.ErrorReply;
import io.sluice.wire.InvalidEventNumber;
import io.sluice.wire.KeepAlive;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.Reply;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.WireOutput;
import io.sluice.wire.WrongHost;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends events to one segment, exactly once, with many blocks in flight.
 *
 * <p>Two virtual threads run it. The <b>flusher</b> takes whatever events have queued since its last block,
 * numbers them and hands one {@code AppendBlock}+{@code AppendBlockEnd} to the connection (encoded by
 * {@link AppendEncoder#writeGroups} on the connection's writer thread, straight into the socket buffer, so each
 * payload is copied once): the more callers write while a block is on the
 * wire, the bigger the next one, with no timers. An event written when nothing is queued or in flight and the
 * connection is idle skips the flusher: the caller writes its block to the socket itself. The <b>receiver</b> reads
 * acknowledgements and completes events in order; when the connection fails it reconnects with the same writer id,
 * completes what the server already has ({@code AppendSetup.lastEventNumber}) and resends the rest, in order, before
 * the flusher may send anything new.
 *
 * <p>When the segment is sealed (or gone), the writer stops and hands every unacknowledged event, in order, to
 * its {@link Listener}, which re-routes them to the successors. Thread-safe.
 */
public final class SegmentWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentWriter.class);
    private static final Duration AWAIT_SLICE = Duration.ofSeconds(30);

    /** Hears what ends a segment writer. Called on the writer's own threads; must not block for long. */
    public interface Listener {
        /**
         * The segment is sealed or deleted: no event will be appended to it again.
         *
         * @param unacknowledged every event not known to be durable, in the order they were written
         */
        void segmentEnded(String segment, List<PendingEvent> unacknowledged);
    }

    /**
     * How a writer behaves.
     *
     * @param retry how reconnects are retried before pending writes fail: after a lost connection, attempts come
     *     at most {@link Retry#maxReconnectBackoff()} apart (250 ms by default), so the writer resumes soon after
     *     its segment store is back, and it fails only when the policy's whole backoff has passed without success
     * @param maxBlockBytes bytes of events one block may carry (larger single events travel alone)
     * @param setupTimeout how long one connect + SetupAppend attempt may take
     */
    public record Config(Retry retry, int maxBlockBytes, Duration setupTimeout) {
        /** Pravega's writer retry policy (1 ms, ×10, up to 20 s, 10 attempts), 1 MiB blocks, 30 s setup. */
        public static final Config DEFAULT = new Config(Retry.withExpBackoff(Duration.ofMillis(1), 10, 10,
                Duration.ofSeconds(20)), 1024 * 1024, Duration.ofSeconds(30));

        /** Checks the values. */
        public Config {
            Objects.requireNonNull(retry, "retry");
            Objects.requireNonNull(setupTimeout, "setupTimeout");
            if (maxBlockBytes < 1024 || maxBlockBytes > PendingEvent.MAX_BATCH_SIZE) {
                throw new IllegalArgumentException("maxBlockBytes must be between 1024 and " + PendingEvent.MAX_BATCH_SIZE
                        + " (what one append frame carries): " + maxBlockBytes);
            }
        }
    }

    private enum Phase { CONNECTING, READY, ENDED, FAILED, CLOSED }

    private final String segment;
    private final UUID writerId;
    private final SegmentCalls calls;
    private final Supplier<DelegationTokenProvider> tokens;
    private final Config config;
    private final Listener listener;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Guarded by lock: written, not yet taken by the flusher. */
    private final ArrayDeque<PendingEvent> queued = new ArrayDeque<>();
    /** Guarded by lock: sent (or about to be), not yet acknowledged; in event-number order. */
    private final ArrayDeque<PendingEvent> inflight = new ArrayDeque<>();
    /** Guarded by lock. */
    private Phase phase = Phase.CONNECTING;
    /** The token the current session was set up with (written by the setup, read by the receiver after it). */
    private volatile String sessionToken = "";
    /** Guarded by lock: the lease the flusher sends on while READY. */
    private Lease lease;
    /** Guarded by lock. */
    private long lastEventNumber;
    /** Guarded by lock: why the writer failed. */
    private SluiceException failure;

    private final Thread flusher;
    private final Thread receiver;
    /** Confined to the receiver: an append was acknowledged on the current session. */
    private volatile boolean acknowledgedThisSession;
    /** The segment's length after the last acknowledged append (−1 before any): a position for watermarks. */
    private volatile long lastAckedOffset = -1;
    /** Where this writer's blocks, acknowledgements and reconnects are counted ({@link ClientMetrics.Appends#NONE}). */
    private final ClientMetrics.Appends meter;
    /**
     * Guarded by lock; {@code null} unless {@link #meter} records: per block sent, its last event number and
     * {@link System#nanoTime()} when it was first sent, in order, until it is acknowledged.
     */
    private final ArrayDeque<long[]> sentBlocks;

    /**
     * Starts a writer over a client's shared segment stores; see the main constructor.
     */
    public SegmentWriter(String segment, UUID writerId, SegmentStores stores, Supplier<DelegationTokenProvider> tokens,
                         Config config, Listener listener) {
        this(segment, writerId, stores.pool(), stores.locator(), tokens, config, listener, stores.metrics());
    }

    /**
     * Starts a writer; it connects in the background.
     *
     * @param writerId the writer session id; the same id across reconnects is what makes appends exactly-once
     * @param tokens the delegation tokens for the segment's stream ({@code null} supplier result = no auth)
     */
    public SegmentWriter(String segment, UUID writerId, ConnectionPool pool, SegmentLocator locator,
                         Supplier<DelegationTokenProvider> tokens, Config config, Listener listener) {
        this(segment, writerId, pool, locator, tokens, config, listener, ClientMetrics.NONE);
    }

    /**
     * Starts a writer that reports to {@code metrics}; see the main constructor.
     */
    public SegmentWriter(String segment, UUID writerId, ConnectionPool pool, SegmentLocator locator,
                         Supplier<DelegationTokenProvider> tokens, Config config, Listener listener,
                         ClientMetrics metrics) {
        this.segment = Objects.requireNonNull(segment, "segment");
        this.writerId = Objects.requireNonNull(writerId, "writerId");
        this.tokens = Objects.requireNonNull(tokens, "tokens");
        this.config = Objects.requireNonNull(config, "config");
        this.calls = new SegmentCalls(pool, locator, new SegmentCalls.Config(config.retry(), config.setupTimeout()));
        this.listener = Objects.requireNonNull(listener, "listener");
        this.meter = Objects.requireNonNull(metrics, "metrics").appends(segment, new ClientMetrics.InFlight() {
            @Override
            public long inFlightEvents() {
                return pendingTotal(false);
            }

            @Override
            public long inFlightBytes() {
                return pendingTotal(true);
            }
        });
        this.sentBlocks = meter.enabled() ? new ArrayDeque<>() : null;
        this.receiver = Threads.startVirtual("sluice-writer-receiver-" + segment, this::receiveLoop);
        this.flusher = Threads.startVirtual("sluice-writer-flusher-" + segment, this::flushLoop);
    }

    /** @return the segment this writer appends to */
    public String segment() {
        return segment;
    }

    /** @return the writer id */
    public UUID writerId() {
        return writerId;
    }

    /**
     * Queues events for this segment. Never waits for another thread (memory is bounded by the caller). When
     * nothing is queued or in flight and the connection is idle, the caller writes the event's block to the socket
     * itself: one small write, which the socket's buffer takes at once. Not to be called while holding a lock: use
     * {@link #queue} there.
     *
     * @return false if the writer has ended (the segment is sealed or gone): route the events elsewhere
     * @throws SluiceException the failure that stopped the writer, if it failed
     */
    public boolean write(PendingEvent event) {
        return write(event, true);
    }

    /**
     * Like {@link #write}, but always leaves the sending to the flusher, so it does no I/O: safe while holding a lock.
     *
     * @return false if the writer has ended (the segment is sealed or gone): route the events elsewhere
     * @throws SluiceException the failure that stopped the writer, if it failed
     */
    public boolean queue(PendingEvent event) {
        return write(event, false);
    }

    private boolean write(PendingEvent event, boolean mayWrite) {
        Connection.Claim direct = null;
        Connection claimed = null;
        long number = 0;
        long requestId = 0;
        lock.lock();
        try {
            switch (phase) {
                case ENDED -> {
                    return false;
                }
                case FAILED -> throw failure;
                case CLOSED -> throw new IllegalStateException("the writer of segment " + segment + " is closed");
                default -> {
                    if (mayWrite && phase == Phase.READY && queued.isEmpty() && inflight.isEmpty()) {
                        claimed = lease.flow().connection();
                        direct = claimed.tryClaim(AppendEncoder.blockSize(event.framedSize()));
                    }
                    if (direct == null) {
                        queued.add(event);
                        changed.signalAll();
                        return true;
                    }
                    // nothing is queued or in flight and the connection is idle: this block goes out from this
                    // thread, sparing the flusher's and the connection writer's wake-ups (what an awaited write
                    // would wait for). Whatever is sent after the claim (the flusher's next block included) waits
                    // for it on the connection, so blocks stay in event-number order.
                    number = lastEventNumber + event.count();
                    event.eventNumber = number;
                    lastEventNumber = number;
                    inflight.add(event);
                    if (sentBlocks != null) {
                        sentBlocks.add(new long[] {number, System.nanoTime()});
                    }
                    requestId = lease.nextRequestId();
                }
            }
        } finally {
            lock.unlock();
        }
        long last = number;
        long id = requestId;
        meter.block(event.count(), event.framedSize());
        event.sentOn(claimed);
        // if the connection fails, the receiver reconnects and resends what is in flight, this event included
        direct.write(out -> encodeBlock(out, List.of(event), last, id));
        return true;
    }

    /**
     * Another writer of this segment (a large write) learned that the segment is sealed or gone: this writer ends as
     * if it had learned it itself, handing its unacknowledged events to the {@link Listener} (unless it has ended
     * already). Does nothing if it was closed or failed.
     */
    public void segmentEnded() {
        end();
    }

    /** @return the segment's length after this writer's last acknowledged append, or −1 if none yet */
    public long lastAckedOffset() {
        return lastAckedOffset;
    }

    /** @return true while events are queued or in flight */
    public boolean busy() {
        lock.lock();
        try {
            return !queued.isEmpty() || !inflight.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ flusher

    private void flushLoop() {
        List<PendingEvent> batch = new ArrayList<>();
        try {
            while (true) {
                Lease on;
                long last;
                int events = 0;
                int bytes = 0;
                lock.lock();
                try {
                    while (phase == Phase.CONNECTING || (phase == Phase.READY && queued.isEmpty())) {
                        changed.await();
                    }
                    if (phase != Phase.READY) {
                        return;
                    }
                    while (!queued.isEmpty() && (batch.isEmpty() || bytes + queued.peek().framedSize() <= config.maxBlockBytes())) {
                        PendingEvent e = queued.poll();
                        lastEventNumber += e.count();
                        e.eventNumber = lastEventNumber;
                        inflight.add(e);
                        batch.add(e);
                        bytes += e.framedSize();
                        events += e.count();
                    }
                    on = lease;
                    last = lastEventNumber;
                    if (sentBlocks != null) {
                        sentBlocks.add(new long[] {last, System.nanoTime()});
                    }
                } finally {
                    lock.unlock();
                }
                meter.block(events, bytes);
                send(on, batch, last);
                batch = new ArrayList<>();
            }
        } catch (InterruptedException e) {
            // closed
        }
    }

    /** Hands a block to the connection; if it is gone, the receiver reconnects and resends from {@code inflight}. */
    private void send(Lease on, List<PendingEvent> batch, long last) {
        long requestId = on.nextRequestId();
        Connection connection = on.flow().connection();
        if (connection.callersMayRead()) { // else no caller would use it: spare a volatile write per event
            for (PendingEvent e : batch) {
                e.sentOn(connection);
            }
        }
        try {
            connection.sendFrames(out -> encodeBlock(out, batch, last, requestId));
        } catch (ConnectionFailedException e) {
            LOG.debug("block for {} not sent: {}", segment, e.getMessage());
        }
    }

    /**
     * Writes one block: {@code AppendBlock} with the events' frames, then {@code AppendBlockEnd}. Runs on the
     * connection's writer thread (or the thread holding a claim), straight into the socket buffer: the payloads are
     * copied once, there.
     */
    private void encodeBlock(WireOutput out, List<PendingEvent> batch, long last, long requestId) {
        AppendEncoder.writeGroups(out, writerId, batch, last, requestId);
    }

    // ------------------------------------------------------------------ receiver

    private void receiveLoop() {
        // Sessions lost in a row with appends in flight and none of them acknowledged: a segment store that sets the
        // session up but closes the connection on what we resend (e.g. a frame it refuses) must not be hammered
        // with reconnects forever. Each such session is a failed attempt of the retry policy: it waits as after a
        // lost connection (at most the policy's reconnect cap) and fails the writer when the policy gives up.
        Retry.Attempts fruitless = config.retry().attempts("sessions of the writer of " + segment, null);
        try {
            while (connect()) {
                Lease current;
                lock.lock();
                try {
                    current = lease;
                }  finally {
                    lock.unlock();
                }
                acknowledgedThisSession = false;
                try {
                    while (true) {
                        Reply r;
                        try {
                            r = current.await(Deadline.after(AWAIT_SLICE));
                        } catch (DeadlineExceededException idle) {
                            continue;
                        }
                        if (!handle(r)) {
                            return;
                        }
                    }
                } catch (ConnectionFailedException e) {
                    LOG.debug("connection for {} failed, reconnecting: {}", segment, e.getMessage());
                    meter.reconnect();
                    boolean pending = reconnecting(current);
                    if (acknowledgedThisSession || !pending) {
                        fruitless.reset();
                    } else if (!lostWithoutAcknowledgement(fruitless, e)) {
                        return;
                    }
                }
            }
        } catch (RuntimeException e) {
            fail(e instanceof SluiceException s ? s : new ProtocolException("writer of " + segment + " failed: " + e, e));
        }
    }

    /**
     * A session ended with appends in flight and none acknowledged: back off as the retry policy says, or fail the
     * writer when it gives up.
     *
     * @return false if the writer stops (failed, or interrupted because it is closing)
     */
    private boolean lostWithoutAcknowledgement(Retry.Attempts fruitless, ConnectionFailedException e) {
        try {
            fruitless.failed(e);
            return true;
        } catch (RetriesExhaustedException exhausted) {
            fail(new RetriesExhaustedException("the segment store closed the connection of the writer of " + segment
                    + " " + fruitless.failures() + " times in a row without acknowledging an append: "
                    + e.getMessage(), e));
            return false;
        } catch (StreamingInterruptedException closing) {
            return false;
        }
    }

    /** @return false when the writer is done (ended or failed) */
    private boolean handle(Reply r) {
        switch (r) {
            case DataAppended ack -> acknowledged(ack);
            case SegmentIsSealed s -> {
                end();
                return false;
            }
            case NoSuchSegment n -> {
                end();
                return false;
            }
            case WrongHost w -> {
                // acted on by the call layer (the endpoint is forgotten); the session is set up again
                throw new ConnectionFailedException(calls.failure(segment, tokens.get(), sessionToken, w).getMessage());
            }
            case AuthTokenCheckFailed a when a.isTokenExpired() -> {
                throw new ConnectionFailedException(calls.failure(segment, tokens.get(), sessionToken, a).getMessage());
            }
            case KeepAlive k -> { }
            case InvalidEventNumber e -> {
                // the segment store's last event number of this writer moved under the session (a real one still
                // applying the appends of a lost connection fails its compare-and-set) and it closes the connection:
                // set the session up again, which resends only what it does not have (as Pravega's client does)
                throw new ConnectionFailedException("segment store rejected event number " + e.eventNumber()
                        + " of writer " + writerId + " on " + segment + "; setting the session up again");
            }
            case ErrorReply e -> throw calls.failure(segment, tokens.get(), sessionToken, e);
            default -> LOG.debug("writer of {} ignores {}", segment, r);
        }
        return true;
    }

    /**
     * Takes acknowledgements on the connection's reader thread (see {@link io.sluice.connection.Flow#intercept}): completing the
     * acknowledged events there spares a hand-over to the receiver, which an awaited write would wait for. Only takes
     * the lock briefly; the events' futures complete without running user code (the writer hands users copies
     * whose stages run elsewhere). Acknowledgements are facts about the segment ("durable up to N"), so taking one
     * late, or from a connection that has since been replaced, is harmless.
     */
    private boolean takeAcknowledgement(Reply r) {
        if (r instanceof DataAppended ack) {
            acknowledged(ack);
            return true;
        }
        return false;
    }

    private void acknowledged(DataAppended ack) {
        acknowledgedThisSession = true;
        acknowledge(ack.eventNumber(), ack.currentSegmentWriteOffset());
    }

    private void acknowledge(long eventNumber, long segmentOffset) {
        List<PendingEvent> done = new ArrayList<>();
        List<long[]> blocks = null;
        lock.lock();
        try {
            if (segmentOffset > lastAckedOffset) {
                lastAckedOffset = segmentOffset;
            }
            while (!inflight.isEmpty() && inflight.peek().eventNumber <= eventNumber) {
                done.add(inflight.poll());
            }
            blocks = acknowledgedBlocks(eventNumber);
        } finally {
            lock.unlock();
        }
        recordLatencies(blocks);
        PendingEvent.succeedAll(done);
    }

    /** Under the lock: takes the blocks acknowledged up to {@code eventNumber} off {@link #sentBlocks} (or null). */
    private List<long[]> acknowledgedBlocks(long eventNumber) {
        if (sentBlocks == null || sentBlocks.isEmpty() || sentBlocks.peek()[0] > eventNumber) {
            return null;
        }
        List<long[]> blocks = new ArrayList<>();
        while (!sentBlocks.isEmpty() && sentBlocks.peek()[0] <= eventNumber) {
            blocks.add(sentBlocks.poll());
        }
        return blocks;
    }

    private void recordLatencies(List<long[]> blocks) {
        if (blocks != null) {
            long now = System.nanoTime();
            for (long[] b : blocks) {
                meter.acknowledged(now - b[1]);
            }
        }
    }

    /** @return the events (or their framed bytes) queued or in flight, for the metrics' gauges */
    private long pendingTotal(boolean bytes) {
        long total = 0;
        lock.lock();
        try {
            for (PendingEvent e : queued) {
                total += bytes ? e.framedSize() : e.count();
            }
            for (PendingEvent e : inflight) {
                total += bytes ? e.framedSize() : e.count();
            }
        } finally {
            lock.unlock();
        }
        return total;
    }

    /** @return whether appends were in flight when the connection broke */
    private boolean reconnecting(Lease broken) {
        boolean pending;
        lock.lock();
        try {
            if (phase == Phase.READY) {
                phase = Phase.CONNECTING;
            }
            pending = !inflight.isEmpty();
        } finally {
            lock.unlock();
        }
        broken.close();
        return pending;
    }

    /**
     * Connects (with retries), sets up the append session, completes what the server has and resends the rest.
     *
     * @return false if the writer should stop (ended, failed, closed)
     */
    private boolean connect() {
        try {
            return config.retry().run("append setup on segment " + segment, () -> {
                lock.lock();
                try {
                    if (phase != Phase.CONNECTING) {
                        return false;
                    }
                } finally {
                    lock.unlock();
                }
                return setupOnce();
            });
        } catch (SluiceException e) {
            fail(e);
            return false;
        }
    }

    private boolean setupOnce() {
        Deadline deadline = Deadline.after(config.setupTimeout());
        Lease l = calls.lease(segment, deadline);
        boolean handedOver = false;
        try {
            DelegationTokenProvider p = tokens.get();
            String token = calls.token(p, deadline);
            sessionToken = token;
            long id = l.nextRequestId();
            l.send(new SetupAppend(id, writerId, segment, token));
            Reply r = l.await(deadline);
            switch (r) {
                case AppendSetup s -> {
                    resume(l, s.lastEventNumber());
                    handedOver = true;
                    return true;
                }
                case NoSuchSegment n -> {
                    end();
                    return false;
                }
                case ErrorReply e -> throw calls.failure(segment, p, token, e);
                default -> throw new ProtocolException("segment store answered SetupAppend of " + segment + " with " + r.type());
            }
        } finally {
            if (!handedOver) {
                l.close();
            }
        }
    }

    /** The session is set up: complete what the server has, resend the rest, then let the flusher go. */
    private void resume(Lease l, long serverLast) {
        List<PendingEvent> done = new ArrayList<>();
        List<PendingEvent> resend;
        List<long[]> blocks;
        lock.lock();
        try {
            while (!inflight.isEmpty() && serverLast != Long.MIN_VALUE && inflight.peek().eventNumber <= serverLast) {
                done.add(inflight.poll());
            }
            if (serverLast != Long.MIN_VALUE && lastEventNumber < serverLast) {
                // the server knows this writer id further than we do: continue after its number
                lastEventNumber = serverLast;
            }
            blocks = serverLast == Long.MIN_VALUE ? null : acknowledgedBlocks(serverLast);
            resend = new ArrayList<>(inflight);
            lease = l;
            l.flow().intercept(this::takeAcknowledgement);
        } finally {
            lock.unlock();
        }
        recordLatencies(blocks);
        PendingEvent.succeedAll(done);
        // resend in order, in blocks, before anything new
        List<PendingEvent> block = new ArrayList<>();
        int bytes = 0;
        for (PendingEvent e : resend) {
            if (!block.isEmpty() && bytes + e.framedSize() > config.maxBlockBytes()) {
                send(l, block, block.get(block.size() - 1).eventNumber);
                block = new ArrayList<>();
                bytes = 0;
            }
            block.add(e);
            bytes += e.framedSize();
        }
        if (!block.isEmpty()) {
            send(l, block, block.get(block.size() - 1).eventNumber);
        }
        lock.lock();
        try {
            if (phase == Phase.CONNECTING) {
                phase = Phase.READY;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** The segment is sealed or gone: hand every unacknowledged event back for re-routing. */
    private void end() {
        List<PendingEvent> unacked;
        Lease l;
        lock.lock();
        try {
            if (phase == Phase.ENDED || phase == Phase.CLOSED || phase == Phase.FAILED) {
                return;
            }
            phase = Phase.ENDED;
            l = takeLease();
            unacked = new ArrayList<>(inflight);
            unacked.addAll(queued);
            inflight.clear();
            queued.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        forgetBlocks();
        closeLease(l);
        LOG.debug("segment {} ended with {} unacknowledged events", segment, unacked.size());
        listener.segmentEnded(segment, unacked);
    }

    /** The writer is done: no latency to record any more, and its events leave the in-flight gauges. */
    private void forgetBlocks() {
        if (sentBlocks != null) {
            lock.lock();
            try {
                sentBlocks.clear();
            } finally {
                lock.unlock();
            }
        }
        meter.close();
    }

    /** Under the lock: forget the lease; the caller closes it after unlocking. */
    private Lease takeLease() {
        Lease l = lease;
        lease = null;
        return l;
    }

    private static void closeLease(Lease l) {
        if (l != null) {
            l.close();
        }
    }

    private void fail(SluiceException cause) {
        List<PendingEvent> failed;
        Lease l;
        lock.lock();
        try {
            if (phase == Phase.ENDED || phase == Phase.CLOSED || phase == Phase.FAILED) {
                return;
            }
            phase = Phase.FAILED;
            l = takeLease();
            failure = cause;
            failed = new ArrayList<>(inflight);
            failed.addAll(queued);
            inflight.clear();
            queued.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        forgetBlocks();
        closeLease(l);
        LOG.warn("writer of segment {} failed; {} pending events fail with it: {}", segment, failed.size(), cause.getMessage());
        // wrapped once: a future failed with anything else wraps it anew (with a stack trace) for each dependent
        // stage, which for a million pending events takes tens of seconds; get() and join() unwrap it
        CompletionException wrapped = new CompletionException(cause);
        failed.forEach(e -> e.future().completeExceptionally(wrapped));
    }

    /**
     * Stops the writer. Events still pending fail with a closed-writer error; flush first to avoid that.
     * Idempotent.
     */
    @Override
    public void close() {
        List<PendingEvent> abandoned;
        Lease l;
        lock.lock();
        try {
            if (phase == Phase.CLOSED) {
                return;
            }
            boolean alive = phase == Phase.READY || phase == Phase.CONNECTING;
            phase = Phase.CLOSED;
            abandoned = alive ? new ArrayList<>(inflight) : List.of();
            if (alive) {
                abandoned.addAll(queued);
            }
            inflight.clear();
            queued.clear();
            l = takeLease();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        forgetBlocks();
        flusher.interrupt();
        receiver.interrupt();
        closeLease(l);
        SluiceException closed = new WriterClosedException("the writer of segment " + segment + " was closed before the event was durable");
        CompletionException wrapped = new CompletionException(closed); // see fail
        abandoned.forEach(e -> e.future().completeExceptionally(wrapped));
    }

    @Override
    public String toString() {
        return "SegmentWriter[" + segment + ", writer " + writerId + "]";
    }
}
