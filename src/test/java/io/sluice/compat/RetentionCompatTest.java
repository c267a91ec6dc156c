package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.admin.ReaderGroup;
import io.sluice.client.SluiceClient;
import io.sluice.common.Json;
import io.sluice.server.EmbeddedServer;
import io.sluice.controller.ControllerClientConfig;
import io.sluice.controller.GrpcControllerClient;
import io.sluice.stream.Checkpoint;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ReaderGroupConfig.StreamDataRetention;
import io.sluice.stream.RetentionPolicy;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.StreamCut;

/**
 * The client side of consumption-based retention against the REAL Pravega 0.13 controller: groups with a retention
 * type become subscribers on creation, {@code updateRetentionStreamCut} reports a manual group's cut (which the real
 * controller then holds it to: a cut behind it is refused), and a group with automatic release reports the cut of
 * each completed checkpoint; and, as the reference for the embedded server's consumption-based retention, the real
 * controller truncating a size-retained stream no further than its group released (compat/pravega-standalone.sh
 * runs the standalone's retention pass every minute instead of every 30; streams of the other tests keep at least
 * 1 GiB, so no pass truncates them). And the official client's group with manual release (driver mode
 * {@code retention}, RetentionInteropPart) on both servers: the embedded server, passing every 200 ms once the group
 * has subscribed, truncates at the released cut; the real one accepts the release.
 */
@CompatTest
@Timeout(480)
class RetentionCompatTest {
    private static final String PAD = "p".repeat(92);
    private static final long FRAMED = 8 + 96;
    /** What the streams of the client-side tests keep: far more than they hold, so no retention pass cuts them. */
    private static final long KEEP = 1L << 30;

    @RegisterExtension
    static final RealPravegaScope real = new RealPravegaScope("compat-retention");

    private static GrpcControllerClient controller;

    private static final Duration DRIVER_TIMEOUT = Duration.ofSeconds(90);

    @BeforeAll
    static void connect() throws Exception {
        OfficialClient.build();
        controller = GrpcControllerClient.create(ControllerClientConfig.builder(RealPravega.controllerUri().toString())
                .operationTimeout(Duration.ofSeconds(90)).build());
    }

    @AfterAll
    static void disconnect() {
        if (controller != null) {
            controller.close();
        }
    }

    private static ScopedStream stream(String name, int events) {
        assertThat(real.streams.createStream(real.scope, name, StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(1)).retentionPolicy(RetentionPolicy.bySizeBytes(KEEP)).build()))
                .isTrue();
        try (EventStreamWriter<String> w = real.client.newWriter(real.scope, name, Serializers.utf8())) {
            for (int i = 0; i < events; i++) {
                w.write("k", String.format("e%03d", i) + PAD);
            }
            w.flush();
        }
        return ScopedStream.of(real.scope, name);
    }

    private static ReaderGroup group(String name, ScopedStream stream, StreamDataRetention retention) {
        return real.client.readerGroupManager(real.scope).createReaderGroup(name, ReaderGroupConfig.builder()
                .stream(stream).groupRefreshTimeMillis(200).disableAutomaticCheckpoints().retentionType(retention)
                .build());
    }

    private static StreamCut after(ScopedStream stream, int events) {
        return StreamCut.of(stream, Map.of(0L, events * FRAMED));
    }

    @Test
    void manualReleaseReportsTheCutAndTheRealControllerHoldsTheGroupToIt() {
        ScopedStream s = stream("manual", 10);
        try (ReaderGroup manual = group("m", s, StreamDataRetention.MANUAL_RELEASE_AT_USER_STREAMCUT);
             ReaderGroup none = group("n", s, StreamDataRetention.NONE)) {
            assertThat(controller.listSubscribers(s)).containsExactly(real.scope + "/m");
            manual.updateRetentionStreamCut(Map.of(s, after(s, 5)));
            manual.updateRetentionStreamCut(Map.of(s, after(s, 7)));
            assertThatThrownBy(() -> manual.updateRetentionStreamCut(Map.of(s, after(s, 6))))
                    .as("the real controller refuses a cut behind the last one").isInstanceOf(
                            IllegalArgumentException.class);
            assertThatThrownBy(() -> none.updateRetentionStreamCut(Map.of(s, after(s, 6))))
                    .isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Test
    void automaticReleaseReportsTheCompletedCheckpoint() throws Exception {
        ScopedStream s = stream("auto", 4);
        try (ReaderGroup g = group("a", s, StreamDataRetention.AUTOMATIC_RELEASE_AT_LAST_CHECKPOINT);
             EventStreamReader<String> r = real.client.newReader(real.scope, "a", "r", Serializers.utf8())) {
            assertThat(controller.listSubscribers(s)).containsExactly(real.scope + "/a");
            for (int i = 0; i < 4; i++) {
                assertThat(r.readNextEvent(Duration.ofSeconds(30)).event()).startsWith(String.format("e%03d", i));
            }
            Future<Checkpoint> cp = real.threads.submit(() -> g.initiateCheckpoint("cp1", Duration.ofSeconds(60)));
            EventRead<String> e;
            do {
                e = r.readNextEvent(Duration.ofMillis(500));
                assertThat(e.event()).isNull();
            } while (!e.isCheckpoint());
            assertThat(r.readNextEvent(Duration.ofMillis(500)).event()).as("passes the checkpoint").isNull();
            assertThat(cp.get().positions().get(s)).isEqualTo(after(s, 4));
            ReaderGroupConfig config = controller.readerGroupConfig(real.scope, "a");
            // the reader reported after(4) when it completed the checkpoint: the real controller now refuses less
            assertThatThrownBy(() -> controller.updateSubscriberStreamCut(s, real.scope + "/a",
                    config.readerGroupId(), config.generation(), after(s, 2)))
                    .isInstanceOf(IllegalArgumentException.class);
            controller.updateSubscriberStreamCut(s, real.scope + "/a", config.readerGroupId(), config.generation(),
                    after(s, 4));
        }
    }

    private static void writeEvents(SluiceClient client, ScopedStream s, int events) {
        try (EventStreamWriter<String> w = client.newWriter(s.scope(), s.name(), Serializers.utf8())) {
            for (int i = 0; i < events; i++) {
                w.write("k", String.format("e%03d", i) + PAD);
            }
            w.flush();
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> officialRelease(String name, String uri, ScopedStream s, int events)
            throws Exception {
        OfficialClient.Result result = OfficialClient.run("retention-" + name, List.of("retention",
                "--controller", uri, "--scope", s.scope(), "--stream", s.name(), "--events", Integer.toString(events),
                "--timeout-seconds", Long.toString(DRIVER_TIMEOUT.toSeconds())), DRIVER_TIMEOUT.plusSeconds(60));
        String context = "official client retention x " + name + ": " + result.describe();
        assertThat(result.exitCode()).as(context).isZero();
        Map<String, Object> json = Json.parseObject(result.json());
        Map<String, Object> part = (Map<String, Object>) json.get("retention");
        assertThat(part.get("ok")).as(context).isEqualTo(true);
        assertThat(((Number) ((Map<String, Object>) part.get("released")).get("0")).longValue()).as(context)
                .isEqualTo(events * FRAMED);
        return part;
    }

    @Test
    @SuppressWarnings("unchecked")
    void theOfficialClientsManualReleaseMakesTheEmbeddedServerTruncate() throws Exception {
        // the retention timer is off: with bySizeBytes(0) and no subscriber yet a pass would truncate everything
        // before the official group exists, so passes run (every 200 ms) only once it has subscribed
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().retentionInterval(Duration.ZERO).build();
             SluiceClient client = SluiceClient.connect(server.controllerUri());
             GrpcControllerClient embedded = GrpcControllerClient.create(
                     ControllerClientConfig.builder(server.controllerUri()).build())) {
            ScopedStream s = ScopedStream.of("ret-official", "s");
            client.streamManager().createScope(s.scope());
            client.streamManager().createStream(s.scope(), s.name(), StreamConfiguration.builder()
                    .scalingPolicy(ScalingPolicy.fixed(1)).retentionPolicy(RetentionPolicy.bySizeBytes(0)).build());
            writeEvents(client, s, 10);
            AtomicBoolean done = new AtomicBoolean();
            Thread passes = Thread.ofVirtual().start(() -> {
                while (!done.get()) {
                    if (!embedded.listSubscribers(s).isEmpty()) {
                        server.controllerService().enforceRetention();
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
                }
            });
            Map<String, Object> part;
            try {
                part = officialRelease("embedded", server.controllerUri(), s, 6);
            } finally {
                done.set(true);
                passes.join();
            }
            assertThat(part.get("truncated")).as("%s", part).isEqualTo(true);
            assertThat(((Number) ((Map<String, Object>) part.get("head_after")).get("0")).longValue())
                    .isEqualTo(6 * FRAMED);
            assertThat(client.streamManager().streamInfo(s.scope(), s.name()).head())
                    .isEqualTo(StreamCut.of(s, Map.of(0L, 6 * FRAMED)));
        }
    }

    @Test
    void theRealControllerAcceptsTheOfficialClientsManualRelease() throws Exception {
        ScopedStream s = stream("official", 10);
        Map<String, Object> part = officialRelease("real", RealPravega.controllerUri().toString(), s, 6);
        assertThat(part.get("truncated")).as("the stream keeps at least 1 GiB: %s", part).isEqualTo(false);
    }

    @Test
    void theRealControllerTruncatesNoFurtherThanTheGroupReleasedAsTheReference() {
        assertThat(real.streams.createStream(real.scope, "released", StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(1)).retentionPolicy(RetentionPolicy.bySizeBytes(0)).build()))
                .isTrue();
        ScopedStream s = ScopedStream.of(real.scope, "released");
        // subscribed before anything is written: a pass before the release finds nothing it may cut
        try (ReaderGroup g = group("rel", s, StreamDataRetention.MANUAL_RELEASE_AT_USER_STREAMCUT)) {
            writeEvents(real.client, s, 10);
            g.updateRetentionStreamCut(Map.of(s, after(s, 6)));
            // the standalone's pass runs every minute; it may need two to have a reference record of the tail
            io.sluice.common.Deadline deadline = io.sluice.common.Deadline.after(Duration.ofMinutes(5));
            long head = 0;
            while (head == 0) {
                assertThat(deadline.expired()).as("the real controller truncated within 5 minutes").isFalse();
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
                head = real.streams.streamInfo(s.scope(), s.name()).head().offsetsBySegmentId().getOrDefault(0L, 0L);
            }
            assertThat(head).as("no further than the group released").isLessThanOrEqualTo(6 * FRAMED);
            assertThat(head % FRAMED).as("on an event boundary").isZero();
        }
    }
}
