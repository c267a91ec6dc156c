package io.sluice.client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.sluice.admin.ReaderGroup;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.Checkpoint;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;

/**
 * A small client and server workload (write, read, a checkpoint) that {@link NoMicrometerTest} runs in a child JVM
 * whose class path has no Micrometer: it must run as it did before metrics existed. Prints {@code ok N} and exits 0
 * when all N events came back; exits 2 if Micrometer is loadable after all (the test would prove nothing).
 */
final class NoMicrometerWorkload {
    private NoMicrometerWorkload() {
    }

    public static void main(String[] args) throws Exception {
        try {
            Class.forName("io.micrometer.core.instrument.MeterRegistry");
            System.out.println("Micrometer is on the class path");
            System.exit(2);
        } catch (ClassNotFoundException expected) {
            // as it should be
        }
        int events = 50;
        int read = 0;
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().build();
             SluiceClient client = SluiceClient.connect(server.controllerUri())) {
            client.streamManager().createScope("plain");
            client.streamManager().createStream("plain", "s",
                    StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(2)).build());
            try (EventStreamWriter<String> writer = client.newWriter("plain", "s", Serializers.utf8())) {
                for (int i = 0; i < events; i++) {
                    writer.write("k" + i, "event " + i);
                }
                writer.flush();
            }
            ReaderGroup group = client.readerGroupManager("plain").createReaderGroup("g",
                    ReaderGroupConfig.builder().stream("plain/s").disableAutomaticCheckpoints().build());
            try (EventStreamReader<String> reader = client.newReader("plain", "g", "r", Serializers.utf8())) {
                while (read < events) {
                    EventRead<String> r = reader.readNextEvent(Duration.ofSeconds(10));
                    if (!r.hasEvent()) {
                        break;
                    }
                    read++;
                }
                CompletableFuture<Checkpoint> checkpoint = CompletableFuture.supplyAsync(
                        () -> group.initiateCheckpoint("cp", Duration.ofSeconds(30)), r -> Thread.ofVirtual().start(r));
                while (!checkpoint.isDone()) {
                    reader.readNextEvent(Duration.ofMillis(100));
                }
                checkpoint.join();
            }
        }
        System.out.println("ok " + read);
        System.exit(read == events ? 0 : 1);
    }
}
