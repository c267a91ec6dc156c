package io.sluice.controller;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import io.sluice.auth.Credentials;
import io.sluice.common.Retry;

/**
 * How a {@link GrpcControllerClient} connects and retries. Immutable; build one with {@link #builder(ControllerUri)}.
 *
 * <p>Defaults follow Pravega's Java client ({@code ControllerImplConfig}): each RPC attempt gets a deadline of
 * 5 minutes; failed attempts are retried with exponential backoff starting at 1 ms, ×10 per attempt, at most 20 s
 * between attempts, 10 attempts in all. Pravega has no bound on the whole operation (10 attempts of up to 5 minutes
 * each); Sluice adds {@link #operationTimeout()}, 10 minutes by default, so that a controller that accepts calls but
 * never answers fails an operation after at most two attempts, while an unreachable controller still gets all ten
 * attempts (about 90 s of backoff).
 *
 * <p>Unlike Pravega, an unreachable controller is tried again at most {@link Retry#maxReconnectBackoff()} (250 ms
 * by default) after each failure, however far the backoff has grown, and for as long as the uncapped backoff would
 * have lasted: a controller that restarts answers the next attempt within about half a second of being back.
 * {@code retry.withMaxReconnectBackoff(...)} changes the cap; a cap of the policy's {@code maxBackoff} or more
 * restores Pravega's behaviour.
 *
 * @param controllerUri where the controller is
 * @param credentials sent as the {@code authorization} header of every call, if present
 * @param trustStore a PEM file of CA certificates to trust for TLS; empty for the JVM's default trust store
 * @param validateHostname for TLS, check that the controller's certificate names the host connected to; on by
 *     default, turn off only for test setups with certificates that name other hosts
 * @param rpcTimeout the deadline of one RPC attempt
 * @param operationTimeout the deadline of a whole operation, retries and backoff included
 * @param retry which failures to retry and how long to wait between attempts
 * @param keepAliveTime the gRPC keepalive ping interval (Pravega: 6 minutes, above the server's 5-minute minimum)
 * @param discoveryInterval for {@code pravega://}/{@code pravegas://}, how often to re-ask for the controller list
 */
public record ControllerClientConfig(ControllerUri controllerUri, Optional<Credentials> credentials,
                                     Optional<Path> trustStore, boolean validateHostname, Duration rpcTimeout,
                                     Duration operationTimeout, Retry retry, Duration keepAliveTime,
                                     Duration discoveryInterval) {

    /** Pravega's per-RPC deadline. */
    public static final Duration DEFAULT_RPC_TIMEOUT = Duration.ofMinutes(5);
    /** The default bound on a whole operation. */
    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofMinutes(10);
    /** Pravega's retry policy: 1 ms initial backoff, ×10, 10 attempts, at most 20 s. */
    public static final Retry DEFAULT_RETRY =
            Retry.withExpBackoff(Duration.ofMillis(1), 10, 10, Duration.ofSeconds(20));
    /** Pravega's gRPC keepalive interval. */
    public static final Duration DEFAULT_KEEP_ALIVE = Duration.ofMinutes(6);
    /** Pravega's controller re-discovery interval. */
    public static final Duration DEFAULT_DISCOVERY_INTERVAL = Duration.ofMinutes(2);

    /**
     * @throws IllegalArgumentException if a duration is not positive
     */
    public ControllerClientConfig {
        Objects.requireNonNull(controllerUri, "controllerUri");
        Objects.requireNonNull(credentials, "credentials");
        Objects.requireNonNull(trustStore, "trustStore");
        Objects.requireNonNull(retry, "retry");
        positive("rpcTimeout", rpcTimeout);
        positive("operationTimeout", operationTimeout);
        positive("keepAliveTime", keepAliveTime);
        positive("discoveryInterval", discoveryInterval);
    }

    /**
     * @param controllerUri where the controller is
     * @return a builder with the defaults
     */
    public static Builder builder(ControllerUri controllerUri) {
        return new Builder(controllerUri);
    }

    /**
     * @param controllerUri where the controller is, e.g. {@code tcp://localhost:9090}
     * @return a builder with the defaults
     * @throws IllegalArgumentException if the URI is malformed
     */
    public static Builder builder(String controllerUri) {
        return new Builder(ControllerUri.parse(controllerUri));
    }

    private static void positive(String what, Duration d) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + d);
        }
    }

    /** Builds a {@link ControllerClientConfig}. Not thread-safe. */
    public static final class Builder {
        private final ControllerUri controllerUri;
        private Credentials credentials;
        private Path trustStore;
        private boolean validateHostname = true;
        private Duration rpcTimeout = DEFAULT_RPC_TIMEOUT;
        private Duration operationTimeout = DEFAULT_OPERATION_TIMEOUT;
        private Retry retry = DEFAULT_RETRY;
        private Duration keepAliveTime = DEFAULT_KEEP_ALIVE;
        private Duration discoveryInterval = DEFAULT_DISCOVERY_INTERVAL;

        private Builder(ControllerUri controllerUri) {
            this.controllerUri = Objects.requireNonNull(controllerUri, "controllerUri");
        }

        /**
         * @param credentials sent with every call; null for none
         * @return this builder
         */
        public Builder credentials(Credentials credentials) {
            this.credentials = credentials;
            return this;
        }

        /**
         * @param pemFile CA certificates to trust for TLS; null for the JVM's default
         * @return this builder
         */
        public Builder trustStore(Path pemFile) {
            this.trustStore = pemFile;
            return this;
        }

        /**
         * @param validate false to accept TLS certificates that do not name the host (tests only)
         * @return this builder
         */
        public Builder validateHostname(boolean validate) {
            this.validateHostname = validate;
            return this;
        }

        /**
         * @param timeout the deadline of one RPC attempt
         * @return this builder
         */
        public Builder rpcTimeout(Duration timeout) {
            this.rpcTimeout = timeout;
            return this;
        }

        /**
         * @param timeout the deadline of a whole operation, retries included
         * @return this builder
         */
        public Builder operationTimeout(Duration timeout) {
            this.operationTimeout = timeout;
            return this;
        }

        /**
         * @param retry the retry policy ({@link Retry#none()} for no retries)
         * @return this builder
         */
        public Builder retry(Retry retry) {
            this.retry = retry;
            return this;
        }

        /**
         * @param interval the gRPC keepalive interval
         * @return this builder
         */
        public Builder keepAliveTime(Duration interval) {
            this.keepAliveTime = interval;
            return this;
        }

        /**
         * @param interval how often discovery re-asks for the controller list
         * @return this builder
         */
        public Builder discoveryInterval(Duration interval) {
            this.discoveryInterval = interval;
            return this;
        }

        /**
         * @return the configuration
         * @throws IllegalArgumentException if a duration is not positive
         */
        public ControllerClientConfig build() {
            return new ControllerClientConfig(controllerUri, Optional.ofNullable(credentials),
                    Optional.ofNullable(trustStore), validateHostname, rpcTimeout, operationTimeout, retry,
                    keepAliveTime, discoveryInterval);
        }
    }
}
