package io.sluice.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.auth.BasicCredentials;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.server.EmbeddedServer;
import io.sluice.server.controller.PasswordFile;
import io.sluice.state.StateSynchronizer;
import io.sluice.state.SynchronizerScenarios;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;

/**
 * The synchronizers on an embedded server with authentication: their segment requests carry delegation tokens the
 * controller issued (for the stream, and for the table synchronizer's resource {@code scope/_SYNC<name>}).
 */
@Timeout(60)
class SynchronizersWithAuthTest {
    @Test
    void synchronizersWorkWithDelegationTokens(@TempDir Path dir) throws Exception {
        Path users = dir.resolve("users");
        Files.writeString(users, PasswordFile.entry("admin", "pw".toCharArray(), "*=READ_UPDATE", 1000) + "\n");
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().passwordFile(users).build();
             SluiceClient client = SluiceClient.connect(ClientConfig.builder(server.controllerUri())
                     .credentials(new BasicCredentials("admin", "pw")).build())) {
            client.streamManager().createScope("secure");
            client.streamManager().createStream("secure", "state", StreamConfiguration.builder()
                    .scalingPolicy(ScalingPolicy.fixed(1)).build());
            try (StateSynchronizer<String, SynchronizerScenarios.Append> s = client.newStateSynchronizer("secure",
                    "state", SynchronizerScenarios.APPENDS, Serializers.utf8())) {
                assertThat(s.initialize("a")).isTrue();
                assertThat(s.updateState(state -> List.of(new SynchronizerScenarios.Append("b")))).isEqualTo("a,b");
            }
            try (TableSynchronizer<String, Long> t = client.newTableSynchronizer("secure", "map", Serializers.utf8(),
                    TableSynchronizerScenarios.LONGS)) {
                assertThat(t.insert("k", 1L)).isTrue();
                assertThat(t.update(m -> Map.of("k", m.get("k") + 1))).isEqualTo(Map.of("k", 2L));
                assertThat(t.remove("k")).isTrue();
                t.fetchUpdates();
                assertThat(t.snapshot()).isEmpty();
            }
        }
    }
}
