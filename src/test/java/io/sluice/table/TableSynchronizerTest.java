package io.sluice.table;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.client.SluiceClient;
import io.sluice.errors.NoSuchScopeException;
import io.sluice.server.EmbeddedServer;
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
    void badArguments() {
        TableSynchronizerScenarios.badArguments(client, SCOPE);
        assertThatThrownBy(() -> client.newTableSynchronizer("no-such-scope", "t", Serializers.utf8(),
                TableSynchronizerScenarios.LONGS)).isInstanceOf(NoSuchScopeException.class)
                .hasMessageContaining("no-such-scope");
    }
}
