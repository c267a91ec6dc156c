package io.sluice.examples;

import io.sluice.admin.ReaderGroup;
import io.sluice.admin.ReaderGroupManager;
import io.sluice.client.SluiceClient;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamCut;
import java.time.Duration;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * {@code tail -f} for a stream: prints every event written after it starts, as it arrives, until stopped (Ctrl-C).
 * A reader group of its own starts at the stream's tail, so nothing written before is shown, and is deleted when the
 * follower closes.
 *
 * <p>{@code examples/run.sh Follower SCOPE/STREAM [CONTROLLER_URI]}; in another terminal
 * {@code seq 10 | ./sluice write SCOPE/STREAM}.
 */
public final class Follower implements AutoCloseable {
    private final ReaderGroupManager groups;
    private final String group;
    private final EventStreamReader<String> reader;

    /**
     * Starts following: what the stream holds from now on is what {@link #run} prints.
     *
     * @param client the client
     * @param stream the stream to follow, which must exist
     */
    public Follower(SluiceClient client, ScopedStream stream) {
        StreamCut tail = client.streamManager().streamInfo(stream.scope(), stream.name()).tail();
        this.groups = client.readerGroupManager(stream.scope());
        this.group = "follow-" + UUID.randomUUID().toString().substring(0, 8);
        ReaderGroup created = groups.createReaderGroup(group, ReaderGroupConfig.builder().stream(stream, tail).build());
        created.close();
        this.reader = client.newReader(stream.scope(), group, "follower", Serializers.utf8());
    }

    /**
     * Hands each new event to {@code sink}, in order per routing key, while {@code keepGoing} says so (asked at least
     * every half second).
     *
     * @param sink what to do with an event
     * @param keepGoing whether to go on
     */
    public void run(Consumer<String> sink, BooleanSupplier keepGoing) {
        while (keepGoing.getAsBoolean()) {
            EventRead<String> read = reader.readNextEvent(Duration.ofMillis(500));
            if (read.hasEvent()) {
                sink.accept(read.event());
            }
        }
    }

    /** @return the name of the follower's own reader group */
    public String group() {
        return group;
    }

    /** Stops reading and deletes the follower's reader group. */
    @Override
    public void close() {
        reader.close();
        groups.deleteReaderGroup(group);
    }

    /**
     * @param args {@code SCOPE/STREAM [CONTROLLER_URI]}
     */
    public static void main(String[] args) {
        if (args.length < 1) {
            System.err.println("usage: Follower SCOPE/STREAM [CONTROLLER_URI]");
            System.exit(2);
        }
        String uri = args.length > 1 ? args[1] : "tcp://127.0.0.1:9090";
        try (SluiceClient client = SluiceClient.connect(uri);
             Follower follower = new Follower(client, ScopedStream.parse(args[0]))) {
            follower.run(System.out::println, () -> !Thread.currentThread().isInterrupted());
        }
    }
}
