package io.sluice.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.client.SluiceClient;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.NoSuchScopeException;
import io.sluice.server.EmbeddedServer;
import io.sluice.state.SynchronizerConfig;
import io.sluice.stream.Serializers;

/** The table synchronizer against the embedded server. */
@Timeout(120)
class TableSynchronizerTest {
    private static final String SCOPE = "tablesync";
    private static EmbeddedServer server;
    private static SluiceClient client;

    @BeforeAll
    static void start() {
        server = EmbeddedServer.builder().inMemory().build();
        client = SluiceClient.connect(server.controllerUri());
        client.streamManager().createScope(SCOPE);
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void insertGetRemoveAndFetch() {
        TableSynchronizerScenarios.insertGetRemoveAndFetch(client, SCOPE);
    }

    @Test
    void updates() {
        TableSynchronizerScenarios.updates(client, SCOPE);
    }

    @Test
    void keysReadAreConditioned() {
        TableSynchronizerScenarios.keysReadAreConditioned(client, SCOPE);
    }

    @Test
    void fourRacingUpdatersNeverLoseAnIncrement() throws Exception {
        TableSynchronizerScenarios.racingUpdatersNeverLoseAnIncrement(client, SCOPE, 4, 100);
    }

    @Test
    void anUpdateThatLosesEveryRaceGivesUpAfterTheUpdateTimeout() {
        try (TableSynchronizer<String, Long> loser = client.newTableSynchronizer(SCOPE, "timeout", Serializers.utf8(),
                TableSynchronizerScenarios.LONGS, new SynchronizerConfig(Duration.ofMillis(200)));
             TableSynchronizer<String, Long> winner = client.newTableSynchronizer(SCOPE, "timeout",
                     Serializers.utf8(), TableSynchronizerScenarios.LONGS)) {
            winner.insert("x", 0L);
            AtomicInteger calls = new AtomicInteger();
            assertThatThrownBy(() -> loser.update(m -> {
                calls.incrementAndGet();
                long x = m.get("x");
                winner.update(w -> Map.of("x", w.get("x") + 1));
                return Map.of("y", x);
            })).isInstanceOf(DeadlineExceededException.class).hasMessageContaining("lost");
            assertThat(calls.get()).isGreaterThan(1);
            loser.fetchUpdates();
            assertThat(loser.snapshot()).as("nothing of the loser's was written").isEqualTo(Map.of("x",
                    (long) calls.get()));
        }
        assertThatThrownBy(() -> client.newTableSynchronizer(SCOPE, "t", Serializers.utf8(),
                TableSynchronizerScenarios.LONGS, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("config");
    }

    @Test
    void badArguments() {
        TableSynchronizerScenarios.badArguments(client, SCOPE);
        assertThatThrownBy(() -> client.newTableSynchronizer("no-such-scope", "t", Serializers.utf8(),
                TableSynchronizerScenarios.LONGS)).isInstanceOf(NoSuchScopeException.class)
                .hasMessageContaining("no-such-scope");
    }
}
