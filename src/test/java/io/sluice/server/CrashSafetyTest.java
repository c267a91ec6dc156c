package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.client.ClientInternals;
import io.sluice.client.SluiceClient;
import io.sluice.common.Deadline;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.RawClient;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.RetryPolicy;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.WriteHandle;
import io.sluice.stream.WriterConfig;
import io.sluice.wire.EventFrames;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.SegmentRead;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server process is killed with SIGKILL while a writer streams events; after each restart on the same data
 * directory every acknowledged event is there exactly once, and the writer resumes without duplicates.
 */
@Timeout(300)
class CrashSafetyTest {
    private static final ScopedStream STREAM = ScopedStream.of("crash", "events");
    private static final int ROUNDS = 3;
    private static final int KEYS = 8;

    @TempDir
    Path dir;

    private int controllerPort;
    private int segmentStorePort;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Starts `sluice server` in its own JVM and waits until it is ready. */
    private Process startServer(int round) throws Exception {
        Path ready = dir.resolve("ready-" + round);
        Path log = dir.resolve("server-" + round + ".log");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), "io.sluice.cli.Main", "server",
                "--data-dir", dir.resolve("data").toString(), "--controller-port", String.valueOf(controllerPort),
                "--segment-store-port", String.valueOf(segmentStorePort), "--snapshot-after", "200000",
                "--ready-file", ready.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        Process p = pb.start();
        Deadline deadline = Deadline.after(Duration.ofSeconds(60));
        while (!Files.exists(ready)) {
            if (!p.isAlive()) {
                throw new AssertionError("server exited with " + p.exitValue() + ": " + Files.readString(log));
            }
            if (deadline.expired()) {
                p.destroyForcibly();
                throw new AssertionError("server not ready in time: " + Files.readString(log));
            }
            p.waitFor(20, TimeUnit.MILLISECONDS);
        }
        return p;
    }

    @Test
    void acknowledgedEventsSurviveKillMinusNineExactlyOnce() throws Exception {
        controllerPort = freePort();
        segmentStorePort = freePort();
        Process server = startServer(0);
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        List<CompletableFuture<Void>> callbacks = new ArrayList<>();
        AtomicInteger written = new AtomicInteger();
        int unacknowledgedAtKills = 0;
        WriterConfig patient = WriterConfig.DEFAULT.withRetry(
                RetryPolicy.exponential(Duration.ofMillis(10), 2, 30, Duration.ofMillis(500)));
        try (SluiceClient client = SluiceClient.connect("tcp://127.0.0.1:" + controllerPort)) {
            ClientInternals.controller(client).createScope(STREAM.scope());
            ClientInternals.controller(client).createStream(STREAM, StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(2)).build());
            try (EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8(), patient)) {
                for (int round = 1; round <= ROUNDS; round++) {
                    // stream events while the server is killed mid-flight
                    int killAt = written.get() + 3000;
                    while (written.get() < killAt) {
                        int n = written.getAndIncrement();
                        String event = "k" + (n % KEYS) + ":" + n;
                        WriteHandle h = writer.write("k" + (n % KEYS), event);
                        callbacks.add(h.toCompletableFuture().thenRun(() -> acknowledged.add(event)));
                        if (n == killAt - 1500) {
                            unacknowledgedAtKills += written.get() - acknowledged.size();
                            server.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                            server = startServer(round);
                        }
                    }
                }
                writer.flush();
                // the stages of toCompletableFuture() run on threads of their own: wait for the last of them
                CompletableFuture.allOf(callbacks.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            }
        } finally {
            server.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }

        List<String> events = new ArrayList<>();
        try (EmbeddedServer reopened = EmbeddedServer.builder().dataDir(dir.resolve("data")).build();
             ConnectionPool pool = new ConnectionPool(new TcpConnectionFactory())) {
            RawClient raw = new RawClient(pool);
            for (String name : reopened.segmentStore().segmentNames().stream().sorted().toList()) {
                if (!name.startsWith(STREAM.scopedName() + "/")) {
                    continue;
                }
                long offset = 0;
                long length = reopened.segmentStore().segmentInfo(name).orElseThrow().length();
                while (offset < length) {
                    long at = offset;
                    SegmentRead r = raw.call(reopened.segmentStoreEndpoint(), id -> new ReadSegment(name, at, 1 << 20, "", id),
                            SegmentRead.class, Deadline.after(Duration.ofSeconds(30)));
                    offset += EventFrames.forEach(r.data(), e -> events.add(StandardCharsets.UTF_8.decode(e).toString()));
                }
            }
        }
        assertThat(unacknowledgedAtKills).as("the kills hit writes in flight").isPositive();
        assertThat(acknowledged).as("every write was acknowledged in the end").hasSize(written.get());
        assertThat(events).as("no event twice").doesNotHaveDuplicates();
        assertThat(events).as("every acknowledged event is there").containsAll(acknowledged);
        assertThat(events).hasSize(written.get());
        Map<String, Integer> last = new HashMap<>();
        for (String e : events) {
            String key = e.substring(0, e.indexOf(':'));
            int n = Integer.parseInt(e.substring(e.indexOf(':') + 1));
            assertThat(n).as("order of %s", key).isGreaterThan(last.getOrDefault(key, -1));
            last.put(key, n);
        }
    }
}
