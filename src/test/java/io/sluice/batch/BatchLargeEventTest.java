package io.sluice.batch;

import java.util.List;

import io.sluice.client.SluiceClient;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.StreamConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Large events (over 8 MiB, written with {@code withLargeEvents(true)}) among small ones, read back by the batch
 * client's iterator whole and in order, against the embedded server. (That the iterator holds about one event at a
 * time: {@code io.sluice.segment.SegmentReaderTest}.)
 */
@Timeout(180)
class BatchLargeEventTest {
    private static final int MIB = 1024 * 1024;

    private EmbeddedServer server;
    private SluiceClient client;

    @BeforeEach
    void start() {
        server = EmbeddedServer.builder().inMemory().build();
        client = SluiceClient.connect(server.controllerUri());
        client.streamManager().createScope("batch-large");
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    @Test
    void threeEventsOf12MiBAmongSmallOnesComeBackWholeAndInOrder() {
        client.streamManager().createStream("batch-large", "mixed", StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(1)).build());
        ScopedStream s = ScopedStream.of("batch-large", "mixed");
        List<byte[]> events = BatchReads.largeAmongSmall(3, 12 * MIB);
        BatchReads.writeLarge(client, s, events);
        BatchReads.assertReadsLarge(client.batchClient(), s, events);
    }
}
