package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import io.sluice.segment.ScriptedSegmentStore;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.EventPointer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code fetchEvent} follows a segment that moved: WrongHost makes it ask the controller again, and it succeeds. */
@Timeout(60)
class FetchEventFailoverTest {

    @Test
    void fetchEventFollowsASegmentThatMoved() throws Exception {
        ReaderGroupConfig group = ReaderGroupConfig.builder().stream(ScopedStream.of("shop", "orders")).build();
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().build();
             ScriptedSegmentStore old = StreamInfoFailoverTest.wrongHostStore();
             ReroutingController controller = new ReroutingController(server);
             SluiceClient direct = SluiceClient.connect(server.controllerUri())) {
            direct.streamManager().createScope("shop");
            direct.streamManager().createStream("shop", "orders", StreamConfiguration.builder().build());
            try (EventStreamWriter<String> writer = direct.newWriter("shop", "orders", Serializers.utf8())) {
                writer.writeAndWait("k", "first");
                writer.writeAndWait("k", "second");
            }
            direct.readerGroupManager("shop").createReaderGroup("g", group).close();
            EventPointer pointer;
            try (EventStreamReader<String> reader = direct.newReader("shop", "g", "r", Serializers.utf8())) {
                reader.readNextEvent(Duration.ofSeconds(10));
                EventRead<String> second = reader.readNextEvent(Duration.ofSeconds(10));
                assertThat(second.event()).isEqualTo("second");
                pointer = second.pointer();
            }

            try (SluiceClient client = SluiceClient.connect(controller.uri())) {
                client.readerGroupManager("shop").createReaderGroup("g2", group).close();
                try (EventStreamReader<String> reader = client.newReader("shop", "g2", "r", Serializers.utf8())) {
                    controller.misroute("orders", old.endpoint(), 1);
                    int asked = controller.uriCalls("orders");
                    assertThat(reader.fetchEvent(pointer)).isEqualTo("second");
                    assertThat(controller.uriCalls("orders") - asked).as("asked once, and again after WrongHost")
                            .isEqualTo(2);
                }
            }
            assertThat(old.received()).as("one request went to the old segment store").hasSize(1);
        }
    }
}
