package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.sluice.client.ClientInternals;
import io.sluice.client.SluiceClient;
import io.sluice.common.Deadline;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.RawClient;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.wire.EventFrames;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.SegmentRead;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The embedded server on disk: everything acknowledged survives a restart, through snapshots and logs. */
@Timeout(120)
class DurableServerTest {
    private static final ScopedStream STREAM = ScopedStream.of("durable", "events");

    @TempDir
    Path dir;

    private EmbeddedServer start(long snapshotAfterBytes) {
        return EmbeddedServer.builder().dataDir(dir).snapshotAfterBytes(snapshotAfterBytes).build();
    }

    private static List<String> readAll(EmbeddedServer server) {
        List<String> out = new ArrayList<>();
        try (ConnectionPool pool = new ConnectionPool(new TcpConnectionFactory())) {
            RawClient raw = new RawClient(pool);
            for (String name : server.segmentStore().segmentNames().stream().sorted().toList()) {
                if (!name.startsWith(STREAM.scopedName() + "/")) {
                    continue;
                }
                long offset = 0;
                long length = server.segmentStore().segmentInfo(name).orElseThrow().length();
                while (offset < length) {
                    long at = offset;
                    SegmentRead r = raw.call(server.segmentStoreEndpoint(), id -> new ReadSegment(name, at, 1 << 20, "", id),
                            SegmentRead.class, Deadline.after(Duration.ofSeconds(30)));
                    offset += EventFrames.forEach(r.data(), e -> out.add(StandardCharsets.UTF_8.decode(e).toString()));
                }
            }
        }
        return out;
    }

    private static void write(EmbeddedServer server, int from, int to, boolean create) {
        try (SluiceClient client = SluiceClient.connect(server.controllerUri())) {
            if (create) {
                ClientInternals.controller(client).createScope(STREAM.scope());
                ClientInternals.controller(client).createStream(STREAM, StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(1)).build());
            }
            try (EventStreamWriter<String> w = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
                for (int i = from; i < to; i++) {
                    w.write("k", "event-" + i + "-" + "x".repeat(100));
                }
                w.flush();
            }
        }
    }

    @Test
    void everythingAcknowledgedSurvivesARestart() {
        try (EmbeddedServer server = start(1L << 40)) {
            write(server, 0, 2000, true);
        }
        try (EmbeddedServer server = start(1L << 40)) {
            List<String> events = readAll(server);
            assertThat(events).hasSize(2000);
            assertThat(events.get(1999)).startsWith("event-1999-");
            write(server, 2000, 3000, false);
            assertThat(readAll(server)).hasSize(3000);
        }
    }

    @Test
    void snapshotsMoveDataToChunksAndRecoveryCombinesSnapshotAndLog() throws Exception {
        try (EmbeddedServer server = start(64 * 1024)) {
            write(server, 0, 5000, true);
        }
        try (Stream<Path> files = Files.walk(dir.resolve("chunks"))) {
            assertThat(files.filter(Files::isRegularFile).count()).as("chunk files written by snapshots").isPositive();
        }
        try (EmbeddedServer server = start(64 * 1024)) {
            List<String> events = readAll(server);
            assertThat(events).hasSize(5000);
            for (int i = 0; i < 5000; i++) {
                assertThat(events.get(i)).startsWith("event-" + i + "-");
            }
        }
    }

    @Test
    void aSecondServerCannotOpenTheSameDirectory() {
        try (EmbeddedServer first = start(1L << 40)) {
            assertThatThrownBy(() -> start(1L << 40)).hasMessageContaining("lock");
            assertThat(first.controllerUri()).isNotEmpty();
        }
    }

    @Test
    void containerCountIsPartOfTheLayout() {
        try (EmbeddedServer server = start(1L << 40)) {
            assertThat(server.segmentStore()).isNotNull();
        }
        assertThatThrownBy(() -> EmbeddedServer.builder().dataDir(dir).containers(4).build())
                .hasMessageContaining("containers=1");
    }
}
