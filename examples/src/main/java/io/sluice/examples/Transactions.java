package io.sluice.examples;

import io.sluice.client.SluiceClient;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.Transaction;
import io.sluice.stream.TransactionalEventStreamWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Transactions: the two legs of a transfer written in one transaction appear together or not at all. One transfer
 * is committed, one aborted; a reader sees the committed one's events only.
 *
 * <p>{@code examples/run.sh Transactions [CONTROLLER_URI]} (it works in scope {@code examples}).
 */
public final class Transactions {

    private Transactions() {
    }

    /**
     * @param args the controller's URI (default {@code tcp://127.0.0.1:9090})
     */
    public static void main(String[] args) {
        try (SluiceClient client = SluiceClient.connect(args.length > 0 ? args[0] : "tcp://127.0.0.1:9090")) {
            run(client, "examples", "transfers-" + System.currentTimeMillis()).forEach(System.out::println);
        }
    }

    /**
     * Commits one transfer, aborts another, and reads the stream.
     *
     * @param client the client
     * @param scope a scope, created if missing
     * @param stream a stream name not in use
     * @return the events a reader sees, in order per account
     */
    public static List<String> run(SluiceClient client, String scope, String stream) {
        client.streamManager().createScope(scope);
        client.streamManager().createStream(scope, stream,
                StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(2)).build());
        try (TransactionalEventStreamWriter<String> writer =
                     client.newTransactionalWriter(scope, stream, Serializers.utf8())) {
            Transaction<String> transfer = writer.beginTxn();
            transfer.write("alice", "alice -10");
            transfer.write("bob", "bob +10");
            transfer.commit();                     // both events, atomically; returns once committed

            Transaction<String> cancelled = writer.beginTxn();
            cancelled.write("alice", "alice -99");
            cancelled.write("carol", "carol +99");
            cancelled.abort();                     // neither event is ever read
        }
        client.streamManager().sealStream(scope, stream);

        List<String> seen = new ArrayList<>();
        String group = stream + "-audit";
        client.readerGroupManager(scope).createReaderGroup(group,
                ReaderGroupConfig.builder().stream(scope + "/" + stream).build()).close();
        try (EventStreamReader<String> reader = client.newReader(scope, group, "auditor", Serializers.utf8())) {
            EventRead<String> read;
            do {
                read = reader.readNextEvent(Duration.ofSeconds(1));
                if (read.hasEvent()) {
                    seen.add(read.event());
                }
            } while (!read.readCompleted());
        }
        return seen;
    }
}
