package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import io.sluice.client.SluiceClient;
import io.sluice.common.KeyHash;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.StreamConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code sluice bench --writers W}: the scale workload, its report, its routing keys and its usage errors. */
@Timeout(120)
class BenchScaleTest {
    private static EmbeddedServer server;

    private record Run(int status, String out, String err) {
    }

    @BeforeAll
    static void start() {
        server = EmbeddedServer.builder().inMemory().build();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static Run run(String... args) {
        Map<String, String> env = Map.of(ControllerOptions.ENV_CONTROLLER, server.controllerUri());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Main main = new Main(ControllerClientFactory.GRPC, env::get, new ByteArrayInputStream(new byte[0]));
        int status = Main.run(main, new PrintWriter(out), new PrintWriter(err), args);
        return new Run(status, out.toString(), err.toString());
    }

    @Test
    void manyWritersWriteTheirSharesWhichAreReadBackInOrderWithTheResourcesReported() {
        Run r = run("bench", "--writers", "7", "--segments", "3", "--readers", "2", "--events", "1000",
                "--latency-samples", "15", "--json");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("{\"ok\":true,").contains("\"segments\":3,", "\"readers\":2,", "\"keys\":7,",
                "\"writers\":7,", "\"verify\":{\"ok\":true,\"read\":1000,\"duplicates\":0,\"out_of_order\":0,"
                + "\"missing\":0,\"bad\":0,\"failed_writes\":0}", "\"samples\":15")
                .containsPattern("\"setup\":\\{\"writers_ms\":\\d+,\"readers_ms\":\\d+}")
                .containsPattern("\"resources\":\\{\"heap_live_mib\":[0-9.]+,\"heap_peak_mib\":[0-9.]+,"
                        + "\"threads_peak\":\\d+,\"threads_now\":\\d+,\"virtual_threads\":\\d+}");
        Run text = run("bench", "--writers", "2", "--segments", "1", "--readers", "1", "--events", "10",
                "--latency-samples", "2");
        assertThat(text.status()).as(text.err()).isZero();
        assertThat(text.out()).contains("2 writers (one routing key each)", "resources heap",
                "verify    ok: every event read exactly once, in order per writer");
    }

    @Test
    void eachWritersKeyFallsInTheSegmentOfItsIndexModuloTheSegments() {
        ScopedStream stream = ScopedStream.of("bench-scale-test", "keys");
        int segments = 7;
        try (SluiceClient client = SluiceClient.connect(server.controllerUri())) {
            client.streamManager().createScope(stream.scope());
            client.streamManager().createStream(stream.scope(), stream.name(), StreamConfiguration.builder()
                    .scalingPolicy(ScalingPolicy.fixed(segments)).build());
            List<SegmentWithRange> ranges = client.streamManager().currentSegments(stream.scope(), stream.name()).stream()
                    .sorted(Comparator.comparingDouble(SegmentWithRange::low)).toList();
            assertThat(ranges).hasSize(segments);
            for (int w = 0; w < 3 * segments; w++) {
                String key = ScaleWorkload.routingKey(w, segments);
                assertThat(key).startsWith("w" + w + "-");
                assertThat(ranges.get(w % segments).contains(KeyHash.routingKey(key))).as("writer %d's key %s", w, key)
                        .isTrue();
            }
        }
    }

    @Test
    void theVerifierCountsDuplicatesGapsAndBadEventsAndKnowsATimeoutFromAFailure() {
        ScaleWorkload.Settings s = new ScaleWorkload.Settings(6, 16, 1, 1, 2, 0, java.time.Duration.ofSeconds(1));
        ScaleWorkload.Verifier v = new ScaleWorkload.Verifier(s);
        // writer 0 writes sequences 0..2, writer 1 0..2: read 0/0, 0/0 again, 0/2 (skips 1), 1/0, and one too short
        v.accept(Workload.event(0, 0, 16));
        v.accept(Workload.event(0, 0, 16));
        v.accept(Workload.event(0, 2, 16));
        v.accept(Workload.event(1, 0, 16));
        v.accept(java.nio.ByteBuffer.allocate(8));
        v.idle("no event arrived for 1s");
        ScaleWorkload.Verdict verdict = v.verdict();
        assertThat(verdict.read()).isEqualTo(5);
        assertThat(verdict.duplicates()).isEqualTo(1);
        assertThat(verdict.outOfOrder()).isEqualTo(1);
        assertThat(verdict.bad()).isEqualTo(1);
        assertThat(verdict.missing()).as("0/1, 1/1 and 1/2").isEqualTo(3);
        assertThat(verdict.timedOut()).isTrue();
        assertThat(verdict.ok()).isFalse();
        ScaleWorkload.Verifier failed = new ScaleWorkload.Verifier(s);
        failed.fail("reader-0 failed: boom");
        assertThat(failed.verdict().timedOut()).isFalse();
        assertThat(failed.verdict().reason()).startsWith("reader-0 failed: boom");
    }

    @Test
    void badScaleArgumentsNameWhatIsWrong() {
        Run zero = run("bench", "--writers", "0");
        assertThat(zero.status()).isEqualTo(2);
        assertThat(zero.err()).contains("--writers must be at least 1, but is 0");
        Run kvt = run("bench", "--writers", "2", "--kvt");
        assertThat(kvt.status()).isEqualTo(2);
        assertThat(kvt.err()).contains("--writers does not go with --kvt");
        Run segments = run("bench", "--writers", "2", "--segments", "10001");
        assertThat(segments.status()).isEqualTo(2);
        assertThat(segments.err()).contains("--segments with --writers must be between 1 and 10000, but is 10001");
        Run writers = run("bench", "--writers", "10001");
        assertThat(writers.status()).isEqualTo(2);
        assertThat(writers.err()).contains("--writers must be between 2 and 10000, but is 10001");
    }
}
