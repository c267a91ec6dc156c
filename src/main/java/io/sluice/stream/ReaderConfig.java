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
 * </ul>
 * A reader that closes gives its segments back at its exact position in both modes (everything it handed out
 * counts as processed); {@code ReaderGroup.readerOffline(id, position)} gives them back at the position you pass.
 *
 * @param ackMode when an event counts as processed
 * @param offlineTimeout how long the reader may go without a heartbeat before other readers of the group remove it
 *     and take over its segments; must be at least three group refresh intervals (readers heartbeat once per
 *     interval)
 * @param bufferBytes the prefetch window of each segment the reader owns: at most this many bytes are read ahead
 *     per segment (an idle segment buffers nothing). An event larger than this (a large event, see
 *     {@link WriterConfig#withLargeEvents}) is still read whole: the reader then holds about the event's size
 * @param retry how lost connections are retried before reads fail; as for writers ({@link WriterConfig#retry()}),
 *     at most {@link RetryPolicy#maxReconnectBackoff()} (250 ms by default) passes between reconnect attempts, and
 *     reads
 *     fail only once the policy's whole backoff has passed without a connection
 */
public record ReaderConfig(AckMode ackMode, Duration offlineTimeout, int bufferBytes, RetryPolicy retry) {

    /** When an event counts as processed; see {@link ReaderConfig}. */
    public enum AckMode {
        /** When {@code readNextEvent} hands it out. */
        ON_READ,
        /** When the reader passes the next checkpoint (at-least-once after a crash). */
        ON_CHECKPOINT
    }

    /** {@link AckMode#ON_READ}, 30 s offline timeout, 256 KiB prefetch per segment, Pravega's retry policy. */
    public static final ReaderConfig DEFAULT = new ReaderConfig(AckMode.ON_READ, Duration.ofSeconds(30), 256 * 1024,
            RetryPolicy.PRAVEGA);

    /**
     * @throws IllegalArgumentException if the timeout is not positive or the buffer is smaller than 1 KiB
     */
    public ReaderConfig {
        Objects.requireNonNull(ackMode, "ackMode");
        Objects.requireNonNull(offlineTimeout, "offlineTimeout");
        Objects.requireNonNull(retry, "retry");
        if (offlineTimeout.isNegative() || offlineTimeout.isZero()) {
            throw new IllegalArgumentException("offlineTimeout must be positive: " + offlineTimeout);
        }
        if (bufferBytes < 1024) {
            throw new IllegalArgumentException("bufferBytes must be at least 1024: " + bufferBytes);
        }
    }

    /** @return a copy with another ack mode */
    public ReaderConfig withAckMode(AckMode mode) {
        return new ReaderConfig(mode, offlineTimeout, bufferBytes, retry);
    }

    /** @return a copy with another offline timeout */
    public ReaderConfig withOfflineTimeout(Duration timeout) {
        return new ReaderConfig(ackMode, timeout, bufferBytes, retry);
    }

    /** @return a copy with another prefetch window per segment */
    public ReaderConfig withBufferBytes(int bytes) {
        return new ReaderConfig(ackMode, offlineTimeout, bytes, retry);
    }

    /** @return a copy with another retry policy */
    public ReaderConfig withRetry(RetryPolicy r) {
        return new ReaderConfig(ackMode, offlineTimeout, bufferBytes, r);
    }
}
