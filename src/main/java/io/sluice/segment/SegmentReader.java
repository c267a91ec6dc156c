package io.sluice.segment;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.segment.DelegationTokenProvider;
import io.sluice.common.Deadline;
import io.sluice.common.Retry;
import io.sluice.common.Threads;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.Lease;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.wire.AuthTokenCheckFailed;
import io.sluice.wire.ErrorReply;
import io.sluice.wire.EventFrames;
import io.sluice.wire.InvalidWireCommandException;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.Reply;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentIsTruncated;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.WrongHost;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads events of one segment from an offset, prefetching on its own virtual thread into a small buffer; or, made
 * by {@link #bytes}, the segment's raw bytes (a byte stream).
 *
 * <p>The prefetcher keeps one ReadSegment outstanding while the buffer has room; at the tail of the segment that
 * read is a long poll, answered when data arrives, so an idle segment costs a parked virtual thread and nothing
 * else (its buffer is empty). Whenever the reader gets something to hand out — an event, the end of the segment,
 * or a failure — it calls {@link Listener#ready}, so one consumer can wait on many segments at once. Events are cut
 * out of the data read by an {@link EventFrames.Reassembler}.
 *
 * <p>{@link #next()} is for a single consumer thread; everything else is thread-safe.
 */
public final class SegmentReader implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentReader.class);
    private static final Duration AWAIT_SLICE = Duration.ofSeconds(30);
    /**
     * The largest event a reader takes: what one Java array holds. Large events (written through transient
     * segments) may be far larger than the 8 MiB of an ordinary append.
     */
    public static final int MAX_EVENT_BYTES = Integer.MAX_VALUE - 16;
    /** How long connecting (and fetching a token) may take per attempt. */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);

    /** Learns that a reader has something to hand out. Called on the prefetch thread; must not block. */
    @FunctionalInterface
    public interface Listener {
        void ready(SegmentReader reader);
    }

    /**
     * How a reader behaves.
     *
     * @param bufferBytes bytes a reader may hold that the consumer has not taken yet: the largest prefetch window
     *     (an event reader starts smaller, see {@link #START_WINDOW_BYTES}; an event larger than the window is still
     *     read whole)
     * @param retry how lost connections are retried before the reader fails
     * @param fetchLargeAhead whether an event larger than the window is fetched whole as soon as its header arrives
     *     (while the consumer may still be busy with the event before it), or only once the consumer asks for it
     *     ({@link #next()} found nothing to take): then the reader holds at most the window of it until then, and a
     *     consumer that handles one event at a time never has two large events in memory at once
     */
    public record Config(int bufferBytes, Retry retry, boolean fetchLargeAhead) {
        /**
         * The window an event reader starts with when {@code bufferBytes} is larger: it doubles, up to
         * {@code bufferBytes}, when a read arrives after the consumer took everything the read before brought and the
         * segment has more beyond it (the reads, not the consumer, bound the reading).
         */
        public static final int START_WINDOW_BYTES = 256 * 1024;

        /** 256 KiB of prefetch; Pravega's retry policy; large events fetched ahead. */
        public static final Config DEFAULT = new Config(256 * 1024, Retry.withExpBackoff(Duration.ofMillis(1), 10, 10,
                Duration.ofSeconds(20)));

        /** Checks the values. */
        public Config {
            if (bufferBytes < 1024) {
                throw new IllegalArgumentException("bufferBytes must be at least 1024: " + bufferBytes);
            }
            Objects.requireNonNull(retry, "retry");
        }

        /** A reader that fetches large events ahead. */
        public Config(int bufferBytes, Retry retry) {
            this(bufferBytes, retry, true);
        }

        /** @return this configuration with {@code fetchLargeAhead} set as given */
        public Config withFetchLargeAhead(boolean fetchLargeAhead) {
            return new Config(bufferBytes, retry, fetchLargeAhead);
        }
    }

    /** What the prefetcher fills: events being reassembled, or raw bytes. Guarded by the reader's lock. */
    interface ReadBuffer {
        /** Adds the next data read (not copied). */
        void add(ByteBuffer data);

        /** @return the segment offset of the first byte not handed out */
        long offset();

        /** @return bytes added and not handed out */
        int buffered();

        /** @return true if something can be handed out */
        boolean ready();

        /** @return bytes the next item still needs before it can be handed out (0 for raw bytes) */
        int missing();
    }

    /** The event mode's buffer. */
    private record EventBuffer(EventFrames.Reassembler events) implements ReadBuffer {
        @Override
        public void add(ByteBuffer data) {
            events.add(data);
        }

        @Override
        public long offset() {
            return events.offset();
        }

        @Override
        public int buffered() {
            return events.buffered();
        }

        @Override
        public boolean ready() {
            return events.ready();
        }

        @Override
        public int missing() {
            return events.missing();
        }
    }

    /**
     * One event read.
     *
     * @param segment the segment it came from
     * @param offset the segment offset of the event's header (its position)
     * @param payload the event bytes (read-only, not copied unless it spanned two replies)
     */
    public record ReadEvent(String segment, long offset, ByteBuffer payload) {
        /** @return the offset just after this event: where a reader resuming after it starts */
        public long nextOffset() {
            return offset + framedLength();
        }

        /** @return the event's length on the wire, header included (for event pointers) */
        public int framedLength() {
            return EventFrames.framedSize(payload.remaining());
        }
    }

    private final String segment;
    private final long endOffset;
    private final SegmentCalls calls;
    private final Supplier<DelegationTokenProvider> tokens;
    private final Config config;
    private final Listener listener;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition room = lock.newCondition();
    /** Guarded by lock: received data not yet handed out, in order, and the offset of its first byte. */
    private final EventFrames.Reassembler events;
    /** Guarded by lock: raw bytes not yet handed out (byte mode), else {@code null}. */
    private final ByteChunks bytes;
    /** Guarded by lock: {@link #events} or {@link #bytes}, whichever this reader fills. */
    private final ReadBuffer data;
    /** Guarded by lock: the segment ends where {@link #data} does (sealed and read to the end). */
    private boolean endOfSegment;
    /** Guarded by lock: why reading stopped, if it failed. */
    private SluiceException failure;
    /** Guarded by lock: the prefetcher waits for the consumer to make room. */
    private boolean prefetcherWaiting;
    /**
     * Guarded by lock: the consumer found nothing to take since it last took an event, so the rest of an event larger
     * than the window may be fetched (without {@link Config#fetchLargeAhead}).
     */
    private boolean demand;
    /**
     * Guarded by lock: how many bytes the prefetcher reads ahead now, at most {@link Config#bufferBytes}. An event
     * reader starts at {@link Config#START_WINDOW_BYTES} (or the whole buffer, if smaller) and doubles it when a read
     * arrives after the consumer took everything the one before brought, and the segment has more beyond it (the
     * fetches, not the consumer, bound the reading); a byte reader uses the whole buffer from the start.
     */
    private int window;
    /** Guarded by lock: the consumer took an event since the prefetcher last delivered data. */
    private boolean tookSinceDelivery;
    /** Consumer thread: what {@link #hasSomething()} said as the last {@link #next()} returned. */
    private boolean more;
    private volatile boolean closed;
    /** Confined to the prefetcher: the token of the last read sent, which the server may refuse as expired. */
    private String sentToken = "";
    private final Thread prefetcher;

    /**
     * Starts reading over a client's shared segment stores; see the main constructor.
     */
    public SegmentReader(String segment, long startOffset, long endOffset, SegmentStores stores,
                         Supplier<DelegationTokenProvider> tokens, Config config, Listener listener) {
        this(segment, startOffset, endOffset, stores.pool(), stores.locator(), tokens, config, listener);
    }

    /**
     * Starts reading {@code segment} at {@code startOffset} (an event boundary).
     *
     * @param endOffset where to stop (an event boundary), or {@link Long#MAX_VALUE} to read until the segment ends
     */
    public SegmentReader(String segment, long startOffset, long endOffset, ConnectionPool pool, SegmentLocator locator,
                         Supplier<DelegationTokenProvider> tokens, Config config, Listener listener) {
        this(segment, startOffset, endOffset, pool, locator, tokens, config, listener, false);
    }

    /**
     * Starts reading the raw bytes of {@code segment} from {@code startOffset} until it ends, without regard to
     * events (a byte stream): take them with {@link #read(byte[], int, int)}, not {@link #next()}. The listener hears
     * of every byte that arrives while none is buffered, of the end and of a failure.
     */
    public static SegmentReader bytes(String segment, long startOffset, SegmentStores stores,
                                      Supplier<DelegationTokenProvider> tokens, Config config, Listener listener) {
        return new SegmentReader(segment, startOffset, Long.MAX_VALUE, stores.pool(), stores.locator(), tokens, config,
                listener, true);
    }

    private SegmentReader(String segment, long startOffset, long endOffset, ConnectionPool pool, SegmentLocator locator,
                          Supplier<DelegationTokenProvider> tokens, Config config, Listener listener, boolean raw) {
        this.segment = Objects.requireNonNull(segment, "segment");
        if (startOffset < 0 || endOffset < startOffset) {
            throw new IllegalArgumentException("cannot read " + segment + " from " + startOffset + " to " + endOffset);
        }
        this.endOffset = endOffset;
        if (raw) {
            this.events = null;
            this.bytes = new ByteChunks(startOffset);
            this.data = bytes;
        } else {
            this.events = new EventFrames.Reassembler(startOffset, MAX_EVENT_BYTES);
            this.bytes = null;
            this.data = new EventBuffer(events);
        }
        this.config = Objects.requireNonNull(config, "config");
        this.window = raw ? config.bufferBytes() : Math.min(config.bufferBytes(), Config.START_WINDOW_BYTES);
        this.calls = new SegmentCalls(pool, locator, new SegmentCalls.Config(config.retry(), CONNECT_TIMEOUT));
        this.tokens = Objects.requireNonNull(tokens, "tokens");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.endOfSegment = startOffset >= endOffset;
        this.prefetcher = Threads.startVirtual("sluice-reader-" + segment, this::prefetchLoop);
    }

    /** @return the segment */
    public String segment() {
        return segment;
    }

    /**
     * Takes the next complete event, if one is buffered.
     *
     * @return the event, or {@code null} if none is complete yet (or the segment ended: see {@link #isFinished()})
     * @throws SluiceException the failure that stopped the reader (e.g. {@link io.sluice.errors.SegmentTruncatedException}
     *     when the data at the reader's offset was truncated away), once every buffered event has been taken
     */
    public ReadEvent next() {
        if (events == null) {
            throw new IllegalStateException("reader of " + segment + " reads bytes, not events: use read");
        }
        lock.lock();
        try {
            ReadEvent e = takeEvent();
            if (e == null && failure != null) {
                more = true;
                throw failure;
            }
            demand = e == null;
            if (e != null) {
                tookSinceDelivery = true;
            }
            if (demand && prefetcherWaiting && holdingBack()) {
                room.signal();
            }
            more = somethingBuffered();
            return e;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Byte mode ({@link #bytes}): moves up to {@code len} buffered bytes into {@code dst} without waiting.
     *
     * @return how many bytes were moved; 0 if none is buffered yet (wait for the listener); −1 at the end of a
     *     sealed segment, once every byte has been taken
     * @throws SluiceException the failure that stopped the reader (e.g. {@link io.sluice.errors.SegmentTruncatedException}
     *     when the data at the reader's offset was truncated away), once every buffered byte has been taken
     * @throws IllegalStateException if this reader reads events
     */
    public int read(byte[] dst, int off, int len) {
        if (bytes == null) {
            throw new IllegalStateException("reader of " + segment + " reads events, not bytes: use next");
        }
        Objects.checkFromIndexSize(off, len, dst.length);
        lock.lock();
        try {
            if (bytes.buffered() == 0) {
                if (failure != null) {
                    throw failure;
                }
                return endOfSegment ? -1 : 0;
            }
            int n = bytes.take(dst, off, len);
            wakePrefetcherIfRoom();
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** @return bytes buffered and not taken yet (byte mode), or bytes of events not taken yet; never blocks */
    public int available() {
        lock.lock();
        try {
            return data.buffered();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Says, without taking the lock again, what {@link #hasSomething()} would have said when the last {@link #next()}
     * returned. The consumer uses it to go on with this segment without waiting for the listener. Consumer thread.
     *
     * @return true if, as the last {@link #next()} left it, the next call returns an event, throws, or finds the end
     */
    public boolean hadMore() {
        return more;
    }

    /** @return true once the segment (or the requested range) has been read completely and every event taken */
    public boolean isFinished() {
        lock.lock();
        try {
            return endOfSegment && data.buffered() == 0;
        } finally {
            lock.unlock();
        }
    }

    /** @return true if {@link #next()} would return an event, throw, or the reader finished */
    public boolean hasSomething() {
        lock.lock();
        try {
            return somethingBuffered();
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: what {@link #hasSomething()} answers. */
    private boolean somethingBuffered() {
        return (endOfSegment && data.buffered() == 0) || failure != null || data.ready();
    }

    /** @return the offset of the next event to be taken: where this reader stands */
    public long position() {
        lock.lock();
        try {
            return data.offset();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: takes the next event if it is complete. Bytes that hold no event (their header is not an event
     * header of at most {@link #MAX_EVENT_BYTES} bytes) fail the reader as soon as the header is here.
     */
    private ReadEvent takeEvent() {
        long offset = events.offset();
        ByteBuffer payload;
        try {
            payload = events.take();
        } catch (InvalidWireCommandException e) {
            failure = new ProtocolException("segment " + segment + " holds no event at offset " + offset + " ("
                    + e.getMessage() + "): is it a byte stream, or was the offset not an event boundary?", e);
            events.clear();
            return null;
        }
        if (payload == null) {
            return null;
        }
        wakePrefetcherIfRoom();
        return new ReadEvent(segment, offset, payload);
    }

    /**
     * Under the lock: true if the window is full of an incomplete event that {@link Config#fetchLargeAhead} says not
     * to fetch before the consumer asks for it. (When the consumer has asked, the rest of the event is fetched.)
     */
    private boolean holdingBack() {
        return !config.fetchLargeAhead() && events != null && !data.ready() && data.missing() > 0
                && data.buffered() >= window;
    }

    /**
     * @return true if the prefetcher waits for the consumer to ask for an event larger than the window before it
     *     fetches the rest (see {@link Config#fetchLargeAhead}); for tests and diagnostics
     */
    public boolean waitsForDemand() {
        lock.lock();
        try {
            return prefetcherWaiting && holdingBack() && !demand;
        } finally {
            lock.unlock();
        }
    }

    /** @return how many bytes the prefetcher reads ahead now (see {@link Config}); for tests and diagnostics */
    public int window() {
        lock.lock();
        try {
            return window;
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: wakes the prefetcher only when it waits and now has something to do. */
    private void wakePrefetcherIfRoom() {
        if (prefetcherWaiting && (data.buffered() < window / 2 || !data.ready())) {
            room.signal();
        }
    }

    // ------------------------------------------------------------------ prefetch

    private void prefetchLoop() {
        Lease lease = null;
        long readOffset;
        lock.lock();
        try {
            readOffset = data.offset();
        } finally {
            lock.unlock();
        }
        try {
            while (!closed && readOffset < endOffset) {
                int want;
                lock.lock();
                try {
                    // an event larger than the window is fetched whole (without fetchLargeAhead, once the consumer
                    // asks for it): the consumer cannot make room before it is
                    while (!closed && !endOfSegment && (data.buffered() >= window / 2 && data.ready()
                            || holdingBack() && !demand)) {
                        prefetcherWaiting = true;
                        try {
                            room.await();
                        } finally {
                            prefetcherWaiting = false;
                        }
                    }
                    if (closed || endOfSegment) {
                        return;
                    }
                    int missing = config.fetchLargeAhead() || demand ? data.missing() : 0;
                    want = (int) Math.min(Math.max(window - data.buffered(), missing),
                            endOffset - readOffset);
                } finally {
                    lock.unlock();
                }
                if (lease == null) {
                    lease = connect();
                }
                Reply reply;
                try {
                    reply = read(lease, readOffset, want);
                } catch (ConnectionFailedException e) {
                    LOG.debug("reading {} lost its connection: {}", segment, e.getMessage());
                    lease.close();
                    lease = null;
                    continue;
                }
                switch (reply) {
                    case SegmentRead r -> {
                        if (r.offset() != readOffset) {
                            throw new ProtocolException("segment store answered a read of " + segment + " at " + readOffset
                                    + " with data at " + r.offset());
                        }
                        ByteBuffer data = r.data();
                        int n = (int) Math.min(data.remaining(), endOffset - readOffset);
                        readOffset += n;
                        deliver(data.limit(data.position() + n), r.endOfSegment() || readOffset >= endOffset,
                                !r.atTail());
                    }
                    case SegmentIsSealed s -> deliver(ByteBuffer.allocate(0), true, false);
                    case SegmentIsTruncated t -> {
                        fail(calls.failure(segment, tokens.get(), sentToken, t));
                        return;
                    }
                    case NoSuchSegment n -> {
                        fail(calls.failure(segment, tokens.get(), sentToken, n));
                        return;
                    }
                    case WrongHost w -> {
                        calls.failure(segment, tokens.get(), sentToken, w);
                        lease.close();
                        lease = null;
                    }
                    case AuthTokenCheckFailed a when a.isTokenExpired() -> calls.failure(segment, tokens.get(), sentToken, a);
                    case ErrorReply e -> {
                        fail(calls.failure(segment, tokens.get(), sentToken, e));
                        return;
                    }
                    default -> throw new ProtocolException("segment store answered a read of " + segment + " with " + reply.type());
                }
            }
        } catch (StreamingInterruptedException | InterruptedException e) {
            // closed
        } catch (SluiceException e) {
            fail(e);
        } catch (RuntimeException e) {
            fail(new ProtocolException("reader of " + segment + " failed: " + e, e));
        } finally {
            if (lease != null) {
                lease.close();
            }
        }
    }

    private Lease connect() {
        return calls.retrying("connecting to read " + segment, null,
                () -> calls.lease(segment, Deadline.after(CONNECT_TIMEOUT)));
    }

    /** One read: sends ReadSegment and waits (as long as it takes: at the tail it is a long poll). */
    private Reply read(Lease lease, long offset, int length) {
        String token = calls.token(tokens.get(), Deadline.after(CONNECT_TIMEOUT));
        sentToken = token;
        long id = lease.nextRequestId();
        lease.send(new ReadSegment(segment, offset, length, token, id));
        while (!closed) {
            try {
                Reply r = lease.await(Deadline.after(AWAIT_SLICE));
                if (r.requestId() == id) {
                    return r;
                }
            } catch (DeadlineExceededException idle) {
                // a long poll at the tail: keep waiting
            }
        }
        throw new StreamingInterruptedException("reader of " + segment + " closed", null);
    }

    /**
     * Hands a read's data to the consumer.
     *
     * @param end the segment ends with it
     * @param moreBeyond the segment had more data than the read returned (it did not reach the tail)
     */
    private void deliver(ByteBuffer read, boolean end, boolean moreBeyond) {
        boolean wake;
        lock.lock();
        try {
            // the consumer took all the last read brought before this one arrived: the reads, not the consumer,
            // bound the reading
            if (moreBeyond && !end && tookSinceDelivery && !data.ready() && window < config.bufferBytes()) {
                window = (int) Math.min((long) window * 2, config.bufferBytes());
            }
            tookSinceDelivery = false;
            boolean hadEvent = data.ready();
            data.add(read);
            if (end) {
                endOfSegment = true;
            }
            wake = (!hadEvent && data.ready()) || end;
        } finally {
            lock.unlock();
        }
        if (wake) {
            listener.ready(this);
        }
    }

    private void fail(SluiceException e) {
        lock.lock();
        try {
            if (failure == null) {
                failure = e;
            }
        } finally {
            lock.unlock();
        }
        if (!closed) {
            listener.ready(this);
        }
    }

    /** Stops prefetching. Idempotent. */
    @Override
    public void close() {
        closed = true;
        lock.lock();
        try {
            room.signalAll();
        } finally {
            lock.unlock();
        }
        prefetcher.interrupt();
    }

    @Override
    public String toString() {
        return "SegmentReader[" + segment + " at " + position() + "]";
    }
}
