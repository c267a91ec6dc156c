package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

import io.sluice.server.EmbeddedServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code sluice bench --large-events}: sizes with units, events over 8 MiB written as large events and verified; and
 * {@code sluice bench --byte-stream} and {@code sluice bench --batch} (events over eight segments read back through
 * the batch client).
 */
@Timeout(120)
class BenchLargeEventsTest {
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
    void largeEventsAreWrittenReadAndVerifiedWithTheirRate() {
        Run r = run("bench", "--events", "3", "--size", "9MiB", "--large-events", "--segments", "1", "--readers",
                "1", "--latency-samples", "1", "--json");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("{\"ok\":true,").contains("\"size\":9437184,", "\"large_events\":true,",
                "\"verify\":{\"ok\":true,\"read\":3,").containsPattern("\"write\":\\{\"events_per_s\":\\d+,"
                + "\"mb_per_s\":[0-9.]+,");
    }

    @Test
    void aByteStreamIsWrittenReadAndVerifiedWithItsRates() {
        Run r = run("bench", "--byte-stream", "--events", "500", "--size", "1KiB", "--json");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("{\"ok\":true,").contains("\"byte_stream\":true,", "\"size\":1024,",
                "\"verify\":{\"ok\":true,\"bytes\":512000}").containsPattern("\"read\":\\{\"mb_per_s\":[0-9.E]+,");
        Run text = run("bench", "--byte-stream", "--events", "20", "--size", "1MiB");
        assertThat(text.status()).as(text.err()).isZero();
        assertThat(text.out()).contains("verify: ok (20971520 bytes)");
        Run both = run("bench", "--byte-stream", "--transactions", "2");
        assertThat(both.status()).isEqualTo(2);
        assertThat(both.err()).contains("--byte-stream does not go with --transactions");
    }

    @Test
    void anEventOver8MiBNeedsTheOptionAndSizesNeedAUnitItKnows() {
        Run without = run("bench", "--events", "1", "--size", "9MiB");
        assertThat(without.status()).isEqualTo(2);
        assertThat(without.err()).contains("--size over 8388608 bytes (8 MiB) needs --large-events");
        Run bad = run("bench", "--events", "1", "--size", "12MB");
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.err()).contains("'12MB' is not a size").contains("KiB, MiB or GiB");
        assertThat(new WorkloadOptions.SizeConverter().convert("64KiB")).isEqualTo(65536);
        assertThat(new WorkloadOptions.SizeConverter().convert("100")).isEqualTo(100);
        assertThat(new WorkloadOptions.SizeConverter().convert("1gib")).isEqualTo(1 << 30);
    }

    @Test
    void eventsOverEightSegmentsAreReadInParallelAndVerified() {
        Run r = run("bench", "--batch", "--events", "2000", "--segments", "8", "--json");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("{\"ok\":true,").contains("\"batch\":true,", "\"ranges\":8,",
                "\"segments\":8,", "\"verify\":{\"ok\":true,\"read\":2000,\"duplicates\":0,\"out_of_order\":0,"
                        + "\"missing\":0,").containsPattern("\"read\":\\{\"events_per_s\":\\d+,\"mb_per_s\":[0-9.E]+,");
        Run text = run("bench", "--batch", "--events", "300", "--segments", "3");
        assertThat(text.status()).as(text.err()).isZero();
        assertThat(text.out()).contains("read back by the batch client in 3 parallel ranges",
                "verify    ok: every event read exactly once");
    }

    @Test
    void batchGoesWithNeitherTransactionsNorAByteStream() {
        Run txn = run("bench", "--batch", "--transactions", "2");
        assertThat(txn.status()).isEqualTo(2);
        assertThat(txn.err()).contains("--batch does not go with --transactions or --byte-stream");
        Run bytes = run("bench", "--batch", "--byte-stream");
        assertThat(bytes.status()).isEqualTo(2);
        assertThat(bytes.err()).contains("--batch does not go with");
    }
}
