package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.admin.ReaderGroup;
import io.sluice.client.SluiceClient;
import io.sluice.common.Deadline;
import io.sluice.common.Json;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;

/**
 * Auto-scaling driven by the OFFICIAL Pravega 0.13 client ({@code compat/official-client.sh autoscale}), against
 * Sluice's embedded server with a 2-second scale window and against the real Pravega 0.13 standalone as the
 * reference: the official writer's traffic over the event-rate target splits the stream into its scale factor's two
 * segments on both, the writer follows into them, and Sluice reads every event once in per-key order. On the embedded
 * server the idle stream then merges back into one segment.
 *
 * <p>The real standalone's auto-scaler reports a segment's rates at most every 2 minutes and needs its 2-minute rate
 * over 5 × target with the segment older than 2 minutes, so its split comes about 2 minutes after the writes start;
 * {@code compat/pravega-standalone.sh} shortens only its cool-down and mute periods (10 minutes by default, which
 * would hold any split back that long). Its merge needs the 20-minute rate below half the target, so it is not
 * waited for there.
 */
@CompatTest
@Timeout(value = 12, unit = TimeUnit.MINUTES)
class AutoScaleCompatTest {
    private static final Duration DRIVER_TIMEOUT = Duration.ofMinutes(6);
    private static final String SCOPE = "compat-autoscale";
    private static final int KEYS = 16;
    private static final int EXTRA_ROUNDS = 20;

    private static EmbeddedServer server;

    @BeforeAll
    static void start() throws Exception {
        OfficialClient.build();
        server = EmbeddedServer.builder().inMemory().scaleWindow(Duration.ofSeconds(2)).build();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static List<SegmentWithRange> segments(SluiceClient client, ScopedStream stream) {
        return client.streamManager().currentSegments(stream.scope(), stream.name());
    }

    private static void awaitCondition(String what, BooleanSupplier condition) {
        Deadline deadline = Deadline.after(Duration.ofSeconds(60));
        while (!condition.getAsBoolean()) {
            assertThat(deadline.expired()).as("waiting for %s", what).isFalse();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    @Test
    void theOfficialWritersTrafficSplitsTheStreamAndIdleItMergesBack() throws Exception {
        ScopedStream stream = ScopedStream.of(SCOPE, "hot");
        try (SluiceClient client = SluiceClient.connect(server.controllerUri())) {
            int rounds = officialWriterSplits(client, server.controllerUri(), stream, "embedded");
            // idle now: both halves report cold and merge back
            awaitCondition("the merge", () -> segments(client, stream).size() == 1);
            assertThat(segments(client, stream).get(0).low()).isEqualTo(0.0);
            assertThat(segments(client, stream).get(0).high()).isEqualTo(1.0);
            readBackInOrder(client, stream, rounds);
        }
    }

    @Test
    void theRealStandaloneSplitsTheSameTrafficAsTheReference() throws Exception {
        ScopedStream stream = ScopedStream.of(SCOPE, "hot" + Long.toHexString(System.nanoTime()));
        String controller = RealPravega.controllerUri().toString();
        try (SluiceClient client = SluiceClient.connect(controller)) {
            int rounds = officialWriterSplits(client, controller, stream, "real");
            readBackInOrder(client, stream, rounds);
        }
    }

    /**
     * Creates {@code stream} scaled by event rate (target 20 events/s, factor 2, at least 1 segment) and runs the
     * official driver's {@code autoscale} mode on it, which writes over the target until the stream splits.
     *
     * @return the rounds of {@link #KEYS} events the official client wrote
     */
    private static int officialWriterSplits(SluiceClient client, String controller, ScopedStream stream, String cell)
            throws java.io.IOException, InterruptedException {
        client.streamManager().createScope(stream.scope());
        assertThat(client.streamManager().createStream(stream.scope(), stream.name(), StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.byEventRate(20, 2, 1)).build())).isTrue();
        OfficialClient.Result result = OfficialClient.run("autoscale-" + cell, List.of("autoscale",
                "--controller", controller, "--scope", stream.scope(), "--stream", stream.name(),
                "--events", Integer.toString(EXTRA_ROUNDS),
                "--timeout-seconds", Long.toString(DRIVER_TIMEOUT.toSeconds())), DRIVER_TIMEOUT.plusSeconds(60));
        String context = "official client autoscale x " + cell + ": " + result.describe();
        assertThat(result.exitCode()).as(context).isZero();
        Map<String, Object> json = Json.parseObject(result.json());
        @SuppressWarnings("unchecked")
        Map<String, Object> part = (Map<String, Object>) json.get("autoscale");
        assertThat(part.get("ok")).as(context).isEqualTo(true);
        assertThat(((Number) part.get("segments_before")).intValue()).as(context).isEqualTo(1);
        assertThat(((Number) part.get("segments_after")).intValue()).as(context).isEqualTo(2);
        return ((Number) part.get("rounds")).intValue();
    }

    /** Seals {@code stream} and reads it whole with Sluice: every event once, each key's events in order. */
    private static void readBackInOrder(SluiceClient client, ScopedStream stream, int rounds) {
        client.streamManager().sealStream(stream.scope(), stream.name());
        Map<String, Integer> last = new HashMap<>();
        int read = 0;
        String group = "g" + stream.name();
        try (ReaderGroup g = client.readerGroupManager(stream.scope()).createReaderGroup(group,
                ReaderGroupConfig.builder().stream(stream).groupRefreshTimeMillis(100).build());
             EventStreamReader<String> reader = client.newReader(stream.scope(), group, "r", Serializers.utf8())) {
            Deadline deadline = Deadline.after(Duration.ofSeconds(90));
            while (true) {
                assertThat(deadline.expired()).as("read everything in time (%s read)", read).isFalse();
                EventRead<String> e = reader.readNextEvent(Duration.ofMillis(200));
                if (e.readCompleted()) {
                    break;
                }
                if (e.event() == null) {
                    continue;
                }
                read++;
                String[] p = e.event().split(":");
                assertThat(p[0]).isEqualTo("official");
                int n = Integer.parseInt(p[2]);
                assertThat(n).as("order of %s", p[1]).isEqualTo(last.getOrDefault(p[1], -1) + 1);
                last.put(p[1], n);
            }
        }
        assertThat(read).isEqualTo(rounds * KEYS);
        assertThat(last).hasSize(KEYS).allSatisfy((k, n) -> assertThat(n).isEqualTo(rounds - 1));
    }
}
