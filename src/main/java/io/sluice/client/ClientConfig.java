package io.sluice.client;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import io.sluice.auth.Credentials;
import io.sluice.controller.ControllerClientConfig;
import io.sluice.controller.ControllerUri;

/**
 * Everything a {@link SluiceClient} needs to reach a Pravega cluster (or Sluice's embedded server). Immutable.
 *
 * <pre>{@code
 * ClientConfig config = ClientConfig.builder("tls://controller.example.com:9090")
 *         .credentials(new BasicCredentials("admin", "secret"))
 *         .trustStore(Path.of("ca.pem"))
 *         .build();
 * }</pre>
 *
 * Segment-store connections follow the controller URI's scheme: TLS for {@code tls://} and {@code pravegas://},
 * with the same trust store and host-name verification.
 */
public final class ClientConfig {
    /** Default bound on connections per segment store (Pravega's). */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_SEGMENT_STORE = 10;
    /** Default time to open a segment-store connection (TCP connect, TLS handshake, Hello). */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

    private final String controllerUri;
    private final ControllerUri parsedUri;
    private final Credentials credentials;
    private final Path trustStore;
    private final boolean validateHostname;
    private final Duration rpcTimeout;
    private final Duration operationTimeout;
    private final Duration connectTimeout;
    private final int maxConnectionsPerSegmentStore;
    private final boolean platformReaders;
    private final boolean callerReads;
    /** An io.micrometer.core.instrument.MeterRegistry, or null: typed Object so that Micrometer stays optional. */
    private final Object meterRegistry;

    private ClientConfig(Builder b) {
        this.meterRegistry = b.meterRegistry;
        this.controllerUri = b.controllerUri;
        this.parsedUri = b.parsedUri;
        this.credentials = b.credentials;
        this.trustStore = b.trustStore;
        this.validateHostname = b.validateHostname;
        this.rpcTimeout = b.rpcTimeout;
        this.operationTimeout = b.operationTimeout;
        this.connectTimeout = b.connectTimeout;
        this.maxConnectionsPerSegmentStore = b.maxConnections;
        this.platformReaders = b.platformReaders;
        this.callerReads = b.callerReads;
    }

    /** @return defaults for the controller at {@code controllerUri} ({@code tcp://host:port}, {@code tls://...}) */
    public static ClientConfig of(String controllerUri) {
        return builder(controllerUri).build();
    }

    /**
     * @param controllerUri {@code tcp://host:port}, {@code tls://host:port}, or {@code pravega://}/{@code pravegas://}
     *     for discovery
     * @return a builder for the controller at {@code controllerUri}
     * @throws IllegalArgumentException if the URI is not one of those
     */
    public static Builder builder(String controllerUri) {
        return new Builder(controllerUri);
    }

    /** @return the controller URI as given */
    public String controllerUri() {
        return controllerUri;
    }

    /** @return whether the controller and the segment stores are reached over TLS (the URI's scheme says) */
    public boolean tls() {
        return parsedUri.tls();
    }

    /** @return the credentials presented to the controller, if any */
    public Optional<Credentials> credentials() {
        return Optional.ofNullable(credentials);
    }

    /** @return the PEM file of trusted certificates, if one was given (else the JDK's default trust) */
    public Optional<Path> trustStore() {
        return Optional.ofNullable(trustStore);
    }

    /** @return whether server certificates' host names are verified (default true) */
    public boolean validateHostname() {
        return validateHostname;
    }

    /** @return how long one controller call may take */
    public Duration rpcTimeout() {
        return rpcTimeout;
    }

    /** @return how long a controller operation that polls (create, scale, seal...) may take in all */
    public Duration operationTimeout() {
        return operationTimeout;
    }

    /** @return how long opening a segment-store connection may take */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** @return connections shared by all readers and writers of the client per segment store */
    public int maxConnectionsPerSegmentStore() {
        return maxConnectionsPerSegmentStore;
    }

    /** @return whether each segment-store connection reads on a platform thread of its own (default false) */
    public boolean platformReaders() {
        return platformReaders;
    }

    /** @return whether a thread awaiting a write may read a plain-TCP segment-store connection itself (default true) */
    public boolean callerReads() {
        return callerReads;
    }

    /** @return the Micrometer registry given to {@link Builder#meterRegistry}, or null (typed Object: see the field) */
    Object meterRegistry() {
        return meterRegistry;
    }

    /** The controller client's configuration (internal). */
    ControllerClientConfig controller() {
        ControllerClientConfig.Builder c = ControllerClientConfig.builder(parsedUri).trustStore(trustStore)
                .validateHostname(validateHostname).rpcTimeout(rpcTimeout).operationTimeout(operationTimeout);
        if (credentials != null) {
            c.credentials(credentials);
        }
        return c.build();
    }

    @Override
    public String toString() {
        return "ClientConfig[" + controllerUri + (credentials == null ? "" : ", credentials")
                + (trustStore == null ? "" : ", trust store " + trustStore) + ", " + maxConnectionsPerSegmentStore
                + " connections per segment store" + (meterRegistry == null ? "" : ", metrics") + "]";
    }

    /** Builds a {@link ClientConfig}. Not thread-safe. */
    public static final class Builder {
        private final String controllerUri;
        private final ControllerUri parsedUri;
        private Credentials credentials;
        private Path trustStore;
        private boolean validateHostname = true;
        private Duration rpcTimeout = ControllerClientConfig.DEFAULT_RPC_TIMEOUT;
        private Duration operationTimeout = ControllerClientConfig.DEFAULT_OPERATION_TIMEOUT;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS_PER_SEGMENT_STORE;
        private boolean platformReaders;
        private boolean callerReads = true;
        private Object meterRegistry;

        Builder(String controllerUri) {
            this.controllerUri = Objects.requireNonNull(controllerUri, "controllerUri");
            this.parsedUri = ControllerUri.parse(controllerUri);
        }

        /** @return this, authenticating with {@code credentials} */
        public Builder credentials(Credentials credentials) {
            this.credentials = Objects.requireNonNull(credentials, "credentials");
            return this;
        }

        /** @return this, trusting the certificates in {@code pemFile} (controller and segment stores) */
        public Builder trustStore(Path pemFile) {
            this.trustStore = Objects.requireNonNull(pemFile, "pemFile");
            return this;
        }

        /** @return this, with host-name verification of server certificates on (default) or off */
        public Builder validateHostname(boolean validate) {
            this.validateHostname = validate;
            return this;
        }

        /** @return this, with another bound on one controller call (default 5 minutes) */
        public Builder rpcTimeout(Duration timeout) {
            this.rpcTimeout = positive(timeout, "rpcTimeout");
            return this;
        }

        /** @return this, with another bound on a polling controller operation (default 10 minutes) */
        public Builder operationTimeout(Duration timeout) {
            this.operationTimeout = positive(timeout, "operationTimeout");
            return this;
        }

        /** @return this, with another bound on opening a segment-store connection (default 10 s) */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connectTimeout");
            return this;
        }

        /** @return this, with another bound on connections per segment store (at least 1, default 10) */
        public Builder maxConnectionsPerSegmentStore(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxConnectionsPerSegmentStore must be positive: " + max);
            }
            this.maxConnections = max;
            return this;
        }

        /**
         * Reads each segment-store connection on a platform thread of its own instead of a virtual thread (off by
         * default): a reply then wakes the thread that reads it directly, without the JDK's poller, so awaited
         * writes return sooner, at the cost of one OS thread per connection.
         *
         * @return this
         */
        public Builder platformReaders(boolean platform) {
            this.platformReaders = platform;
            return this;
        }

        /**
         * Lets a thread that awaits a write ({@code WriteHandle.await}) read the plain-TCP segment-store connection
         * the acknowledgement comes on itself, one caller at a time, instead of being woken by the connection's
         * reader thread (on by default). The kernel then wakes the waiting thread for its reply directly: awaited
         * writes return sooner (docs/benchmarks.md, issue 19's eighth round). Such a connection's reader waits in a
         * selector over a non-blocking channel instead of in a blocking read; TLS connections are read as before.
         *
         * @return this
         */
        public Builder callerReads(boolean on) {
            this.callerReads = on;
            return this;
        }

        /**
         * Records the client's metrics in {@code registry} (see {@code docs/metrics.md}: append latency and block
         * sizes, events and bytes in flight, reconnects, reader-group lag, checkpoint durations). Needs {@code io.micrometer:micrometer-core}
         * on the class path, which Sluice's pom declares optional; without this call the client never loads it.
         *
         * @param registry a Micrometer meter registry
         * @return this
         */
        public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** @return the config */
        public ClientConfig build() {
            return new ClientConfig(this);
        }

        private static Duration positive(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive: " + d);
            }
            return d;
        }
    }
}
