package io.sluice.client;

import java.nio.file.Path;
import java.util.Objects;

import io.sluice.auth.Credentials;
import io.sluice.connection.ConnectionConfig;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TlsConfig;
import io.sluice.controller.ControllerClientConfig;

/**
 * Everything a {@link SluiceClient} needs to reach a Pravega cluster (or Sluice's embedded server).
 *
 * <pre>{@code
 * ClientConfig config = ClientConfig.builder("tls://controller.example.com:9090")
 *         .credentials(new BasicCredentials("admin", "secret"))
 *         .trustStore(Path.of("ca.pem"))
 *         .build();
 * }</pre>
 *
 * @param controller how to reach the controller (URI, credentials, TLS, timeouts)
 * @param connections tuning of segment-store connections
 * @param segmentStoreTls TLS for segment-store connections, or {@code null} for plain TCP (follows the controller
 *     URI's scheme unless set explicitly)
 * @param maxConnectionsPerSegmentStore connections shared by all readers and writers of this client per segment store
 */
public record ClientConfig(ControllerClientConfig controller, ConnectionConfig connections, TlsConfig segmentStoreTls,
                           int maxConnectionsPerSegmentStore) {

    /** Checks the values. */
    public ClientConfig {
        Objects.requireNonNull(controller, "controller");
        Objects.requireNonNull(connections, "connections");
        if (maxConnectionsPerSegmentStore < 1) {
            throw new IllegalArgumentException("maxConnectionsPerSegmentStore must be positive: " + maxConnectionsPerSegmentStore);
        }
    }

    /** @return defaults for the controller at {@code controllerUri} ({@code tcp://host:port}, {@code tls://...}) */
    public static ClientConfig of(String controllerUri) {
        return builder(controllerUri).build();
    }

    /** @return a builder for the controller at {@code controllerUri} */
    public static Builder builder(String controllerUri) {
        return new Builder(controllerUri);
    }

    /** Builds a {@link ClientConfig}. Not thread-safe. */
    public static final class Builder {
        private final ControllerClientConfig.Builder controller;
        private final boolean tls;
        private ConnectionConfig connections = ConnectionConfig.DEFAULT;
        private Path trustStore;
        private boolean validateHostname = true;
        private int maxConnections = ConnectionPool.DEFAULT_MAX_CONNECTIONS_PER_ENDPOINT;

        Builder(String controllerUri) {
            this.controller = ControllerClientConfig.builder(controllerUri);
            this.tls = io.sluice.controller.ControllerUri.parse(controllerUri).tls();
        }

        /** @return this, authenticating with {@code credentials} */
        public Builder credentials(Credentials credentials) {
            controller.credentials(credentials);
            return this;
        }

        /** @return this, trusting the certificates in {@code pemFile} (controller and segment stores) */
        public Builder trustStore(Path pemFile) {
            controller.trustStore(pemFile);
            this.trustStore = pemFile;
            return this;
        }

        /** @return this, with host-name verification of server certificates on (default) or off */
        public Builder validateHostname(boolean validate) {
            controller.validateHostname(validate);
            this.validateHostname = validate;
            return this;
        }

        /** @return this, with other connection tuning */
        public Builder connections(ConnectionConfig config) {
            this.connections = Objects.requireNonNull(config, "config");
            return this;
        }

        /** @return this, with another bound on connections per segment store */
        public Builder maxConnectionsPerSegmentStore(int max) {
            this.maxConnections = max;
            return this;
        }

        /** @return the config */
        public ClientConfig build() {
            TlsConfig segmentTls = tls ? new TlsConfig(trustStore, null, validateHostname) : null;
            return new ClientConfig(controller.build(), connections, segmentTls, maxConnections);
        }
    }
}
