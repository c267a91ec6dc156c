package io.sluice.examples;

import io.sluice.admin.ReaderGroup;
import io.sluice.client.SluiceClient;
import io.sluice.stream.Checkpoint;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A word count with checkpoints and a reset: a reader counts the words of the lines in a stream; halfway through, a
 * checkpoint is taken and the reader saves its counts with it when the checkpoint passes; at the end the group is
 * reset to that checkpoint, the saved counts restored, and the rest read again, which gives the same counts. That
 * is how an application keeps its state consistent with its position: state saved at a checkpoint, and after a
 * failure (or a reset) the group resumes from the checkpoint with that state.
 *
 * <p>{@code examples/run.sh WordCount [CONTROLLER_URI]} (it writes its own text into scope {@code examples}).
 */
public final class WordCount {

    static final List<String> TEXT = List.of(
            "the river runs to the sea",
            "a sluice lets the river through",
            "the sea takes what the river brings",
            "and the sluice keeps the count",
            "of every drop that runs",
            "to the sea and back again");

    private WordCount() {
    }

    /**
     * @param args the controller's URI (default {@code tcp://127.0.0.1:9090})
     */
    public static void main(String[] args) {
        try (SluiceClient client = SluiceClient.connect(args.length > 0 ? args[0] : "tcp://127.0.0.1:9090")) {
            Result r = run(client, "examples", "lines-" + System.currentTimeMillis());
            System.out.println("counts:                 " + r.counts());
            System.out.println("after reset to '" + r.checkpoint() + "': " + r.afterReset());
            System.out.println(r.counts().equals(r.afterReset()) ? "the same" : "DIFFERENT");
        }
    }

    /**
     * The counts of one full read, the checkpoint's name, and the counts after the reset and the read again.
     *
     * @param counts word counts after the first read to the end
     * @param checkpoint the checkpoint the group was reset to
     * @param afterReset word counts after the reset (the checkpoint's saved counts plus the rest read again)
     */
    public record Result(Map<String, Long> counts, String checkpoint, Map<String, Long> afterReset) {
    }

    /**
     * Writes the first half of {@link #TEXT} to a new stream, counts it and takes a checkpoint there; writes the rest
     * and seals the stream (so the reader knows where it ends), counts to the end; then resets to the checkpoint and
     * counts the rest again.
     *
     * @param client the client
     * @param scope a scope, created if missing
     * @param stream a stream name not in use
     * @return both counts
     */
    public static Result run(SluiceClient client, String scope, String stream) {
        client.streamManager().createScope(scope);
        client.streamManager().createStream(scope, stream,
                StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(2)).build());
        String group = stream + "-count";
        ReaderGroupConfig config = ReaderGroupConfig.builder().stream(scope + "/" + stream)
                .disableAutomaticCheckpoints().build();
        try (EventStreamWriter<String> writer = client.newWriter(scope, stream, Serializers.utf8());
             ReaderGroup readers = client.readerGroupManager(scope).createReaderGroup(group, config);
             EventStreamReader<String> reader = client.newReader(scope, group, "counter", Serializers.utf8());
             ExecutorService background = Executors.newVirtualThreadPerTaskExecutor()) {
            int half = TEXT.size() / 2;
            write(writer, 0, half);
            writer.flush();
            // a checkpoint completes when every reader has passed it, so this reader must go on reading while it
            // is taken: it is asked for on another thread
            CompletableFuture<Checkpoint> checkpoint = CompletableFuture.supplyAsync(
                    () -> readers.initiateCheckpoint("half", Duration.ofSeconds(30)), background);
            Map<String, Long> counts = new TreeMap<>();
            Map<String, Map<String, Long>> saved = new HashMap<>();
            Map<String, Long> first = null;
            while (true) {
                EventRead<String> read = reader.readNextEvent(Duration.ofSeconds(1));
                if (read.isCheckpoint()) {
                    // the reader's position is the checkpoint's: save the state that belongs with it
                    saved.put(read.checkpointName(), new TreeMap<>(counts));
                    if (first == null) {
                        write(writer, half, TEXT.size());
                        writer.flush();
                        client.streamManager().sealStream(scope, stream);
                    }
                } else if (read.hasEvent()) {
                    for (String word : read.event().toLowerCase(Locale.ROOT).split("\\s+")) {
                        counts.merge(word, 1L, Long::sum);
                    }
                } else if (read.readCompleted()) {
                    if (first != null) {
                        return new Result(first, "half", counts);
                    }
                    first = new TreeMap<>(counts);
                    Checkpoint taken = checkpoint.join();
                    readers.resetToCheckpoint(taken);
                    counts = new TreeMap<>(saved.get(taken.name()));
                }
            }
        }
    }

    private static void write(EventStreamWriter<String> writer, int from, int to) {
        for (int i = from; i < to; i++) {
            writer.write("line-" + i, TEXT.get(i));
        }
    }
}
