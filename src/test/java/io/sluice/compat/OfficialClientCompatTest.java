package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The OFFICIAL Pravega 0.13 Java client ({@code io.pravega:pravega-client:0.13.0}) against a server: runs
 * {@code compat/official-client.sh verify} as a separate process (its own JVM and class path, never Sluice's) with
 * 100,000 events and asserts that every part passed: events through a reader group (count, content, per-key order,
 * no duplicates), a committed and an aborted transaction, a key-value table, a byte stream, a state synchronizer,
 * and the cleanup. See {@code compat/README.md}.
 *
 * <p>Each {@link Target} is one cell of the compatibility matrix (docs/architecture.md §4): the real Pravega 0.13
 * standalone (which proves the driver itself) and Sluice's embedded server (started in this JVM for the run). The
 * driver runs through {@link OfficialClient}; its stdout (one JSON line) and stderr go to
 * {@code target/official-client/<cell>.{json,log}}; on failure the JSON and the tail of the log are in the assertion
 * message and on this test's stderr.
 */
@CompatTest
@Timeout(value = 12, unit = TimeUnit.MINUTES)
class OfficialClientCompatTest {
    private static final int EVENTS = 100_000;
    /** Bound on the driver's own run; its watchdog reports the phase it was in when this passes. */
    private static final Duration DRIVER_TIMEOUT = Duration.ofMinutes(4);
    /** Bound on the process, a little above the driver's own (JVM start, cleanup, output). */
    private static final Duration PROCESS_TIMEOUT = DRIVER_TIMEOUT.plusSeconds(60);
    private static final List<String> PARTS =
            List.of("events", "txn", "kvt", "bytestream", "synchronizer", "cleanup");

    /** A running server the official client is checked against; closing it stops it if the test started it. */
    interface Server extends AutoCloseable {
        /** @return its controller URI, {@code tcp://host:port} */
        URI controllerUri();

        @Override
        void close();

        /** A server this test did not start and must not stop. */
        static Server external(URI controllerUri) {
            return running(controllerUri, () -> { });
        }

        /** A server started for the test: {@code owner} is closed when the test is done with it. */
        static Server running(URI controllerUri, AutoCloseable owner) {
            return new Server() {
                @Override
                public URI controllerUri() {
                    return controllerUri;
                }

                @Override
                public void close() {
                    try {
                        owner.close();
                    } catch (Exception e) {
                        throw new IllegalStateException("stopping the server at " + controllerUri + " failed", e);
                    }
                }
            };
        }
    }

    /** One cell of the matrix: a name for the report and how to get a running server. */
    record Target(String name, Callable<Server> start) {
        @Override
        public String toString() {
            return name;
        }

        String slug() {
            return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("(^-|-$)", "");
        }
    }

    static Stream<Target> targets() {
        return Stream.of(
                new Target("real Pravega 0.13 standalone", () -> Server.external(RealPravega.controllerUri())),
                new Target("Sluice embedded server", () -> {
                    io.sluice.server.EmbeddedServer server = io.sluice.server.EmbeddedServer.builder().inMemory().build();
                    return Server.running(URI.create(server.controllerUri()), server);
                })
        );
    }

    @BeforeAll
    static void buildDriver() throws Exception {
        // built (or found in the cache) on its own, so the verify runs below are not charged for the download
        OfficialClient.build();
    }

    @ParameterizedTest(name = "official Pravega 0.13 client verify x {0}")
    @MethodSource("targets")
    void officialClientPassesVerify(Target target) throws Exception {
        try (Server server = target.start().call()) {
            OfficialClient.Result result = OfficialClient.run(target.slug(), List.of("verify",
                    "--controller", server.controllerUri().toString(),
                    "--events", Integer.toString(EVENTS),
                    "--timeout-seconds", Long.toString(DRIVER_TIMEOUT.toSeconds())), PROCESS_TIMEOUT);
            String json = result.json();
            String context = "official client x " + target + ": " + result.describe();
            if (result.exitCode() != 0 || !json.startsWith("{\"ok\":true,")) {
                System.err.println(context);
            }
            assertThat(result.exitCode()).as(context).isZero();
            assertThat(json).as(context).startsWith("{\"ok\":true,");
            for (String part : PARTS) {
                assertThat(json).as("part %s of %s", part, context).contains("\"" + part + "\":{\"ok\":true,");
            }
            assertThat(json).as(context).contains("\"events\":" + EVENTS + ",", "\"read\":" + EVENTS + ",");
        }
    }
}
