package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.cli.Main;
import io.sluice.common.Endpoint;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.controller.ControllerClientConfig;
import io.sluice.controller.GrpcControllerClient;
import io.sluice.segment.PendingEvent;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.SegmentWriter;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;

/**
 * {@code sluice scope ...} and {@code sluice stream ...} against the REAL Pravega 0.13 standalone: the whole life of
 * a stream from the command line, with the tail read from the real segment store after events were written.
 */
@CompatTest
@Timeout(300)
class CliCompatTest {
    private static final int EVENTS = 3;
    private static final int EVENT_BYTES = 10;
    /** Each event is framed with an 8-byte header (type and length) in the segment. */
    private static final long WRITTEN = EVENTS * (8L + EVENT_BYTES);

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private String sluice(int expectedStatus, String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--controller");
        all.add(RealPravega.controllerUri().toString());
        int status = Main.run(new PrintWriter(out), new PrintWriter(err), all.toArray(String[]::new));
        assertThat(status).as("exit status of sluice " + String.join(" ", args) + "; stderr: " + err).isEqualTo(
                expectedStatus);
        return out.toString();
    }

    @Test
    void lifeOfAStream() throws Exception {
        String scope = RealPravega.uniqueName("compat-cli");
        String stream = scope + "/orders";
        assertThat(sluice(0, "scope", "create", scope)).isEqualTo("scope '" + scope + "' created\n");
        sluice(1, "scope", "create", scope);
        assertThat(err.toString()).contains("scope '" + scope + "' already exists");
        assertThat(sluice(0, "scope", "list")).contains(scope + "\n").doesNotContain("_system");

        assertThat(sluice(0, "stream", "create", stream, "--segments", "2", "--retention-time", "7d", "--tag", "x"))
                .isEqualTo("stream '" + stream + "' created: fixed, 2 segments; retention time: keep at least 7d; "
                        + "tags x\n");
        assertThat(sluice(0, "stream", "list", scope)).isEqualTo(stream + "\n");
        assertThat(sluice(0, "stream", "list", scope, "--all", "--json")).isEqualTo("{\"scope\":\"" + scope
                + "\",\"streams\":[\"" + scope + "/_MARKorders\",\"" + stream + "\"]}\n");

        writeEvents(ScopedStream.parse(stream));
        assertThat(sluice(0, "stream", "info", stream)).isEqualTo("stream     " + stream + "\n"
                + "state      open\n"
                + "scaling    fixed, 2 segments\n"
                + "retention  time: keep at least 7d\n"
                + "tags       x\n"
                + "segments   0.#epoch.0 [0.0, 0.5)\n"
                + "           1.#epoch.0 [0.5, 1.0)\n"
                + "head       0.#epoch.0=0,1.#epoch.0=0\n"
                + "tail       0.#epoch.0=" + WRITTEN + ",1.#epoch.0=0\n");

        sluice(1, "stream", "truncate", stream, "--to", "0.#epoch.0=" + (WRITTEN + 1) + ",1.#epoch.0=0");
        assertThat(err.toString()).contains("offset " + (WRITTEN + 1) + " of segment 0.#epoch.0 lies beyond its end");
        sluice(1, "stream", "truncate", stream, "--to", "0.#epoch.0=0");
        assertThat(err.toString()).contains("is not valid for stream " + stream);
        assertThat(sluice(0, "stream", "truncate", stream, "--to", "tail")).isEqualTo("stream '" + stream
                + "' truncated at 0.#epoch.0=" + WRITTEN + ",1.#epoch.0=0\n");
        assertThat(sluice(0, "stream", "info", stream, "--json")).contains("\"head\":[{\"segment\":\"0.#epoch.0\","
                + "\"id\":0,\"number\":0,\"epoch\":0,\"offset\":" + WRITTEN + "},");

        sluice(1, "stream", "delete", stream);
        assertThat(err.toString()).contains("is not sealed", "--force");
        sluice(1, "scope", "delete", scope);
        assertThat(err.toString()).contains("scope '" + scope + "' is not empty");
        assertThat(sluice(0, "stream", "seal", stream)).isEqualTo("stream '" + stream + "' sealed\n");
        assertThat(sluice(0, "stream", "info", stream)).contains("state      sealed\n",
                "tail       (none: the stream is sealed)\n");
        sluice(1, "stream", "truncate", stream, "--to", "head", "--json");
        assertThat(out.toString()).isEqualTo("{\"error\":{\"code\":\"precondition-failed\",\"message\":\"stream '"
                + stream + "' is sealed\"}}\n");
        assertThat(sluice(0, "stream", "delete", stream)).isEqualTo("stream '" + stream + "' deleted\n");
        sluice(1, "stream", "info", stream);
        assertThat(err.toString()).contains("stream '" + stream + "' does not exist");

        assertThat(sluice(0, "stream", "create", scope + "/other", "--scale-by-events-per-sec", "100",
                "--min-segments", "3", "--json")).contains("\"type\":\"BY_RATE_IN_EVENTS_PER_SEC\",\"targetRate\":100,"
                + "\"scaleFactor\":2,\"minNumSegments\":3");
        assertThat(sluice(0, "stream", "delete", scope + "/other", "--force")).isEqualTo("stream '" + scope
                + "/other' sealed and deleted\n");
        assertThat(sluice(0, "scope", "delete", scope)).isEqualTo("scope '" + scope + "' deleted\n");
        sluice(1, "stream", "list", scope);
        assertThat(err.toString()).contains("scope '" + scope + "' does not exist");
    }

    /** Appends {@value #EVENTS} events of {@value #EVENT_BYTES} bytes to segment 0 of {@code stream}. */
    private static void writeEvents(ScopedStream stream) throws Exception {
        Segment segment = Segment.of(stream, 0, 0);
        Endpoint endpoint;
        try (GrpcControllerClient controller = GrpcControllerClient.create(
                ControllerClientConfig.builder(RealPravega.controllerUri().toString()).build())) {
            endpoint = controller.endpointFor(segment);
        }
        try (ConnectionPool pool = new ConnectionPool(new TcpConnectionFactory());
             SegmentWriter writer = new SegmentWriter(segment.qualifiedName(), UUID.randomUUID(), pool,
                     SegmentLocator.fixed(endpoint), () -> null, SegmentWriter.Config.DEFAULT,
                     (s, unacknowledged) -> { })) {
            List<CompletableFuture<Void>> acks = new ArrayList<>();
            for (int i = 0; i < EVENTS; i++) {
                PendingEvent event = PendingEvent.of("key", ByteBuffer.wrap(
                        ("event-" + i + "...").substring(0, EVENT_BYTES).getBytes(StandardCharsets.US_ASCII)));
                assertThat(writer.write(event)).isTrue();
                acks.add(event.future());
            }
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(Duration.ofSeconds(60).toSeconds(),
                    TimeUnit.SECONDS);
        }
    }
}
