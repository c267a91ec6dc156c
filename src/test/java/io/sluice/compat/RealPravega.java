package io.sluice.compat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;

/**
 * Where the compatibility tests find the REAL Pravega 0.13 standalone that {@code compat/pravega-standalone.sh}
 * started (see {@code compat/README.md}).
 *
 * <p>The controller URI comes from the system property {@value #PROPERTY} (set by the Maven profile {@code compat})
 * or, failing that, the environment variable {@value #ENV}: {@code tcp://127.0.0.1:9090}. There is no default and
 * no skipping: a compat test that runs without a reachable server fails, naming what is missing. Keeping compat
 * tests out of runs without a server is the job of the tag {@value CompatTest#TAG}, which the build excludes unless
 * {@value #ENV} is set.
 *
 * <p>All methods are thread-safe.
 */
public final class RealPravega {
    /** Environment variable holding the controller URI; {@code .ci/run} sets it. */
    public static final String ENV = "SLUICE_COMPAT_CONTROLLER";
    /** System property holding the controller URI; wins over {@link #ENV}. */
    public static final String PROPERTY = "sluice.compat.controller";

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** How long the probe before each class waits for the controller: generous for a loaded 2-core machine. */
    private static final Duration ANSWER_DEADLINE = Duration.ofSeconds(60);
    /** The probe every compat class of this JVM shares, made on first use (it needs the URI). */
    private static volatile ControllerProbe probe;

    private RealPravega() {
    }

    /**
     * The controller URI of the real server. Does not block.
     *
     * @return a {@code tcp://host:port} URI
     * @throws IllegalStateException if neither {@value #PROPERTY} nor {@value #ENV} is set, or the value is not a
     *     {@code tcp://host:port} URI
     */
    public static URI controllerUri() {
        String value = System.getProperty(PROPERTY);
        String source = "system property " + PROPERTY;
        if (value == null || value.isBlank()) {
            value = System.getenv(ENV);
            source = "environment variable " + ENV;
        }
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("compatibility tests need a real Pravega 0.13 server, but " + ENV
                    + " is not set. Start one with `compat/pravega-standalone.sh start` and run with "
                    + ENV + "=tcp://127.0.0.1:9090 (see compat/README.md)");
        }
        URI uri;
        try {
            uri = new URI(value.trim());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(source + " is not a URI: '" + value + "'", e);
        }
        if (!"tcp".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 1) {
            throw new IllegalStateException(source + " must look like tcp://127.0.0.1:9090, but is '" + value + "'");
        }
        return uri;
    }

    /** @return the controller's host, from {@link #controllerUri()} (which documents the exceptions) */
    public static String controllerHost() {
        return controllerUri().getHost();
    }

    /** @return the controller's gRPC port, from {@link #controllerUri()} (which documents the exceptions) */
    public static int controllerPort() {
        return controllerUri().getPort();
    }

    /**
     * Opens a plaintext gRPC channel to the controller. Does not block (the connection is made lazily); the caller
     * shuts it down.
     *
     * @return a new channel
     * @throws IllegalStateException as {@link #controllerUri()}
     */
    public static ManagedChannel controllerChannel() {
        URI uri = controllerUri();
        return Grpc.newChannelBuilderForAddress(uri.getHost(), uri.getPort(), InsecureChannelCredentials.create())
                .build();
    }

    /**
     * A name no earlier run used, so tests also pass against a server that outlives one run (and reruns never
     * collide): {@code prefix} and 12 random hex digits. Does not block.
     *
     * @param prefix what the name is for, e.g. {@code compat-streams}
     * @return {@code prefix-<12 hex digits>}, a valid Pravega scope or stream name if {@code prefix} is one
     */
    public static String uniqueName(String prefix) {
        byte[] random = new byte[6];
        ThreadLocalRandom.current().nextBytes(random);
        return prefix + "-" + HexFormat.of().formatHex(random);
    }

    /**
     * Checks that something accepts TCP connections at the controller's address. Blocks up to 10 seconds.
     *
     * @throws IllegalStateException if the URI is missing or malformed, or nothing accepts connections there
     */
    public static void requireReachable() {
        URI uri = controllerUri();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), (int) CONNECT_TIMEOUT.toMillis());
        } catch (IOException e) {
            throw new IllegalStateException("the real Pravega controller at " + uri + " does not accept connections ("
                    + e.getMessage() + "). Is `compat/pravega-standalone.sh status` running? Its log: "
                    + "`compat/pravega-standalone.sh logs`", e);
        }
    }

    /**
     * Checks that the controller answers a call through its metadata tables ({@link ControllerProbe}); once one
     * check in this JVM went unanswered, every later one fails at once. Blocks up to 60 seconds.
     *
     * @param who the test class that asks, named in the failure
     * @throws IllegalStateException if the URI is missing or malformed, or the controller did not answer (now or
     *     earlier in this JVM)
     */
    public static void requireAnswering(String who) {
        ControllerProbe p = probe;
        if (p == null) {
            String dir = System.getenv("SLUICE_COMPAT_DIR");
            p = new ControllerProbe(controllerUri(), ANSWER_DEADLINE,
                    (dir == null || dir.isBlank() ? "compat/target" : dir) + "/run (`compat/pravega-standalone.sh logs`)");
            probe = p; // two racing first callers make two probes: each still fails on its own
        }
        p.require(who);
    }

    /**
     * JUnit 5 extension used by {@link CompatTest}: before any test of the class runs, requires a configured,
     * reachable and answering server, so a missing or stuck server fails the class loudly instead of skipping it or
     * hanging in its calls. Thread-safe.
     */
    public static final class Required implements BeforeAllCallback {
        /** Creates the extension; JUnit calls this. */
        public Required() {
        }

        /**
         * Calls {@link RealPravega#requireReachable()}, then {@link RealPravega#requireAnswering}. Blocks up to 70
         * seconds.
         *
         * @throws IllegalStateException as those two
         */
        @Override
        public void beforeAll(ExtensionContext context) {
            requireReachable();
            requireAnswering(context.getRequiredTestClass().getSimpleName());
        }
    }
}
