package io.sluice.client;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.sluice.server.EmbeddedServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Segment slices against the embedded server: the scenarios of {@link SegmentSliceScenarios}. */
@Timeout(120)
class SegmentSliceTest {
    private EmbeddedServer server;
    private SluiceClient client;
    private ExecutorService threads;
    private SegmentSliceScenarios scenarios;

    @BeforeEach
    void start() {
        server = EmbeddedServer.builder().inMemory().build();
        client = SluiceClient.connect(server.controllerUri());
        client.streamManager().createScope("slices");
        threads = Executors.newVirtualThreadPerTaskExecutor();
        scenarios = new SegmentSliceScenarios(client, "slices");
    }

    @AfterEach
    void stop() {
        threads.shutdownNow();
        client.close();
        server.close();
    }

    @Test
    void slicesAreReadInParallelOnVirtualThreads() throws Exception {
        scenarios.slicesAreReadInParallelOnVirtualThreads(threads);
    }

    @Test
    void aSliceEndsAtTheSealAndTheSuccessorsFollow() {
        scenarios.aSliceEndsAtTheSealAndTheSuccessorsFollow();
    }

    @Test
    void aSliceReleasedAtAnOffsetIsReadOnFromThere() {
        scenarios.aSliceReleasedAtAnOffsetIsReadOnFromThere();
    }

    @Test
    void twoReadersShareAGroupThroughSlices() throws Exception {
        scenarios.twoReadersShareAGroupThroughSlices(threads);
    }

    @Test
    void twoExplicitAckReadersShareAGroupThroughSlices() throws Exception {
        scenarios.twoExplicitAckReadersShareAGroupThroughSlices(threads);
    }
}
