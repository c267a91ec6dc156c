package io.sluice.stream;

import java.time.Duration;
import java.util.Objects;

/**
 * How an event writer behaves.
 *
 * @param maxOutstandingBytes what the writer holds for unacknowledged events before {@code write} blocks: their
 *     bytes (framing included) and {@link #EVENT_OVERHEAD_BYTES} for each, so it bounds the writer's memory for
 *     small events too
 * @param backpressureTimeout how long {@code write} blocks for room before it fails
 * @param retry how lost connections to a segment store are retried before pending writes fail. After a lost or
 *     refused connection the writer tries again at most {@link RetryPolicy#maxReconnectBackoff()} later (250 ms by
 *     default, however far the exponential backoff has grown), so it resumes soon after a restarted server is back;
 *     pending writes fail only once the policy's whole backoff (about 90 s for the default) has passed without a
 *     connection. Change the cap with {@code retry.withMaxReconnectBackoff(...)}
 * @param maxBlockBytes the most bytes of events one append block carries (at most what one frame can carry)
 * @param transactionLease how long a transaction stays open without a ping (the controller aborts it after that;
 *     an open transaction pings at a third of it). 30 s by default; the controller bounds it (the embedded
 *     server accepts 10 s to 600 s by default)
 * @param automaticallyNoteTime whether the writer notes the current time ({@link System#currentTimeMillis()}) for
 *     watermarks by itself, every {@value #AUTOMATIC_NOTE_TIME_SECONDS} s as the official client does; then
 *     {@link EventStreamWriter#noteTime} must not be called. Off by default
 * @param largeEvents whether events larger than {@link #MAX_EVENT_BYTES} are written as large events; see
 *     {@link #withLargeEvents(boolean)}. Off by default: such an event is refused
 */
public record WriterConfig(long maxOutstandingBytes, Duration backpressureTimeout, RetryPolicy retry,
                           int maxBlockBytes, Duration transactionLease, boolean automaticallyNoteTime,
                           boolean largeEvents) {

    /**
     * The largest event (serialized bytes) written as an ordinary append: 8 MiB, as in Pravega. A larger one needs
     * {@link #withLargeEvents(boolean) withLargeEvents(true)}.
     */
    public static final int MAX_EVENT_BYTES = 8 * 1024 * 1024;

    /**
     * The most event bytes (framing included) one append frame carries: a Pravega segment store refuses frames longer
     * than 16 MiB - 1 bytes, and an {@code AppendBlock} adds 24 bytes of header and writer id. Also the largest
     * atomic {@link EventStreamWriter#writeAll}.
     */
    public static final int MAX_BLOCK_BYTES = 0xFFFFFF - 24;

    /**
     * What a writer counts against {@link #maxOutstandingBytes()} for each unacknowledged event besides its bytes:
     * about what it keeps on the heap for it (the event's buffer objects, its pending write and future, its handle;
     * some 230 bytes for a 100-byte event). So the default 16 MiB hold some 46,000 events of 100 bytes rather than
     * 155,000, whose bookkeeping the garbage collector would otherwise copy at every pause while the server catches
     * up: with 64 MiB, a 2M-event write ran at 0.57-0.66M events/s with 620,000 allowed and at 0.71-0.77M with about
     * 200,000, on the 2-core machine of docs/benchmarks.md.
     */
    public static final int EVENT_OVERHEAD_BYTES = 256;

    /**
     * The least {@link #maxOutstandingBytes()}: 16 MiB, about the largest atomic write ({@link #MAX_BLOCK_BYTES} of
     * events). A write is never charged more than the whole bound, so even the largest fits in an idle writer.
     */
    public static final long MIN_OUTSTANDING_BYTES = 16L * 1024 * 1024;

    /**
     * The default {@link #maxOutstandingBytes()}: 16 MiB. The writer does not copy its callers' event buffers, so
     * what it holds for unacknowledged events stays on the heap until the server acknowledges them, and every young
     * collection in that time copies it: the more a writer may hold, the longer the pauses of a writer faster than
     * its server. Writing 100,000 events of 10 KiB to the in-memory server on the 2-core machine of
     * docs/benchmarks.md (issue 19, tenth round), 64 MiB cost 329-700 ms of collection pauses per run and wrote
     * 364 MB/s (median of 4); 16 MiB cost 115-255 ms and wrote 529 MB/s. 16 MiB still covers what a fast server
     * acknowledges in several milliseconds.
     */
    public static final long DEFAULT_MAX_OUTSTANDING_BYTES = MIN_OUTSTANDING_BYTES;

    /** The default {@link #transactionLease()}. */
    public static final Duration DEFAULT_TRANSACTION_LEASE = Duration.ofSeconds(30);

    /** How often a writer with {@link #automaticallyNoteTime()} notes the time (the official client's period). */
    public static final int AUTOMATIC_NOTE_TIME_SECONDS = 5;

    /**
     * 16 MiB outstanding ({@link #DEFAULT_MAX_OUTSTANDING_BYTES}), 60 s backpressure timeout, Pravega's retry policy,
     * 1 MiB blocks, 30 s transaction lease, no automatic noting of time, no large events.
     */
    public static final WriterConfig DEFAULT = new WriterConfig(DEFAULT_MAX_OUTSTANDING_BYTES, Duration.ofSeconds(60),
            RetryPolicy.PRAVEGA, 1024 * 1024, DEFAULT_TRANSACTION_LEASE, false, false);

    /** A configuration with the default transaction lease, without automatic noting of time or large events. */
    public WriterConfig(long maxOutstandingBytes, Duration backpressureTimeout, RetryPolicy retry, int maxBlockBytes) {
        this(maxOutstandingBytes, backpressureTimeout, retry, maxBlockBytes, DEFAULT_TRANSACTION_LEASE, false, false);
    }

    /** A configuration without automatic noting of time or large events. */
    public WriterConfig(long maxOutstandingBytes, Duration backpressureTimeout, RetryPolicy retry, int maxBlockBytes,
                        Duration transactionLease) {
        this(maxOutstandingBytes, backpressureTimeout, retry, maxBlockBytes, transactionLease, false, false);
    }

    /** Checks the values. */
    public WriterConfig {
        if (maxOutstandingBytes < MIN_OUTSTANDING_BYTES || maxOutstandingBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("maxOutstandingBytes must be between 16 MiB (about the largest atomic write) and 2 GiB: "
                    + maxOutstandingBytes);
        }
        Objects.requireNonNull(backpressureTimeout, "backpressureTimeout");
        if (backpressureTimeout.isNegative() || backpressureTimeout.isZero()) {
            throw new IllegalArgumentException("backpressureTimeout must be positive: " + backpressureTimeout);
        }
        Objects.requireNonNull(retry, "retry");
        if (maxBlockBytes < 1024 || maxBlockBytes > MAX_BLOCK_BYTES) {
            throw new IllegalArgumentException("maxBlockBytes must be between 1024 and " + MAX_BLOCK_BYTES
                    + " (what one append frame carries): " + maxBlockBytes);
        }
        Objects.requireNonNull(transactionLease, "transactionLease");
        if (transactionLease.toMillis() < 1) {
            throw new IllegalArgumentException("transactionLease must be at least 1 ms: " + transactionLease);
        }
    }

    /** @return a copy with another outstanding-bytes bound */
    public WriterConfig withMaxOutstandingBytes(long bytes) {
        return new WriterConfig(bytes, backpressureTimeout, retry, maxBlockBytes, transactionLease,
                automaticallyNoteTime, largeEvents);
    }

    /** @return a copy with another backpressure timeout */
    public WriterConfig withBackpressureTimeout(Duration timeout) {
        return new WriterConfig(maxOutstandingBytes, timeout, retry, maxBlockBytes, transactionLease,
                automaticallyNoteTime, largeEvents);
    }

    /** @return a copy with another retry policy */
    public WriterConfig withRetry(RetryPolicy r) {
        return new WriterConfig(maxOutstandingBytes, backpressureTimeout, r, maxBlockBytes, transactionLease,
                automaticallyNoteTime, largeEvents);
    }

    /** @return a copy with another transaction lease */
    public WriterConfig withTransactionLease(Duration lease) {
        return new WriterConfig(maxOutstandingBytes, backpressureTimeout, retry, maxBlockBytes, lease,
                automaticallyNoteTime, largeEvents);
    }

    /**
     * @param on whether the writer notes the current time by itself every {@value #AUTOMATIC_NOTE_TIME_SECONDS} s
     *     (as the official client's {@code EventWriterConfig.automaticallyNoteTime})
     * @return a copy with automatic noting of time on or off
     */
    public WriterConfig withAutomaticallyNoteTime(boolean on) {
        return new WriterConfig(maxOutstandingBytes, backpressureTimeout, retry, maxBlockBytes, transactionLease, on,
                largeEvents);
    }

    /**
     * A copy that writes events larger than {@link #MAX_EVENT_BYTES} (8 MiB) as Pravega's Java client does with
     * {@code EventWriterConfig.enableLargeEvents(true)}: the event's bytes go to a transient segment next to the
     * event's segment, in pieces of at most 8 MiB (conditional appends), and the transient segment is then merged into
     * the event's segment — atomically, so readers see all of the event or nothing of it, and they read it as one
     * ordinary event. {@code write} returns at once and the large event is written on a virtual thread; its handle
     * completes when the merge is done. At most two large events are under way at a time (a third {@code write}
     * waits for a place, at most the backpressure timeout), and they merge in the order they were written: the next
     * one's transient segment fills while the previous one merges. A large event merges only after the writer's
     * earlier events are durable, so it comes after them, and events written after it wait until it has merged, so
     * they come after it. Lost connections are retried with a fresh transient segment; a sealed segment (a scale)
     * sends the event to the successor that takes its routing key.
     *
     * <p>Heap: for each large event under way the writer keeps the caller's serialized event (not copied as a whole)
     * plus at most two 8 MiB pieces being sent. A large event does not count against {@link #maxOutstandingBytes()}. Events of at most 8 MiB are
     * written as usual whether or not this is on. A {@link EventStreamWriter#writeAll} batch holding an event over
     * 8 MiB, or larger than one append frame carries ({@link #MAX_BLOCK_BYTES}), travels the same way, all of it in
     * one transient segment (so still atomically). Without this option an event over 8 MiB is refused with an
     * {@link IllegalArgumentException} that names this method.
     *
     * @param enabled whether events over 8 MiB are written as large events
     * @return a copy with large events on or off
     */
    public WriterConfig withLargeEvents(boolean enabled) {
        return new WriterConfig(maxOutstandingBytes, backpressureTimeout, retry, maxBlockBytes, transactionLease,
                automaticallyNoteTime, enabled);
    }
}
