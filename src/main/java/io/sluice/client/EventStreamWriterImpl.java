package io.sluice.client;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.auth.AccessOperation;
import io.sluice.segment.DelegationTokenProvider;
import io.sluice.common.Deadline;
import io.sluice.common.KeyHash;
import io.sluice.common.Threads;
import io.sluice.controller.ControllerClient;
import io.sluice.controller.SegmentSuccessors;
import io.sluice.controller.StreamSegments;
import io.sluice.errors.BackpressureTimeoutException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.errors.WriterClosedException;
import io.sluice.segment.LargeEventWriter;
import io.sluice.segment.PendingEvent;
import io.sluice.segment.SegmentCalls;
import io.sluice.segment.SegmentStores;
import io.sluice.segment.SegmentWriter;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializer;
import io.sluice.stream.StreamCut;
import io.sluice.stream.WriteHandle;
import io.sluice.stream.WriterConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes events to one {@link SegmentWriter} per segment by Pravega's routing hash, and follows scaling: when a
 * segment ends, its unacknowledged events move — in order, before any later write of the same keys — to the
 * successor segments that cover its key range.
 */
final class EventStreamWriterImpl<T> implements EventStreamWriter<T>, SegmentWriter.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(EventStreamWriterImpl.class);

    /**
     * A key range served by a segment writer; {@code writer} is null where the range's segment ended without
     * successors (the stream is sealed there): no other segment may take those keys.
     */
    private record Route(double low, double high, Segment segment, LazyWriter writer) {
        boolean sealed() {
            return writer == null;
        }
    }

    /**
     * The routes in the order of their key ranges, searched by the high ends: two arrays instead of a tree, since a
     * writer of a stream of a thousand segments holds a thousand routes (and a client may hold a thousand such
     * writers). Immutable.
     */
    private static final class RouteTable {
        private final double[] highs;
        private final Route[] routes;

        /** @param ordered routes of disjoint key ranges, in ascending order */
        RouteTable(List<Route> ordered) {
            routes = ordered.toArray(new Route[0]);
            highs = new double[routes.length];
            for (int i = 0; i < routes.length; i++) {
                highs[i] = routes[i].high();
            }
        }

        /**
         * @return the route of the smallest high end at or above {@code key}, exactly as Pravega's Java client picks
         *     (so both route a key alike); keys are in [0, 1) and the last range may end a hair below 1.0 by
         *     rounding, so a key above every high end takes the last route; null if there are no routes
         */
        Route lookup(double key) {
            int i = Arrays.binarySearch(highs, key);
            if (i < 0) {
                i = -i - 1;
            }
            return routes.length == 0 ? null : routes[Math.min(i, routes.length - 1)];
        }

        List<Route> all() {
            return Arrays.asList(routes);
        }
    }

    /**
     * The writer of one segment, started on the first event for it: a stream's writer that writes few keys (or
     * one, as each of a thousand writers on a thousand segments may) connects only to the segments it uses. Shared
     * by the routes of every range the segment serves.
     */
    private static final class LazyWriter {
        private final EventStreamWriterImpl<?> owner;
        private final Segment segment;
        /** Set once, under the owner's routingLock; read without it. */
        private volatile SegmentWriter started;
        /** Set under the owner's routingLock once the segment ended and its routes are gone. */
        private volatile boolean retired;

        LazyWriter(EventStreamWriterImpl<?> owner, Segment segment) {
            this.owner = owner;
            this.segment = segment;
        }

        /**
         * @return the segment's writer, started now if this is its first use; null if the segment ended before it
         *     was ever used (its successors are installed: route again)
         * @throws WriterClosedException if the stream's writer is closed (no segment writer starts after that)
         */
        SegmentWriter get() {
            SegmentWriter w = started;
            return w != null ? w : start();
        }

        private SegmentWriter start() {
            owner.routingLock.lock();
            try {
                if (started == null) {
                    if (retired) {
                        return null;
                    }
                    if (owner.closed) {
                        throw new WriterClosedException("the writer of stream " + owner.stream + " is closed");
                    }
                    // starting a segment writer starts its threads; it connects in the background, not here
                    started = owner.newSegmentWriter(segment);
                }
                return started;
            } finally {
                owner.routingLock.unlock();
            }
        }

        /** @return the segment's writer if it started, else null */
        SegmentWriter ifStarted() {
            return started;
        }
    }

    private final ScopedStream stream;
    private final Serializer<T> serializer;
    private final WriterConfig config;
    private final ControllerClient controller;
    private final SegmentStores stores;
    private final DelegationTokenProvider tokens;
    private final UUID writerId = UUID.randomUUID();
    private final Semaphore room;
    private final WriteTracker tracker;
    private final LargeEventWriter large;
    private final LargeWriteQueue largeWrites;

    private final ReentrantLock routingLock = new ReentrantLock();
    /**
     * Replaced (never changed) under routingLock. One writer per segment: the routes of a successor that serves
     * several ranges share it.
     */
    private volatile RouteTable routes;
    /** Segments that ended and whose successors are being installed; writes to their range wait on these. */
    private final ConcurrentHashMap<Segment, CompletableFuture<Void>> transitions = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private volatile boolean notedTime;
    /** Counted down by close: stops the automatic noting of time. */
    private final CountDownLatch closing = new CountDownLatch(1);
    /** Notes the time every few seconds if the configuration says so, else null. */
    private final Thread timeNoter;

    EventStreamWriterImpl(ScopedStream stream, Serializer<T> serializer, WriterConfig config, ControllerClient controller,
                          SegmentStores stores) {
        this.stream = stream;
        this.serializer = Objects.requireNonNull(serializer, "serializer");
        this.config = Objects.requireNonNull(config, "config");
        this.controller = controller;
        this.stores = stores;
        this.room = new Semaphore((int) config.maxOutstandingBytes());
        this.tracker = new WriteTracker(room::release);
        this.large = new LargeEventWriter(stores.calls().withConfig(new SegmentCalls.Config(
                RetryPolicies.toRetry(config.retry()), Duration.ofSeconds(30))));
        this.largeWrites = new LargeWriteQueue(stream.toString(), config.backpressureTimeout());
        this.tokens = DelegationTokenProvider.fromController(controller, stream, AccessOperation.READ_WRITE);
        StreamSegments current = controller.currentSegments(stream);
        if (current.ranges().isEmpty()) {
            throw new SegmentSealedException("stream " + stream + " has no open segments: it is sealed");
        }
        tokens.offer(current.delegationToken());
        List<Route> initial = new ArrayList<>(current.ranges().size());
        for (SegmentWithRange r : current.ranges()) {
            initial.add(new Route(r.low(), r.high(), r.segment(), new LazyWriter(this, r.segment())));
        }
        initial.sort(Comparator.comparingDouble(Route::high));
        routes = new RouteTable(initial);
        timeNoter = config.automaticallyNoteTime()
                ? Threads.startVirtual("sluice-writer-note-time", this::noteTimeEveryFewSeconds) : null;
    }

    /** The official client's automatic noting: the current time every {@code AUTOMATIC_NOTE_TIME_SECONDS}. */
    private void noteTimeEveryFewSeconds() {
        try {
            while (!closing.await(WriterConfig.AUTOMATIC_NOTE_TIME_SECONDS, TimeUnit.SECONDS)) {
                try {
                    noteTimeNow(System.currentTimeMillis());
                } catch (SluiceException e) {
                    LOG.debug("writer {} could not note the time on {}: {}", writerId, stream, e.toString());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Under routingLock: a new writer of {@code segment}. Each segment writer has a writer id of its own (as in
     * Pravega's client): a segment store keys append sessions by writer id per connection, so two segments appended
     * to with one id over a shared pooled connection would take over each other's session.
     */
    private SegmentWriter newSegmentWriter(Segment segment) {
        SegmentWriter.Config segmentConfig = new SegmentWriter.Config(RetryPolicies.toRetry(config.retry()),
                config.maxBlockBytes(), Duration.ofSeconds(30));
        return new SegmentWriter(segment.qualifiedName(), UUID.randomUUID(), stores, () -> tokens, segmentConfig, this);
    }

    @Override
    public WriteHandle write(String routingKey, T event) {
        Objects.requireNonNull(event, "event");
        ByteBuffer payload = serializer.serialize(event);
        if (payload.remaining() > WriterConfig.MAX_EVENT_BYTES) {
            return writeLarge(routingKey, List.of(payload));
        }
        return submit(PendingEvent.of(routingKey, payload));
    }

    @Override
    public WriteHandle write(T event) {
        return write(null, event);
    }

    @Override
    public void writeAndWait(String routingKey, T event) {
        write(routingKey, event).await();
    }

    @Override
    public WriteHandle writeAll(String routingKey, List<T> events) {
        Objects.requireNonNull(events, "events");
        List<ByteBuffer> payloads = new ArrayList<>(events.size());
        for (T e : events) {
            payloads.add(serializer.serialize(Objects.requireNonNull(e, "an event of events")));
        }
        long framed = 0;
        boolean oversized = false;
        for (ByteBuffer p : payloads) {
            framed += 8L + p.remaining();
            oversized |= p.remaining() > WriterConfig.MAX_EVENT_BYTES;
        }
        if (oversized || (config.largeEvents() && framed > PendingEvent.MAX_BATCH_SIZE)) {
            return writeLarge(routingKey, payloads);
        }
        return submit(new PendingEvent(routingKey, payloads));
    }

    /**
     * An event over 8 MiB (or a batch too large for one append): written as Pravega's client writes it, through a
     * transient segment merged into the key's segment after every earlier write of this writer; it runs in the
     * background ({@link LargeWriteQueue}), so the next large event can travel while this one merges.
     */
    private WriteHandle writeLarge(String routingKey, List<ByteBuffer> payloads) {
        if (!config.largeEvents()) {
            int largest = payloads.stream().mapToInt(ByteBuffer::remaining).max().orElse(0);
            throw new IllegalArgumentException("event of " + largest + " bytes exceeds the maximum event size of "
                    + WriterConfig.MAX_EVENT_BYTES + " bytes; to write larger events, configure the writer with "
                    + "WriterConfig.withLargeEvents(true)");
        }
        if (closed) {
            throw new WriterClosedException("the writer of stream " + stream + " is closed");
        }
        // as Pravega's client does: the writer's earlier events first, so the large event lands after them; later
        // large events travel meanwhile, and merge after it
        CompletableFuture<Void> earlierSmall = tracker.flush();
        CompletableFuture<Void> done = largeWrites.begin(earlierSmall, beforeMerge -> {
            try {
                writeLargeToKey(routingKey, payloads, beforeMerge);
            } catch (SluiceException e) {
                LOG.warn("large write of {} events to {} failed: {}", payloads.size(), stream, e.getMessage());
                throw e;
            }
        });
        return new Handle(done, null);
    }

    /** Writes to the segment that takes the key now, following scales until one takes the events or none is left. */
    private void writeLargeToKey(String routingKey, List<ByteBuffer> payloads, Runnable beforeMerge) {
        double key = keyOf(routingKey);
        while (true) {
            Route r = routes.lookup(key);
            if (r == null || r.sealed()) {
                throw new SegmentSealedException("stream " + stream + " is sealed: no segment takes key " + routingKey);
            }
            SegmentWriter ofSegment = r.writer().get();
            if (ofSegment == null) {
                // the segment ended before this writer used it: its successors are in the routes now
                continue;
            }
            try {
                large.write(r.segment().qualifiedName(), tokens, payloads, beforeMerge);
                return;
            } catch (SegmentSealedException e) {
                LOG.info("large write to {} found it ended ({}): following to its successors", r.segment(),
                        e.getMessage());
                // the segment's writer ends as if it had seen the seal itself: successors are installed and its
                // unacknowledged events move there, in order
                ofSegment.segmentEnded();
                awaitTransition(r.segment());
            }
        }
    }

    private WriteHandle submit(PendingEvent event) {
        if (closed) {
            throw new WriterClosedException("the writer of stream " + stream + " is closed");
        }
        // after the writer's large writes begun before it: they merge first
        largeWrites.awaitBegun();
        int charge = WriteTracker.charge(event, config.maxOutstandingBytes());
        acquire(charge);
        event.charge(charge);
        // the epoch gives the bytes back and counts the write done when it settles
        event.onSettled(tracker.register());
        try {
            route(event);
        } catch (RuntimeException e) {
            event.future().completeExceptionally(e);
            throw e;
        }
        return new Handle(event.future(), event);
    }

    private void acquire(int bytes) {
        try {
            if (!room.tryAcquire(bytes, config.backpressureTimeout().toNanos(), TimeUnit.NANOSECONDS)) {
                throw new BackpressureTimeoutException("the writer of stream " + stream + " held "
                        + (config.maxOutstandingBytes() - room.availablePermits())
                        + " bytes of unacknowledged events (with " + WriterConfig.EVENT_OVERHEAD_BYTES
                        + " bytes of bookkeeping each) for "
                        + config.backpressureTimeout().toMillis() + " ms: the server is not keeping up");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while waiting for room in the writer of " + stream, e);
        }
    }

    private double keyOf(String routingKey) {
        return routingKey == null ? ThreadLocalRandom.current().nextDouble() : KeyHash.routingKey(routingKey);
    }

    /** Hands the event to the writer of its segment, waiting out a scale of that segment if one is under way. */
    private void route(PendingEvent event) {
        double key = keyOf(event.routingKey());
        while (true) {
            Route r = routes.lookup(key);
            if (r == null || r.sealed()) {
                throw new SegmentSealedException("stream " + stream + " is sealed: no segment takes key " + event.routingKey());
            }
            SegmentWriter ofSegment = r.writer().get();
            if (ofSegment == null) {
                // the segment ended before this writer used it: its successors are in the routes now
                continue;
            }
            if (ofSegment.write(event)) {
                return;
            }
            // the segment ended: wait until its successors are installed, then route again
            awaitTransition(r.segment());
        }
    }

    private void awaitTransition(Segment segment) {
        CompletableFuture<Void> t = transitions.computeIfAbsent(segment, s -> new CompletableFuture<>());
        try {
            t.get(config.backpressureTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while the writer of " + stream + " followed a scale", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof SluiceException s ? s : new SluiceException("scaling of " + stream + " failed", e.getCause());
        } catch (TimeoutException e) {
            throw new DeadlineExceededException("the writer of " + stream + " could not find the successors of segment "
                    + segment + " in time");
        }
    }

    /**
     * A segment ended (sealed by a scale, or the stream sealed): install its successors and move its unacknowledged
     * events to them, in order, before anything written later can get there.
     */
    @Override
    public void segmentEnded(String segmentName, List<PendingEvent> unacknowledged) {
        Segment ended = Segment.parse(segmentName);
        CompletableFuture<Void> transition = transitions.computeIfAbsent(ended, s -> new CompletableFuture<>());
        try {
            SegmentSuccessors successors = controller.successors(ended);
            tokens.offer(successors.delegationToken());
            SegmentWriter old;
            routingLock.lock();
            try {
                // a successor may serve ranges of several predecessors: all its routes share one writer
                Map<Segment, LazyWriter> shared = new HashMap<>();
                for (Route r : routes.all()) {
                    if (!r.sealed() && !r.segment().equals(ended)) {
                        shared.putIfAbsent(r.segment(), r.writer());
                    }
                }
                List<Route> next = new ArrayList<>();
                old = null;
                for (Route gone : routes.all()) {
                    if (!gone.segment().equals(ended)) {
                        next.add(gone);
                        continue;
                    }
                    if (!gone.sealed()) {
                        // a holder of the segment that was never started stays unstarted: its users route again
                        gone.writer().retired = true;
                        old = gone.writer().ifStarted();
                    }
                    if (successors.ranges().isEmpty()) {
                        // its keys go nowhere now: left uncovered, they would fall to a neighbouring segment's route,
                        // which would take this segment's unacknowledged events (which the segment holds already if
                        // its end was not real) and later writes of its keys
                        next.add(new Route(gone.low(), gone.high(), ended, null));
                    }
                    for (SegmentWithRange s : successors.ranges()) {
                        // clip each successor to the ended segment's range: other predecessors keep theirs
                        double low = Math.max(s.low(), gone.low());
                        double high = Math.min(s.high(), gone.high());
                        if (low < high) {
                            next.add(new Route(low, high, s.segment(),
                                    shared.computeIfAbsent(s.segment(), seg -> new LazyWriter(this, seg))));
                        }
                    }
                }
                next.sort(Comparator.comparingDouble(Route::high));
                RouteTable table = new RouteTable(next);
                for (PendingEvent e : unacknowledged) {
                    Route r = table.lookup(keyOf(e.routingKey()));
                    // queue only: no socket write under the routing lock
                    if (r == null || r.sealed() || !r.writer().get().queue(e)) {
                        e.future().completeExceptionally(new SegmentSealedException("stream " + stream + " is sealed"));
                    }
                }
                routes = table;
            } finally {
                routingLock.unlock();
            }
            if (successors.ranges().isEmpty()) {
                LOG.info("segment {} of {} ended without successors: the stream is sealed", ended, stream);
            }
            transition.complete(null);
            if (old != null) {
                old.close();
            }
        } catch (RuntimeException e) {
            LOG.warn("writer of {} could not follow the end of segment {}", stream, ended, e);
            unacknowledged.forEach(p -> p.future().completeExceptionally(e));
            transition.completeExceptionally(e);
        }
        // the completed transition stays: a writer that still holds the old routes finds it and routes again
    }

    @Override
    public void flush() {
        // completes when both have, exceptionally if either failed
        CompletableFuture<Void> all = CompletableFuture.allOf(tracker.flush(), largeWrites.flush());
        try {
            all.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while flushing the writer of " + stream, e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof SluiceException s ? s : new SluiceException("a write to " + stream + " failed", e.getCause());
        }
    }

    @Override
    public void noteTime(long timestamp) {
        if (timestamp < 0) {
            throw new IllegalArgumentException("timestamp must not be negative: " + timestamp);
        }
        if (config.automaticallyNoteTime()) {
            throw new IllegalStateException("writer " + writerId + " notes the time automatically "
                    + "(WriterConfig.automaticallyNoteTime): noteTime must not be called too");
        }
        noteTimeNow(timestamp);
    }

    private void noteTimeNow(long timestamp) {
        Map<Segment, Long> positions = new TreeMap<>();
        for (Route r : routes.all()) {
            if (r.sealed()) {
                continue;
            }
            SegmentWriter w = r.writer().ifStarted();
            // a segment not written to yet counts as one with nothing acknowledged
            long offset = w == null ? -1 : w.lastAckedOffset();
            positions.put(r.segment(), Math.max(0, offset));
        }
        controller.noteTimestampFromWriter(writerId.toString(), stream, timestamp, StreamCut.of(positions));
        notedTime = true;
    }

    /** @return how many segment writers of the current routes have started (the others start on first use) */
    int startedSegmentWriters() {
        return startedOfRoutes().size();
    }

    /** @return the started segment writers of the current routes, each once */
    private List<SegmentWriter> startedOfRoutes() {
        Set<SegmentWriter> started = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Route r : routes.all()) {
            if (!r.sealed() && r.writer().ifStarted() != null) {
                started.add(r.writer().ifStarted());
            }
        }
        return new ArrayList<>(started);
    }

    @Override
    public WriterConfig config() {
        return config;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            flush();
        } catch (SluiceException e) {
            // failed writes already failed their handles; close still releases everything
            LOG.warn("closing the writer of {}: some writes failed: {}", stream, e.getMessage());
        } finally {
            closed = true;
            closing.countDown();
            if (timeNoter != null) {
                try {
                    timeNoter.join(TimeUnit.SECONDS.toMillis(30));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            List<SegmentWriter> all;
            routingLock.lock();
            try {
                // the started writers of the current routes; those of ended segments were closed as they ended
                all = startedOfRoutes();
            } finally {
                routingLock.unlock();
            }
            all.forEach(SegmentWriter::close);
            if (notedTime) {
                try {
                    controller.removeWriter(writerId.toString(), stream);
                } catch (SluiceException e) {
                    LOG.debug("removing writer {} from the watermarks of {} failed", writerId, stream, e);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "EventStreamWriter[" + stream + ", writer " + writerId + "]";
    }

    /** Runs the stages users attach to {@link WriteHandle#toCompletableFuture()}, each on a new virtual thread. */
    private static final Executor CALLBACKS = task -> Threads.startVirtual("sluice-write-completion", task);

    /**
     * The handle of one write.
     *
     * @param event the event written, or null (a large write): an awaiting caller may read the connection its
     *     acknowledgement comes on itself ({@link PendingEvent#leadUntilSettled})
     */
    private record Handle(CompletableFuture<Void> future, PendingEvent event) implements WriteHandle {
        @Override
        public boolean isDone() {
            return future.isDone();
        }

        /** Reads the acknowledgement's connection on this thread until the write settles, where the connection lets it. */
        private void lead(Deadline deadline) {
            if (event != null) {
                event.leadUntilSettled(deadline);
            }
        }

        @Override
        public void await() {
            lead(Deadline.after(ChronoUnit.FOREVER.getDuration())); // capped far in the future by Deadline
            try {
                future.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StreamingInterruptedException("interrupted while waiting for a write", e);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof SluiceException s ? s : new SluiceException("write failed", e.getCause());
            }
        }

        @Override
        public void await(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("timeout must not be negative: " + timeout);
            }
            lead(Deadline.after(timeout));
            try {
                future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StreamingInterruptedException("interrupted while waiting for a write", e);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof SluiceException s ? s : new SluiceException("write failed", e.getCause());
            } catch (TimeoutException e) {
                throw new DeadlineExceededException("the write was not durable within " + timeout.toMillis() + " ms");
            }
        }

        @Override
        public CompletableFuture<Void> toCompletableFuture() {
            // the original completes on a connection's reader thread: users' stages must not run there
            return future.thenApplyAsync(v -> v, CALLBACKS);
        }
    }
}
