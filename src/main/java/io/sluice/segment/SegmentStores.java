package io.sluice.segment;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

import io.sluice.common.ClientMetrics;
import io.sluice.connection.ConnectionConfig;
import io.sluice.connection.ConnectionFactory;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.connection.TlsConfig;
import io.sluice.connection.TlsConnectionFactory;

/**
 * The segment stores a client talks to: one bounded connection pool shared by every writer, reader and call of the
 * client, and the locator that says which store serves a segment. Opening it connects nowhere; connections are made
 * on first use. Thread-safe; close it to close every connection.
 */
public final class SegmentStores implements AutoCloseable {

    /**
     * How to reach the segment stores.
     *
     * @param tls whether connections use TLS
     * @param trustStore PEM file of trusted certificates for TLS, or {@code null} for the JDK's default trust
     * @param validateHostname whether TLS verifies the servers' host names
     * @param connectTimeout how long opening one connection (TCP, TLS handshake, Hello) may take
     * @param maxConnectionsPerStore connections per segment store, at least 1
     * @param platformReaders whether each connection reads on a platform thread instead of a virtual thread
     * @param callerReads whether a thread awaiting a reply may read a plain-TCP connection itself
     *     ({@link ConnectionConfig#callerReads})
     */
    public record Settings(boolean tls, Path trustStore, boolean validateHostname, Duration connectTimeout,
                           int maxConnectionsPerStore, boolean platformReaders, boolean callerReads) {
        /** Checks the values. */
        public Settings {
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            if (maxConnectionsPerStore < 1) {
                throw new IllegalArgumentException("maxConnectionsPerStore must be positive: " + maxConnectionsPerStore);
            }
        }
    }

    private final ConnectionPool pool;
    private final SegmentLocator locator;
    private final SegmentCalls calls;
    private final ClientMetrics metrics;

    private SegmentStores(ConnectionPool pool, SegmentLocator locator, ClientMetrics metrics) {
        this.pool = pool;
        this.locator = locator;
        this.metrics = metrics;
        this.calls = new SegmentCalls(pool, locator, SegmentCalls.Config.DEFAULT);
    }

    /**
     * @param locator which segment store serves a segment
     * @param settings how to connect
     * @return the segment stores, not yet connected
     */
    public static SegmentStores open(SegmentLocator locator, Settings settings) {
        return open(locator, settings, ClientMetrics.NONE);
    }

    /**
     * @param locator which segment store serves a segment
     * @param settings how to connect
     * @param metrics what the writers over these stores report to
     * @return the segment stores, not yet connected
     */
    public static SegmentStores open(SegmentLocator locator, Settings settings, ClientMetrics metrics) {
        Objects.requireNonNull(locator, "locator");
        Objects.requireNonNull(metrics, "metrics");
        ConnectionConfig connections = ConnectionConfig.DEFAULT.withConnectTimeout(settings.connectTimeout())
                .withPlatformReaders(settings.platformReaders()).withCallerReads(settings.callerReads());
        ConnectionFactory factory = settings.tls()
                ? new TlsConnectionFactory(connections, new TlsConfig(settings.trustStore(), null,
                        settings.validateHostname()))
                : new TcpConnectionFactory(connections);
        return new SegmentStores(new ConnectionPool(factory, settings.maxConnectionsPerStore(),
                ConnectionPool.DEFAULT_MAX_FLOWS_PER_CONNECTION), locator, metrics);
    }

    /**
     * @param pool connections opened elsewhere (closing the result closes it)
     * @param locator which segment store serves a segment
     * @return the segment stores reached through {@code pool}
     */
    public static SegmentStores over(ConnectionPool pool, SegmentLocator locator) {
        return new SegmentStores(Objects.requireNonNull(pool, "pool"), Objects.requireNonNull(locator, "locator"),
                ClientMetrics.NONE);
    }

    /**
     * @param pool connections opened elsewhere (closing the result closes it)
     * @param locator which segment store serves a segment
     * @param metrics what the writers over these stores report to
     * @return the segment stores reached through {@code pool}
     */
    public static SegmentStores over(ConnectionPool pool, SegmentLocator locator, ClientMetrics metrics) {
        return new SegmentStores(Objects.requireNonNull(pool, "pool"), Objects.requireNonNull(locator, "locator"),
                Objects.requireNonNull(metrics, "metrics"));
    }

    /** @return calls over these connections with the default retry policy ({@link SegmentCalls.Config#DEFAULT}) */
    public SegmentCalls calls() {
        return calls;
    }

    /** @return what the client's writers and reader groups report to ({@link ClientMetrics#NONE} by default) */
    public ClientMetrics metrics() {
        return metrics;
    }

    /** @return the shared connection pool */
    public ConnectionPool pool() {
        return pool;
    }

    /** @return where segments live */
    public SegmentLocator locator() {
        return locator;
    }

    /** Closes every connection; writers and readers still open stop working. Idempotent. */
    @Override
    public void close() {
        pool.close();
    }
}
