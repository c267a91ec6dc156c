package io.sluice.connection;

import java.time.Duration;
import java.util.Objects;

/**
 * Tuning of segment-store connections. Defaults follow Pravega's Java client where it has one.
 *
 * @param connectTimeout how long opening a connection (TCP connect, TLS handshake, Hello exchange) may take
 * @param keepAliveInitialDelay when the first keep-alive check runs after the connection opens
 * @param keepAliveInterval how often the keep-alive check runs: a connection that received nothing since the
 *     last check sends a KeepAlive; one that still received nothing by the next check is declared dead
 * @param socketBufferBytes the socket send and receive buffer sizes
 * @param writeQueueCapacity commands that may wait for the writer thread before senders block
 * @param sendTimeout how long a sender may block on a full write queue before it gives up
 * @param platformReaders whether each connection reads its socket on a platform thread of its own instead of a
 *     virtual thread (off by default). A reply then wakes the thread that reads it directly, without the JDK's poller
 *     handing the reading virtual thread to a carrier thread: awaited writes return sooner when replies take long
 *     (an fsync, a remote server), at the cost of one OS thread per connection
 * @param callerReads whether a plain-TCP connection lets a platform thread that awaits a reply read the socket
 *     itself ({@link Connection#lead}; on by default): the kernel then wakes that thread for its reply, one thread
 *     wake-up sooner than through the connection's reader. Such a connection's reader waits in a selector over
 *     the socket's non-blocking channel instead of in a blocking read; TLS connections never do this
 */
public record ConnectionConfig(Duration connectTimeout, Duration keepAliveInitialDelay, Duration keepAliveInterval,
                               int socketBufferBytes, int writeQueueCapacity, Duration sendTimeout,
                               boolean platformReaders, boolean callerReads) {

    /**
     * Pravega's defaults: keep-alive after 20 s then every 10 s, 256 KiB socket buffers; awaiting callers read
     * plain-TCP connections, virtual-thread readers elsewhere.
     */
    public static final ConnectionConfig DEFAULT = new ConnectionConfig(Duration.ofSeconds(10), Duration.ofSeconds(20),
            Duration.ofSeconds(10), 256 * 1024, 4096, Duration.ofSeconds(60), false, true);

    /** Checks the values. */
    public ConnectionConfig {
        positive(connectTimeout, "connectTimeout");
        positive(keepAliveInitialDelay, "keepAliveInitialDelay");
        positive(keepAliveInterval, "keepAliveInterval");
        positive(sendTimeout, "sendTimeout");
        if (socketBufferBytes < 1024) {
            throw new IllegalArgumentException("socketBufferBytes must be at least 1024: " + socketBufferBytes);
        }
        if (writeQueueCapacity < 1) {
            throw new IllegalArgumentException("writeQueueCapacity must be positive: " + writeQueueCapacity);
        }
    }

    private static void positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + d);
        }
    }

    /** @return a copy with other keep-alive timings */
    public ConnectionConfig withKeepAlive(Duration initialDelay, Duration interval) {
        return new ConnectionConfig(connectTimeout, initialDelay, interval, socketBufferBytes, writeQueueCapacity,
                sendTimeout, platformReaders, callerReads);
    }

    /** @return a copy with another connect timeout */
    public ConnectionConfig withConnectTimeout(Duration timeout) {
        return new ConnectionConfig(timeout, keepAliveInitialDelay, keepAliveInterval, socketBufferBytes, writeQueueCapacity,
                sendTimeout, platformReaders, callerReads);
    }

    /** @return a copy whose connections read on platform threads ({@code true}) or virtual threads */
    public ConnectionConfig withPlatformReaders(boolean platform) {
        return new ConnectionConfig(connectTimeout, keepAliveInitialDelay, keepAliveInterval, socketBufferBytes,
                writeQueueCapacity, sendTimeout, platform, callerReads);
    }

    /** @return a copy whose plain-TCP connections let awaiting callers read ({@code true}) or not */
    public ConnectionConfig withCallerReads(boolean on) {
        return new ConnectionConfig(connectTimeout, keepAliveInitialDelay, keepAliveInterval, socketBufferBytes,
                writeQueueCapacity, sendTimeout, platformReaders, on);
    }
}
