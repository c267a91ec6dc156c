package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice server --json}: the ready line is one JSON object a script can read, in a server JVM of its own. */
@Timeout(120)
class ServerJsonTest {

    @Test
    void theReadyLineIsOneJsonObject(@TempDir Path dir) throws Exception {
        int controller = ServerProcess.freePort();
        int segmentStore = ServerProcess.freePort();
        try (ServerProcess server = ServerProcess.start(dir, "json", dir.resolve("data"), controller, segmentStore,
                "--json")) {
            server.awaitReady(Duration.ofSeconds(60));
            server.awaitLog("\"ready\":true", Duration.ofSeconds(30));
            List<String> json = server.log().lines().filter(l -> l.startsWith("{")).toList();
            assertThat(json).hasSize(1);
            assertThat(json.get(0))
                    .startsWith("{\"ready\":true,\"readyMillis\":")
                    .contains("\"controller\":\"tcp://127.0.0.1:" + controller + "\"")
                    .contains("\"segmentStore\":\"127.0.0.1:" + segmentStore + "\"")
                    .contains("\"advertisedHost\":\"127.0.0.1\"", "\"metrics\":null")
                    .contains("\"dataDir\":\"" + dir.resolve("data").toAbsolutePath() + "\"");
            // the text block is not printed (the log's INFO line is -v's, which ServerProcess passes)
            assertThat(server.log()).doesNotContain("  controller:    ", "Press Ctrl-C");
        }
    }
}
