package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.sluice.client.SluiceClient;
import io.sluice.common.Await;
import io.sluice.common.Threads;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A standby server ({@link EmbeddedServer.Builder#standby}) on the data directory another server in this process
 * holds: it takes nothing and listens nowhere while the first one serves, and takes over once the first one stops,
 * with the client of the first (given both controllers) carrying on through it. Two processes and SIGKILL:
 * {@link TakeoverTest}.
 */
@Timeout(120)
class StandbyServerTest {
    private static final String SCOPE = "standby";
    private static final String STREAM = "events";
    private static final int KEYS = 6;

    @TempDir
    Path dir;

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static boolean listening(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (ConnectException e) {
            return false;
        } catch (IOException e) {
            throw new AssertionError("probing port " + port + ": " + e, e);
        }
    }

    @Test
    void waitsWhileTheFirstServesThenTakesOverAndTheClientMovesOver() throws Exception {
        Path data = dir.resolve("data");
        int standbyController = freePort();
        int standbySegmentStore = freePort();
        EmbeddedServer first = EmbeddedServer.builder().dataDir(data).containers(2).snapshotAfterBytes(20_000).build();
        AtomicReference<Thread> waiting = new AtomicReference<>();
        CompletableFuture<EmbeddedServer> second = new CompletableFuture<>();
        waiting.set(Threads.startVirtual("test-standby", () -> {
            try {
                second.complete(EmbeddedServer.builder().dataDir(data).containers(2).standby(true)
                        .standbyPoll(Duration.ofMillis(5)).controllerPort(standbyController)
                        .segmentStorePort(standbySegmentStore).snapshotAfterBytes(20_000).build());
            } catch (Throwable e) {
                second.completeExceptionally(e);
            }
        }));
        List<String> written = new ArrayList<>();
        String uri = "tcp://127.0.0.1:" + first.controllerEndpoint().port() + ",127.0.0.1:" + standbyController;
        try (SluiceClient client = SluiceClient.connect(uri)) {
            client.streamManager().createScope(SCOPE);
            client.streamManager().createStream(SCOPE, STREAM,
                    StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(3)).build());
            client.readerGroupManager(SCOPE).createReaderGroup("group",
                    ReaderGroupConfig.builder().stream(SCOPE + "/" + STREAM).build());
            try (EventStreamWriter<String> writer = client.newWriter(SCOPE, STREAM, Serializers.utf8());
                 EventStreamReader<String> reader = client.newReader(SCOPE, "group", "r1", Serializers.utf8())) {
                write(writer, written, 500);
                // the standby keeps trying the first container's lock: it sleeps between its attempts
                Await.until("the standby waits for a lock", () -> waiting.get().getState() == Thread.State.TIMED_WAITING);
                write(writer, written, 500);
                assertThat(second).as("the standby while the first server serves").isNotDone();
                assertThat(listening(standbyController)).as("the standby's controller port is open").isFalse();
                assertThat(listening(standbySegmentStore)).as("the standby's segment store port is open").isFalse();
                List<String> read = new ArrayList<>();
                readUntil(reader, read, 1000);

                first.close();
                EmbeddedServer standby = second.get(60, TimeUnit.SECONDS);
                assertThat(standby.controllerEndpoint().port()).isEqualTo(standbyController);
                // the same writer and reader carry on, through the second server
                write(writer, written, 1000);
                readUntil(reader, read, written.size());
                assertThat(read).as("every event once").hasSameSizeAs(written)
                        .containsExactlyInAnyOrderElementsOf(written);
                assertPerKeyOrder(read);
                assertThat(standby.segmentStore().segmentNames())
                        .anyMatch(n -> n.startsWith(SCOPE + "/" + STREAM + "/"));
            }
        } finally {
            first.close();
            waiting.get().interrupt();
            if (second.isDone() && !second.isCompletedExceptionally()) {
                second.join().close();
            }
        }
    }

    @Test
    void aStandbyNeedsADataDirectory() {
        assertThatThrownBy(() -> EmbeddedServer.builder().standby(true).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("standby")
                .hasMessageContaining("data directory");
        assertThatThrownBy(() -> EmbeddedServer.builder().standbyPoll(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("standbyPoll");
    }

    @Test
    void aSecondServerThatIsNoStandbyStillFailsAtOnce() {
        Path data = dir.resolve("data");
        try (EmbeddedServer first = EmbeddedServer.builder().dataDir(data).build()) {
            assertThatThrownBy(() -> EmbeddedServer.builder().dataDir(data).build())
                    .hasMessageContaining("data directory").hasMessageContaining("locked");
            assertThat(first.segmentStore().segmentNames()).isNotNull();
        }
    }

    private static void write(EventStreamWriter<String> writer, List<String> written, int n) {
        for (int i = 0; i < n; i++) {
            int number = written.size();
            String event = "k" + (number % KEYS) + ":" + number;
            writer.write("k" + (number % KEYS), event);
            written.add(event);
        }
        writer.flush();
    }

    private static void readUntil(EventStreamReader<String> reader, List<String> read, int count) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (read.size() < count) {
            assertThat(System.nanoTime() - deadline).as("read %s of %s events in time", read.size(), count)
                    .isNegative();
            EventRead<String> e = reader.readNextEvent(Duration.ofMillis(500));
            if (e.hasEvent()) {
                read.add(e.event());
            }
        }
    }

    static void assertPerKeyOrder(List<String> events) {
        Map<String, Integer> last = new HashMap<>();
        for (String e : events) {
            String key = e.substring(0, e.indexOf(':'));
            int n = Integer.parseInt(e.substring(e.indexOf(':') + 1));
            assertThat(n).as("order of %s", key).isGreaterThan(last.getOrDefault(key, -1));
            last.put(key, n);
        }
    }
}
