package io.sluice.client;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.sluice.common.Deadline;
import io.sluice.common.KeyHash;
import io.sluice.common.Threads;
import io.sluice.controller.ControllerClient;
import io.sluice.errors.BackpressureTimeoutException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.errors.TransactionFailedException;
import io.sluice.segment.DelegationTokenProvider;
import io.sluice.segment.PendingEvent;
import io.sluice.segment.SegmentStores;
import io.sluice.segment.SegmentWriter;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializer;
import io.sluice.stream.Transaction;
import io.sluice.stream.TxnState;
import io.sluice.stream.WriterConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One transaction: a {@link SegmentWriter} per transaction segment ({@code <segment>#transaction.<32 hex>}), routed
 * by Pravega's routing hash over the key ranges the controller gave, and a virtual thread that pings the lease at a
 * third of it while the transaction is open. The transaction ends once (the first of commit, abort, a lost lease, a
 * transaction segment that went away, or the writer's close wins); the reason is kept for the errors after it.
 */
final class TransactionImpl<T> implements Transaction<T>, SegmentWriter.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionImpl.class);
    private static final String TRANSACTION_DELIMITER = "#transaction.";
    private static final Duration MIN_COMPLETION_WAIT = Duration.ofMinutes(2);

    private final ScopedStream stream;
    private final UUID id;
    private final Serializer<T> serializer;
    private final WriterConfig config;
    private final ControllerClient controller;
    private final String writerId;
    private final Runnable onEnd;
    /** Fixed at creation: routes keyed by the high end of their key range. */
    private final NavigableMap<Double, SegmentWriter> routes = new TreeMap<>();
    private final Semaphore room;
    private final WriteTracker tracker;
    /** Why the transaction ended; null while it is open. Set once by compare-and-set, refined after a failure. */
    private final AtomicReference<String> ended = new AtomicReference<>();
    private final CountDownLatch stopPinging = new CountDownLatch(1);
    /** When the lease last started (creation, or the sending of the last ping the controller accepted). */
    private volatile long leaseStartNanos = System.nanoTime();

    /**
     * Starts the segment writers and the pinger of an open transaction.
     *
     * @param ranges the stream's segments the transaction writes to, with their key ranges
     */
    TransactionImpl(ScopedStream stream, UUID id, List<SegmentWithRange> ranges, Serializer<T> serializer,
                    WriterConfig config, ControllerClient controller, SegmentStores stores,
                    DelegationTokenProvider tokens, String writerId, Runnable onEnd) {
        this.stream = stream;
        this.id = Objects.requireNonNull(id, "id");
        this.serializer = Objects.requireNonNull(serializer, "serializer");
        this.config = config;
        this.controller = controller;
        this.writerId = writerId;
        this.onEnd = onEnd;
        this.room = new Semaphore((int) config.maxOutstandingBytes());
        this.tracker = new WriteTracker(room::release);
        if (ranges.isEmpty()) {
            throw new TransactionFailedException("transaction " + id + " of " + stream + " has no segments");
        }
        SegmentWriter.Config segmentConfig = new SegmentWriter.Config(RetryPolicies.toRetry(config.retry()),
                config.maxBlockBytes(), Duration.ofSeconds(30));
        for (SegmentWithRange r : ranges) {
            String name = transactionSegmentName(r.segment(), id);
            routes.put(r.high(), new SegmentWriter(name, UUID.randomUUID(), stores, () -> tokens, segmentConfig, this));
        }
        Threads.startVirtual("sluice-txn-ping-" + id, this::pingLoop);
    }

    /** A transaction that already ended (found by id in a final or closing state): it only answers status. */
    TransactionImpl(ScopedStream stream, UUID id, String why, Serializer<T> serializer, WriterConfig config,
                    ControllerClient controller, String writerId) {
        this.stream = stream;
        this.id = id;
        this.serializer = serializer;
        this.config = config;
        this.controller = controller;
        this.writerId = writerId;
        this.onEnd = () -> { };
        this.room = new Semaphore(0);
        this.tracker = new WriteTracker(room::release);
        this.ended.set(why);
        stopPinging.countDown();
    }

    /** @return Pravega's name of a transaction's segment: the parent's name, {@code #transaction.}, 32 hex digits */
    static String transactionSegmentName(Segment parent, UUID txnId) {
        return parent.qualifiedName() + TRANSACTION_DELIMITER
                + String.format("%016x%016x", txnId.getMostSignificantBits(), txnId.getLeastSignificantBits());
    }

    @Override
    public UUID id() {
        return id;
    }

    @Override
    public void write(String routingKey, T event) {
        submit(PendingEvent.of(routingKey, serializer.serialize(Objects.requireNonNull(event, "event"))));
    }

    @Override
    public void write(T event) {
        write(null, event);
    }

    @Override
    public void writeAll(String routingKey, List<T> events) {
        Objects.requireNonNull(events, "events");
        List<ByteBuffer> payloads = new ArrayList<>(events.size());
        for (T e : events) {
            payloads.add(serializer.serialize(Objects.requireNonNull(e, "an event of events")));
        }
        submit(new PendingEvent(routingKey, payloads));
    }

    private void submit(PendingEvent event) {
        checkLease();
        checkOpen("write to");
        int charge = WriteTracker.charge(event, config.maxOutstandingBytes());
        acquire(charge);
        event.charge(charge);
        // the epoch gives the bytes back and counts the write done when it settles
        event.onSettled(tracker.register());
        double key = event.routingKey() == null ? ThreadLocalRandom.current().nextDouble()
                : KeyHash.routingKey(event.routingKey());
        Map.Entry<Double, SegmentWriter> route = routes.ceilingEntry(key);
        SegmentWriter writer = route != null ? route.getValue() : routes.lastEntry().getValue();
        if (!writer.write(event)) {
            TransactionFailedException e = new TransactionFailedException(reason("write to"));
            event.future().completeExceptionally(e);
            throw e;
        }
    }

    private void acquire(int bytes) {
        try {
            if (!room.tryAcquire(bytes, config.backpressureTimeout().toNanos(), TimeUnit.NANOSECONDS)) {
                throw new BackpressureTimeoutException("transaction " + id + " of " + stream + " held "
                        + (config.maxOutstandingBytes() - room.availablePermits())
                        + " bytes of unacknowledged events (with " + WriterConfig.EVENT_OVERHEAD_BYTES
                        + " bytes of bookkeeping each) for "
                        + config.backpressureTimeout().toMillis() + " ms: the server is not keeping up");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while waiting for room in transaction " + id, e);
        }
    }

    @Override
    public void flush() {
        checkLease();
        checkOpen("flush");
        try {
            tracker.flush().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while flushing transaction " + id, e);
        } catch (ExecutionException e) {
            String why = ended.get();
            throw new TransactionFailedException(why != null ? reason("flush") : "a write to transaction " + id
                    + " of " + stream + " failed: " + e.getCause().getMessage(), e.getCause());
        }
    }

    @Override
    public void commit() {
        commit(OptionalLong.empty());
    }

    @Override
    public void commit(long timestamp) {
        if (timestamp < 0) {
            throw new IllegalArgumentException("timestamp must not be negative: " + timestamp);
        }
        commit(OptionalLong.of(timestamp));
    }

    private void commit(OptionalLong timestamp) {
        checkLease();
        if (ended.get() != null) {
            throw new TransactionFailedException(reasonWithState("commit"));
        }
        flush();
        if (!ended.compareAndSet(null, "transaction " + id + " of " + stream + " was committed")) {
            throw new TransactionFailedException(reasonWithState("commit"));
        }
        release();
        try {
            controller.commitTransaction(stream, id, writerId, timestamp);
        } catch (SluiceException e) {
            ended.set("the commit of transaction " + id + " of " + stream + " failed: " + e.getMessage());
            throw e instanceof TransactionFailedException t ? t
                    : new TransactionFailedException(ended.get(), e);
        }
        awaitState(TxnState.COMMITTED);
    }

    @Override
    public void abort() {
        boolean first = ended.compareAndSet(null, "transaction " + id + " of " + stream + " was aborted");
        release();
        TxnState state = controller.transactionState(stream, id);
        switch (state) {
            case COMMITTING, COMMITTED -> throw new TransactionFailedException("cannot abort transaction " + id
                    + " of " + stream + ": it is " + state + (first ? "" : " (" + ended.get() + ")"));
            case OPEN -> {
                try {
                    controller.abortTransaction(stream, id);
                } catch (TransactionFailedException e) {
                    // it ended meanwhile: awaitState says how
                    LOG.debug("aborting transaction {} of {}: {}", id, stream, e.getMessage());
                }
            }
            case ABORTING, ABORTED -> {
            }
        }
        awaitState(TxnState.ABORTED);
    }

    @Override
    public TxnState status() {
        return controller.transactionState(stream, id);
    }

    /**
     * Blocks until the controller reports {@code target}, polling after 2 ms, then pauses half as long again each
     * time, at most 50 ms; bounded by the larger of 2 min and twice the lease.
     */
    private void awaitState(TxnState target) {
        Duration limit = config.transactionLease().multipliedBy(2);
        Deadline deadline = Deadline.after(limit.compareTo(MIN_COMPLETION_WAIT) > 0 ? limit : MIN_COMPLETION_WAIT);
        // short pauses that grow by half: a commit's merge takes milliseconds on the embedded server and tens of
        // them on Pravega, and a doubling pause would add up to as much again to the commit's latency
        long pauseNanos = TimeUnit.MILLISECONDS.toNanos(2);
        while (true) {
            TxnState state = controller.transactionState(stream, id);
            if (state == target) {
                return;
            }
            if (state.isFinal()) {
                throw new TransactionFailedException("transaction " + id + " of " + stream + " ended " + state
                        + " instead of " + target);
            }
            if (deadline.expired()) {
                throw new TransactionFailedException("transaction " + id + " of " + stream + " was not " + target
                        + " in time: the controller still reports it " + state);
            }
            LockSupport.parkNanos(Math.min(pauseNanos, deadline.remainingNanos()));
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new StreamingInterruptedException("interrupted while waiting for transaction " + id + " of "
                        + stream + " to be " + target);
            }
            pauseNanos = Math.min(pauseNanos + pauseNanos / 2, TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    /** Pings the lease at a third of it until the transaction ends; a lease lost ends the transaction. */
    private void pingLoop() {
        Duration lease = config.transactionLease();
        long interval = Math.max(1, lease.toMillis() / 3);
        while (true) {
            try {
                if (stopPinging.await(interval, TimeUnit.MILLISECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            }
            long sent = System.nanoTime();
            try {
                TxnState state = controller.pingTransaction(stream, id, lease);
                if (state != TxnState.OPEN) {
                    end("the controller reports transaction " + id + " of " + stream + " " + state
                            + " (another client ended it, or its lease ran out)");
                    return;
                }
                leaseStartNanos = sent;
            } catch (TransactionFailedException e) {
                end("the lease of transaction " + id + " of " + stream + " was lost: " + e.getMessage());
                return;
            } catch (RuntimeException e) {
                if (System.nanoTime() - leaseStartNanos >= lease.toNanos()) {
                    end("the lease of transaction " + id + " of " + stream + " ran out: no ping succeeded for "
                            + lease.toMillis() + " ms (" + e.getMessage() + ")");
                    return;
                }
                LOG.debug("pinging transaction {} of {} failed; trying again", id, stream, e);
            }
        }
    }

    /** A transaction segment was sealed, merged or deleted: the transaction ended elsewhere. */
    @Override
    public void segmentEnded(String segment, List<PendingEvent> unacknowledged) {
        end("segment " + segment + " of transaction " + id + " ended: the transaction was committed or aborted");
        TransactionFailedException e = new TransactionFailedException(reason("write to"));
        unacknowledged.forEach(p -> p.future().completeExceptionally(e));
    }

    /** Ends the transaction for {@code why} unless it already ended. */
    void end(String why) {
        if (ended.compareAndSet(null, why)) {
            LOG.info("{}", why);
        }
        release();
    }

    /**
     * Ends the transaction if its lease ran out: no ping the controller accepted for a whole lease (the pinger could
     * not reach it, or was stopped), so the controller aborts it, if it has not already.
     */
    private void checkLease() {
        long silentNanos = System.nanoTime() - leaseStartNanos;
        if (ended.get() == null && silentNanos >= config.transactionLease().toNanos()) {
            end("the lease of transaction " + id + " of " + stream + " ran out: no ping was accepted for "
                    + TimeUnit.NANOSECONDS.toMillis(silentNanos) + " ms (lease " + config.transactionLease().toMillis()
                    + " ms), so the controller aborts it");
        }
    }

    /**
     * For tests: stops the pinger as if the application had stopped (a frozen process), so that the lease runs out.
     */
    void stopPinging() {
        stopPinging.countDown();
    }

    /** Stops the pinger and the segment writers (idempotent). */
    private void release() {
        stopPinging.countDown();
        routes.values().forEach(SegmentWriter::close);
        onEnd.run();
    }

    private void checkOpen(String what) {
        if (ended.get() != null) {
            throw new TransactionFailedException(reason(what));
        }
    }

    private String reason(String what) {
        return "cannot " + what + " transaction " + id + " of " + stream + ": " + ended.get();
    }

    private String reasonWithState(String what) {
        String state;
        try {
            state = "the controller reports it " + controller.transactionState(stream, id);
        } catch (SluiceException e) {
            state = "its state is unknown: " + e.getMessage();
        }
        return reason(what) + "; " + state;
    }

    @Override
    public String toString() {
        return "Transaction[" + id + " of " + stream + "]";
    }
}
