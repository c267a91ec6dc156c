package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.sluice.client.SluiceClient;
import io.sluice.common.Threads;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.WriteHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two server processes on one data directory: the second, a standby ({@code sluice server --standby}), takes nothing
 * while the first lives — every lock file still names the first, the standby's ports are closed, it says it waits —
 * and takes everything over once the first is killed with SIGKILL while a writer streams events and a reader reads
 * them. The client, given both controllers, carries on by itself through the second server: every acknowledged event
 * is read exactly once, in order per key.
 */
@Timeout(180)
class TakeoverTest {
    private static final String SCOPE = "takeover";
    private static final String STREAM = "events";
    private static final int KEYS = 8;
    private static final int BEFORE_KILL = 3000;
    private static final int AFTER_KILL = 3000;

    @TempDir
    Path dir;

    @Test
    void theStandbyTakesNothingWhileTheFirstLivesAndEverythingAfterItsSigkill() throws Exception {
        Path data = dir.resolve("data");
        String[] options = {"--containers", "2", "--snapshot-after", "100000"};
        try (ServerProcess first = ServerProcess.start(dir, "first", data, ServerProcess.freePort(),
                ServerProcess.freePort(), options).awaitReady(Duration.ofSeconds(60));
             ServerProcess standby = ServerProcess.start(dir, "standby", data, ServerProcess.freePort(),
                     ServerProcess.freePort(), with(options, "--standby"))) {
            standby.awaitLog("container 0 is held by another server", Duration.ofSeconds(60));
            assertThat(standby.log()).as("the standby names who holds the lock").contains("pid " + first.pid());

            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            List<String> read = new CopyOnWriteArrayList<>();
            List<CompletableFuture<Void>> callbacks = new ArrayList<>();
            int unacknowledgedAtKill = -1;
            long started = System.nanoTime();
            long killedAt = 0;
            long flushedAt;
            try (SluiceClient client = SluiceClient.connect(first.controllerUri() + ",127.0.0.1:"
                    + standby.controllerPort())) {
                client.streamManager().createScope(SCOPE);
                client.streamManager().createStream(SCOPE, STREAM,
                        StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(3)).build());
                client.readerGroupManager(SCOPE).createReaderGroup("group",
                        ReaderGroupConfig.builder().stream(SCOPE + "/" + STREAM).build());
                try (EventStreamWriter<String> writer = client.newWriter(SCOPE, STREAM, Serializers.utf8());
                     EventStreamReader<String> reader = client.newReader(SCOPE, "group", "r1", Serializers.utf8())) {
                    CompletableFuture<Void> reading = readInBackground(reader, read, BEFORE_KILL + AFTER_KILL);
                    for (int n = 0; n < BEFORE_KILL; n++) {
                        write(writer, n, acknowledged, callbacks);
                    }
                    writer.flush();

                    // the first has written events with the standby beside it: nothing of it moved to the standby
                    assertThat(standby.alive()).isTrue();
                    assertThat(standby.ready()).as("standby ready while the first lives").isFalse();
                    assertThat(ServerProcess.listening(standby.controllerPort())).as("standby controller port").isFalse();
                    assertThat(ServerProcess.listening(standby.segmentStorePort())).as("standby segment store port")
                            .isFalse();
                    assertThat(lockHolders(data)).as("who holds each resource's lock").hasSize(3)
                            .allMatch(holder -> holder.equals("pid " + first.pid()));

                    for (int n = BEFORE_KILL; n < BEFORE_KILL + AFTER_KILL; n++) {
                        write(writer, n, acknowledged, callbacks);
                        if (n == BEFORE_KILL + 200) {
                            unacknowledgedAtKill = n + 1 - acknowledged.size();
                            killedAt = System.currentTimeMillis();
                            first.kill();
                            assertThat(unacknowledgedAtKill).as("writes in flight at the kill").isNotNegative();
                        }
                    }
                    writer.flush();
                    flushedAt = System.currentTimeMillis();
                    CompletableFuture.allOf(callbacks.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                    assertThat(standby.ready()).as("the standby took over").isTrue();
                    reading.get(90, TimeUnit.SECONDS);
                    System.out.printf("TakeoverTest: %d events written and read, %d in flight at the SIGKILL; standby "
                            + "ready %d ms after it, writer flushed %d ms after it; read all after %d ms in all%n",
                            BEFORE_KILL + AFTER_KILL, unacknowledgedAtKill, standby.readyMillis() - killedAt,
                            flushedAt - killedAt, (System.nanoTime() - started) / 1_000_000);
                    assertThat(reader.readNextEvent(Duration.ofMillis(500)).hasEvent()).as("an event more").isFalse();
                }
            }
            assertThat(acknowledged).as("every write acknowledged").hasSize(BEFORE_KILL + AFTER_KILL);
            assertThat(read).as("no event twice").doesNotHaveDuplicates();
            assertThat(read).as("every acknowledged event read").containsExactlyInAnyOrderElementsOf(acknowledged);
            StandbyServerTest.assertPerKeyOrder(read);
            assertThat(lockHolders(data)).as("the standby holds every lock now")
                    .allMatch(holder -> holder.equals("pid " + standby.pid()));
            assertThat(standby.log()).contains("standby: took over container 0")
                    .contains("holds every container and the controller's metadata");
        }
    }

    private static void write(EventStreamWriter<String> writer, int n, Set<String> acknowledged,
                              List<CompletableFuture<Void>> callbacks) {
        String key = "k" + (n % KEYS);
        String event = key + ":" + n;
        WriteHandle h = writer.write(key, event);
        callbacks.add(h.toCompletableFuture().thenRun(() -> acknowledged.add(event)));
    }

    /** Reads until {@code count} events came (more would show as duplicates), on a thread of its own. */
    private static CompletableFuture<Void> readInBackground(EventStreamReader<String> reader, List<String> read,
                                                            int count) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Threads.startVirtual("test-reader", () -> {
            try {
                while (read.size() < count) {
                    EventRead<String> e = reader.readNextEvent(Duration.ofMillis(500));
                    if (e.hasEvent()) {
                        read.add(e.event());
                    }
                }
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    /** @return the holder each lock file names ("pid N"), one per resource of the data directory */
    static List<String> lockHolders(Path data) throws java.io.IOException {
        try (Stream<Path> files = Files.walk(data.resolve("resources"))) {
            List<String> holders = new ArrayList<>();
            for (Path f : files.filter(p -> p.getFileName().toString().equals("lock")).toList()) {
                holders.add(new String(Files.readAllBytes(f), StandardCharsets.US_ASCII).trim());
            }
            return holders;
        }
    }

    private static String[] with(String[] options, String... more) {
        return Stream.concat(Stream.of(options), Stream.of(more)).toArray(String[]::new);
    }
}
