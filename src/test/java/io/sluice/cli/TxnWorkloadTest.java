package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
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
}
