package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.common.Deadline;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.Position;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;

/**
 * Against the real Pravega 0.13: a reader closed at a position hands back what it read after it, and the stream
 * manager fetches an event by its pointer without a reader.
 */
@CompatTest
@Timeout(120)
class ReaderCloseAtCompatTest {
    @RegisterExtension
    static final RealPravegaScope real = new RealPravegaScope("compat-closeat");

    @Test
    void aReaderClosedAtAPositionHandsBackWhatItReadAfterItAndEventsAreFetchedByPointer() {
        String scope = real.scope;
        real.streams.createStream(scope, "s", StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(1)).build());
        try (EventStreamWriter<String> writer = real.client.newWriter(scope, "s", Serializers.utf8())) {
            for (int i = 0; i < 10; i++) {
                writer.write("k", "e" + i);
            }
            writer.flush();
        }
        real.streams.sealStream(scope, "s");
        real.client.readerGroupManager(scope).createReaderGroup("g", ReaderGroupConfig.builder()
                .stream(ScopedStream.of(scope, "s")).groupRefreshTimeMillis(100).disableAutomaticCheckpoints().build())
                .close();

        List<EventRead<String>> first = new ArrayList<>();
        try (EventStreamReader<String> reader = real.client.newReader(scope, "g", "a", Serializers.utf8())) {
            while (first.size() < 6) {
                EventRead<String> e = reader.readNextEvent(Duration.ofSeconds(10));
                if (e.event() != null) {
                    first.add(e);
                }
            }
            Position processed = first.get(2).position();
            reader.closeAt(processed);
        }
        assertThat(real.streams.fetchEvent(first.get(4).pointer(), Serializers.utf8())).isEqualTo("e4");

        List<String> rest = new ArrayList<>();
        Deadline deadline = Deadline.after(Duration.ofSeconds(60));
        try (EventStreamReader<String> next = real.client.newReader(scope, "g", "b", Serializers.utf8())) {
            while (true) {
                assertThat(deadline.expired()).as("the second reader read the rest in time").isFalse();
                EventRead<String> e = next.readNextEvent(Duration.ofMillis(200));
                if (e.readCompleted()) {
                    break;
                }
                if (e.event() != null) {
                    rest.add(e.event());
                }
            }
        }
        assertThat(rest).containsExactly("e3", "e4", "e5", "e6", "e7", "e8", "e9");
    }
}
