package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.sluice.client.SluiceClient;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.ScopedStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code bench --transactions}'s workload with tiny numbers on the embedded server: it verifies and reports. */
@Timeout(60)
class TxnWorkloadTest {

    @Test
    void transactionsAreWrittenReadBackAndReported() {
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().build();
             SluiceClient client = SluiceClient.connect(server.controllerUri())) {
            Workload.Settings settings = new Workload.Settings(4 * 70, 40, 2, 2, 0, Duration.ofSeconds(20));
            TxnWorkload.Report report = TxnWorkload.run(client, ScopedStream.of("txn-bench", "events"), settings, 4,
                    70);
            assertThat(report.ok()).as("%s", report.verdict().reason()).isTrue();
            assertThat(report.verdict().read()).isEqualTo(280);
            assertThat(report.commitMicros()).hasSize(4);
            assertThat(report.commitMicros()[0]).isPositive();
            Map<String, Object> json = report.json(Workload.context("bench", server.controllerUri()));
            assertThat(json).containsEntry("ok", true).containsEntry("events", 280);
            @SuppressWarnings("unchecked")
            Map<String, Object> txns = (Map<String, Object>) json.get("transactions");
            assertThat(txns).containsEntry("count", 4).containsEntry("events_per_txn", 70)
                    .containsKeys("events_per_s", "commit_p50_ms", "commit_p99_ms", "txn_p50_ms");
            assertThat(report.lines()).anyMatch(l -> l.startsWith("commit    p50 "));
            assertThat(client.streamManager().streamExists("txn-bench", "events")).as("cleaned up").isFalse();
        }
    }

    @Test
    void benchTakesTransactionsOnTheCommandLine() {
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().build()) {
            Map<String, String> env = new HashMap<>();
            env.put(ControllerOptions.ENV_CONTROLLER, server.controllerUri());
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            Main main = new Main(ControllerClientFactory.GRPC, env::get, new ByteArrayInputStream(new byte[0]));
            int status = Main.run(main, new PrintWriter(out), new PrintWriter(err), "bench", "--transactions", "3",
                    "--txn-events", "20", "--segments", "2", "--json");
            assertThat(status).as(err.toString()).isZero();
            assertThat(out.toString()).startsWith("{\"ok\":true,\"mode\":\"bench\",").contains("\"events\":60,",
                    "\"transactions\":{\"count\":3,\"events_per_txn\":20,\"events_per_s\":", "\"commit_p50_ms\":",
                    "\"commit_p99_ms\":", "\"verify\":{\"ok\":true,\"read\":60,").hasLineCount(1);

            StringWriter badErr = new StringWriter();
            int bad = Main.run(main, new PrintWriter(new StringWriter()), new PrintWriter(badErr), "bench",
                    "--transactions", "2", "--txn-events", "0");
            assertThat(bad).isEqualTo(2);
            assertThat(badErr.toString()).startsWith("sluice bench: --txn-events must be at least 1, but is 0");
        }
    }
}
