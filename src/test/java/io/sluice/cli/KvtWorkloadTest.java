package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;

import io.sluice.client.SluiceClient;
import io.sluice.server.EmbeddedServer;
import io.sluice.table.TableEntry;
import io.sluice.table.Version;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code bench --kvt}'s workload with tiny numbers on the embedded server: it verifies, reports and cleans up. */
@Timeout(60)
class KvtWorkloadTest {

    @Test
    void putsGetsAndBatchesAreMeasuredAndChecked() {
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().build();
             SluiceClient client = SluiceClient.connect(server.controllerUri())) {
            // a scope of the caller's: the run keeps it and deletes only its table
            client.streamManager().createScope("kvt-bench");
            // 250 entries in batches of 100: 3 batches, the last one full too
            KvtWorkload.Settings settings = new KvtWorkload.Settings(250, 30, 3, 4, 100);
            KvtWorkload.Report report = KvtWorkload.run(client, "kvt-bench", "table", settings);
            assertThat(report.ok()).as("%s", report.error()).isTrue();
            assertThat(report.put().ops()).isEqualTo(250);
            assertThat(report.get().ops()).isEqualTo(250);
            assertThat(report.batchPut().ops()).isEqualTo(3);
            assertThat(report.batchGet().ops()).isEqualTo(3);
            assertThat(report.get().micros()).hasSize(250).isSorted();
            assertThat(report.get().micros()[0]).isPositive();

            Map<String, Object> json = report.json(Workload.context("bench", server.controllerUri()));
            assertThat(json).containsEntry("ok", true).containsEntry("table", "kvt-bench/table");
            @SuppressWarnings("unchecked")
            Map<String, Object> kvt = (Map<String, Object>) json.get("kvt");
            assertThat(kvt).containsEntry("partitions", 3).containsEntry("concurrency", 4)
                    .containsEntry("batch", 100).containsEntry("batches", 3);
            @SuppressWarnings("unchecked")
            Map<String, Object> batchGet = (Map<String, Object>) kvt.get("batch_get");
            assertThat(batchGet).containsEntry("ops", 3).containsEntry("entries", 300L).containsEntry("wrong", 0L)
                    .containsKeys("entries_per_s", "p50_us", "p99_us");
            assertThat(report.lines()).anyMatch(l -> l.startsWith("batch get 3 ops x 100 in "));
            assertThat(client.keyValueTableManager().listKeyValueTables("kvt-bench")).isEmpty();
        }
    }

    @Test
    void keysAndValuesFollowTheDocumentedLayout() {
        TableEntry right = new TableEntry(KvtWorkload.key(7, 3), KvtWorkload.value(7, 3, 20), new Version(0, 1));
        assertThat(KvtWorkload.holds(right, 7, 3, 20)).isTrue();
        assertThat(right.value().get(5)).isEqualTo((byte) (7 * 31 + 3 * 17 + 5));
        assertThat(KvtWorkload.holds(right, 7, 4, 20)).as("other secondary key").isFalse();
        assertThat(KvtWorkload.holds(right, 7, 3, 21)).as("other size").isFalse();
        TableEntry wrong = new TableEntry(KvtWorkload.key(7, 3), KvtWorkload.value(8, 3, 20), new Version(0, 1));
        assertThat(KvtWorkload.holds(wrong, 7, 3, 20)).as("another key's value").isFalse();
        assertThat(KvtWorkload.holds(null, 7, 3, 20)).as("missing").isFalse();
    }

    @Test
    void benchTakesKvtOnTheCommandLineAndRefusesBadValues() {
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().build()) {
            Map<String, String> env = new HashMap<>();
            env.put(ControllerOptions.ENV_CONTROLLER, server.controllerUri());
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            Main main = new Main(ControllerClientFactory.GRPC, env::get, new ByteArrayInputStream(new byte[0]));
            int status = Main.run(main, new PrintWriter(out), new PrintWriter(err), "bench", "--kvt", "--events", "40",
                    "--segments", "2", "--kvt-concurrency", "3", "--kvt-batch", "16", "--json");
            assertThat(status).as(err.toString()).isZero();
            assertThat(out.toString()).startsWith("{\"ok\":true,\"mode\":\"bench\",").contains(
                    "\"kvt\":{\"partitions\":2,\"concurrency\":3,\"entries\":40,\"size\":100,\"batch\":16,"
                            + "\"batches\":3,\"put\":{\"ops\":40,", "\"verify\":{\"ok\":true,").hasLineCount(1);

            StringWriter badErr = new StringWriter();
            int bad = Main.run(main, new PrintWriter(new StringWriter()), new PrintWriter(badErr), "bench", "--kvt",
                    "--kvt-batch", "300");
            assertThat(bad).isEqualTo(2);
            assertThat(badErr.toString()).startsWith("sluice bench: --kvt-batch must be between 1 and 256, but is 300");
        }
        assertThatThrownBy(() -> new KvtWorkload.Settings(10, 1_000_000, 1, 1, 100))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--kvt-batch 100 of --size "
                        + "1000000 bytes makes batches of");
        assertThatThrownBy(() -> new KvtWorkload.Settings(10, 100, 1, 0, 100))
                .hasMessage("--kvt-concurrency must be between 1 and 10000, but is 0");
    }
}
