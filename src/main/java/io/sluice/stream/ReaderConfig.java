package io.sluice.stream;

import java.time.Duration;
import java.util.Objects;

/**
 * How one event reader behaves. Immutable value; start from {@link #DEFAULT} and change what you need with the
 * {@code with...} methods.
 *
 * <p><b>When an event counts as processed</b> ({@link AckMode}) decides where a reader's segments resume when the
 * reader disappears without {@link EventStreamReader#close() closing} (its process crashed, or it stopped sending
 * heartbeats for {@link #offlineTimeout}):
 * <ul>
 *   <li>{@link AckMode#ON_READ} (default): an event counts as processed once {@code readNextEvent} handed it out.
 *       The reader's segments resume from the position it last reported (it reports with every heartbeat), so the
 *       events it handed out after its last heartbeat are read again by others.</li>
 *   <li>{@link AckMode#ON_CHECKPOINT}: read/ack style. An event counts as processed only once the reader passed the
 *       next checkpoint (it passes a checkpoint on the {@code readNextEvent} call after the one that returned it, or
 *       at once for the group's automatic checkpoints). The reader's segments resume from its last checkpoint, so
 *       every event it handed out after that is read again (at least once). So that nothing it handed out is lost,
 *       such a reader gives a segment back to the group for rebalancing only if it handed out nothing from it since
 *       its last checkpoint (or since it acquired it): busy segments move at checkpoints, idle ones at any time.</li>
 *   <li>{@link AckMode#EXPLICIT}: the application acknowledges each event it processed with
 *       {@link EventStreamReader#ack}, in any order. A segment's <em>acknowledged position</em> is the end of the
 *       longest acknowledged prefix of the events handed out from it; it is the only position the reader ever reports
 *       to the group (heartbeats, close, checkpoints), so a reader that crashes leaves every unacknowledged event to
 *       be read again by the group (at least once, nothing lost). The reader gives a segment back (rebalancing)
 *       only when everything it handed out from it is acknowledged, and reports a segment read to its end (so that
 *       its successors can be read) only then. A checkpoint handed out by {@code readNextEvent} is passed at the
 *       next call once every event handed out before it is acknowledged: that call waits up to {@link #ackTimeout}
 *       for the acknowledgements, then fails with a {@link io.sluice.errors.DeadlineExceededException} naming what
 *       is unacknowledged (the checkpoint stays pending; call again). The group's automatic checkpoints are passed
 *       at once, at the acknowledged positions.</li>
 * </ul>
 * A reader that closes gives its segments back at its exact position in the first two modes (everything it handed
 * out counts as processed), at its acknowledged positions in {@link AckMode#EXPLICIT};
 * {@code ReaderGroup.readerOffline(id, position)} gives them back at the position you pass.
 *
 * @param ackMode when an event counts as processed
 * @param offlineTimeout how long the reader may go without a heartbeat before other readers of the group remove it
 *     and take over its segments; must be at least three group refresh intervals (readers heartbeat once per
 *     interval)
 * @param bufferBytes the largest prefetch window of each segment the reader owns: at most this many bytes are read
 *     ahead per segment (an idle segment buffers nothing). A segment starts with a window of 256 KiB (or this, if
 *     smaller), and doubles it up to this only while the reader keeps waiting for the segment's data although the
 *     segment has more (its reads, not the application, bound the reading: large events, a fast consumer). An event
 *     larger than this (a large event, see {@link WriterConfig#withLargeEvents}) is still read whole: the reader then
 *     holds about the event's size
 * @param retry how lost connections are retried before reads fail; as for writers ({@link WriterConfig#retry()}),
 *     at most {@link RetryPolicy#maxReconnectBackoff()} (250 ms by default) passes between reconnect attempts, and
 *     reads
 *     fail only once the policy's whole backoff has passed without a connection
 * @param ackTimeout in {@link AckMode#EXPLICIT}: how long the reader waits at a checkpoint for the acknowledgement of
 *     the events it handed out before it (unused in the other modes)
 */
public record ReaderConfig(AckMode ackMode, Duration offlineTimeout, int bufferBytes, RetryPolicy retry,
                           Duration ackTimeout) {

    /** When an event counts as processed; see {@link ReaderConfig}. */
    public enum AckMode {
        /** When {@code readNextEvent} hands it out. */
        ON_READ,
        /** When the reader passes the next checkpoint (at-least-once after a crash). */
        ON_CHECKPOINT,
        /** When the application acknowledges it with {@link EventStreamReader#ack} (at-least-once after a crash). */
        EXPLICIT
    }

    /**
     * {@link AckMode#ON_READ}, 30 s offline timeout, a prefetch window of 256 KiB growing up to 1 MiB per segment (as
     * Pravega's client buffers 1 MiB per segment), Pravega's retry policy, 30 s ack timeout.
     */
    public static final ReaderConfig DEFAULT = new ReaderConfig(AckMode.ON_READ, Duration.ofSeconds(30), 1024 * 1024,
            RetryPolicy.PRAVEGA, Duration.ofSeconds(30));

    /**
     * @throws IllegalArgumentException if a timeout is not positive or the buffer is smaller than 1 KiB
     */
    public ReaderConfig {
        Objects.requireNonNull(ackMode, "ackMode");
        Objects.requireNonNull(offlineTimeout, "offlineTimeout");
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(ackTimeout, "ackTimeout");
        if (offlineTimeout.isNegative() || offlineTimeout.isZero()) {
            throw new IllegalArgumentException("offlineTimeout must be positive: " + offlineTimeout);
        }
        if (ackTimeout.isNegative() || ackTimeout.isZero()) {
            throw new IllegalArgumentException("ackTimeout must be positive: " + ackTimeout);
        }
        if (bufferBytes < 1024) {
            throw new IllegalArgumentException("bufferBytes must be at least 1024: " + bufferBytes);
        }
    }

    /** @return a copy with another ack mode */
    public ReaderConfig withAckMode(AckMode mode) {
        return new ReaderConfig(mode, offlineTimeout, bufferBytes, retry, ackTimeout);
    }

    /** @return a copy with another offline timeout */
    public ReaderConfig withOfflineTimeout(Duration timeout) {
        return new ReaderConfig(ackMode, timeout, bufferBytes, retry, ackTimeout);
    }

    /** @return a copy with another largest prefetch window per segment (see {@link ReaderConfig}) */
    public ReaderConfig withBufferBytes(int bytes) {
        return new ReaderConfig(ackMode, offlineTimeout, bytes, retry, ackTimeout);
    }

    /** @return a copy with another retry policy */
    public ReaderConfig withRetry(RetryPolicy r) {
        return new ReaderConfig(ackMode, offlineTimeout, bufferBytes, r, ackTimeout);
    }

    /** @return a copy with another ack timeout ({@link AckMode#EXPLICIT}) */
    public ReaderConfig withAckTimeout(Duration timeout) {
        return new ReaderConfig(ackMode, offlineTimeout, bufferBytes, retry, timeout);
    }
}
