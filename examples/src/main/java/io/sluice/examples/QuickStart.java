package io.sluice.examples;

import io.sluice.admin.ReaderGroupManager;
import io.sluice.admin.StreamManager;
import io.sluice.client.SluiceClient;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import java.time.Duration;

/**
 * The quick start of README.md ("Using the client"): a scope, a stream of 4 segments, a writer and a reader. The
 * README's snippet is the part between the {@code README} markers, line for line (ReadmeExampleTest checks it).
 *
 * <p>Run it against a server: {@code ./sluice server} in one terminal, then
 * {@code examples/run.sh QuickStart [CONTROLLER_URI]}.
 */
public final class QuickStart {

    private QuickStart() {
    }

    /**
     * @param args the controller's URI (default {@code tcp://127.0.0.1:9090})
     */
    public static void main(String[] args) {
        run(args.length > 0 ? args[0] : "tcp://127.0.0.1:9090");
    }

    /**
     * Writes two events and reads the first back, printing it on standard output.
     *
     * @param controllerUri the controller's URI
     */
    public static void run(String controllerUri) {
        // README:start
        try (SluiceClient client = SluiceClient.connect(controllerUri)) {
            StreamManager streams = client.streamManager();
            streams.createScope("shop");
            streams.createStream("shop", "orders", StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(4)).build());

            try (EventStreamWriter<String> writer = client.newWriter("shop", "orders", Serializers.utf8())) {
                writer.write("customer-42", "order placed");     // queued; returns at once (blocks only for backpressure)
                writer.writeAndWait("customer-42", "paid");       // returns when durable
                writer.flush();                                   // returns when everything written is durable
            }                                                     // close flushes too

            ReaderGroupManager groups = client.readerGroupManager("shop");
            groups.createReaderGroup("billing", ReaderGroupConfig.builder().stream("shop/orders").build());
            try (EventStreamReader<String> reader = client.newReader("shop", "billing", "reader-1", Serializers.utf8())) {
                EventRead<String> read = reader.readNextEvent(Duration.ofSeconds(1));
                if (read.hasEvent()) {
                    System.out.println(read.event() + " at " + read.pointer());
                }
            }
        }
        // README:end
    }
}
