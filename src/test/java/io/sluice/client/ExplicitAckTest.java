package io.sluice.client;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.sluice.server.EmbeddedServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code AckMode.EXPLICIT} against the embedded server: the scenarios of {@link ExplicitAckScenarios}. */
@Timeout(120)
class ExplicitAckTest {
    private EmbeddedServer server;
    private SluiceClient client;
    private ExecutorService threads;
    private ExplicitAckScenarios scenarios;

    @BeforeEach
    void start() {
        server = EmbeddedServer.builder().inMemory().build();
        client = SluiceClient.connect(server.controllerUri());
        client.streamManager().createScope("acks");
        threads = Executors.newVirtualThreadPerTaskExecutor();
        scenarios = new ExplicitAckScenarios(client, "acks");
    }

    @AfterEach
    void stop() {
        threads.shutdownNow();
        client.close();
        server.close();
    }

    @Test
    void closeHandsBackAtTheAcknowledgedPosition() {
        scenarios.closeHandsBackAtTheAcknowledgedPosition();
    }

    @Test
    void aCrashedReadersUnacknowledgedEventsAreReadAgain() throws Exception {
        scenarios.aCrashedReadersUnacknowledgedEventsAreReadAgain(threads);
    }

    @Test
    void aCheckpointWaitsForTheAcknowledgements() throws Exception {
        scenarios.aCheckpointWaitsForTheAcknowledgements(threads);
    }

    @Test
    void rebalancingWaitsForTheAcknowledgements() throws Exception {
        scenarios.rebalancingWaitsForTheAcknowledgements(threads);
    }

    @Test
    void aCrashedReadersUnacknowledgedSliceEventsAreReadAgain() throws Exception {
        scenarios.aCrashedReadersUnacknowledgedSliceEventsAreReadAgain(threads);
    }
}
