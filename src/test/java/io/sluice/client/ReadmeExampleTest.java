package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.sluice.admin.ReaderGroupManager;
import io.sluice.admin.StreamManager;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The example of README.md's "Using the client", line for line, against the embedded server. */
@Timeout(60)
class ReadmeExampleTest {

    @Test
    void theReadmeExampleRunsAsWritten() {
        List<String> seen = new ArrayList<>();
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().build();
             SluiceClient client = SluiceClient.connect(server.controllerUri())) {
            // --- from README.md
            StreamManager streams = client.streamManager();
            streams.createScope("shop");
            streams.createStream("shop", "orders", StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(4)).build());

            try (EventStreamWriter<String> writer = client.newWriter("shop", "orders", Serializers.utf8())) {
                writer.write("customer-42", "order placed");
                writer.writeAndWait("customer-42", "paid");
                writer.flush();
            }

            ReaderGroupManager groups = client.readerGroupManager("shop");
            groups.createReaderGroup("billing", ReaderGroupConfig.builder().stream("shop/orders").build());
            try (EventStreamReader<String> reader = client.newReader("shop", "billing", "reader-1", Serializers.utf8())) {
                // --- the README reads one event; read both and check them
                while (seen.size() < 2) {
                    EventRead<String> read = reader.readNextEvent(Duration.ofSeconds(1));
                    if (read.hasEvent()) {
                        assertThat(read.pointer()).isNotNull();
                        assertThat(reader.fetchEvent(read.pointer())).isEqualTo(read.event());
                        seen.add(read.event());
                    }
                }
            }
        }
        assertThat(seen).containsExactly("order placed", "paid");
    }
}
