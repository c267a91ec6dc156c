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
 * Auto-scaling driven by the OFFICIAL Pravega 0.13 client ({@code compat/official-client.sh autoscale}) against
 * Sluice's embedded server with a 2-second scale window: the official writer's traffic over the event-rate target
 * splits the stream into its scale factor's two segments, the writer follows into them, Sluice reads every event once
 * in per-key order, and the idle stream merges back into one segment.
 *
 * <p>The real Pravega 0.13 standalone is not a reference here: its auto-scaler's windows are fixed (cool-down and
 * mute 10 minutes, rates over 2 to 20 minutes; {@code autoScale.*} settings in its config), and the standalone the
 * compat suite shares runs with the defaults, so a split there would take over 10 minutes of traffic.
 */
@CompatTest
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class AutoScaleCompatTest {
    private static final Duration DRIVER_TIMEOUT = Duration.ofMinutes(3);
    private static final ScopedStream STREAM = ScopedStream.of("compat-autoscale", "hot");
    private static final int KEYS = 16;
    private static final int EXTRA_ROUNDS = 20;

    private static EmbeddedServer server;
    private static SluiceClient client;

    @BeforeAll
    static void start() throws Exception {
        OfficialClient.build();
        server = EmbeddedServer.builder().inMemory().scaleWindow(Duration.ofSeconds(2)).build();
        client = SluiceClient.connect(server.controllerUri());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static List<SegmentWithRange> segments() {
        return client.streamManager().currentSegments(STREAM.scope(), STREAM.name());
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
        client.streamManager().createScope(STREAM.scope());
        client.streamManager().createStream(STREAM.scope(), STREAM.name(), StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.byEventRate(20, 2, 1)).build());
        OfficialClient.Result result = OfficialClient.run("autoscale-embedded", List.of("autoscale",
                "--controller", server.controllerUri(), "--scope", STREAM.scope(), "--stream", STREAM.name(),
                "--events", Integer.toString(EXTRA_ROUNDS),
                "--timeout-seconds", Long.toString(DRIVER_TIMEOUT.toSeconds())), DRIVER_TIMEOUT.plusSeconds(60));
        String context = "official client autoscale x embedded: " + result.describe();
        assertThat(result.exitCode()).as(context).isZero();
        Map<String, Object> json = Json.parseObject(result.json());
        @SuppressWarnings("unchecked")
        Map<String, Object> part = (Map<String, Object>) json.get("autoscale");
        assertThat(part.get("ok")).as(context).isEqualTo(true);
        assertThat(((Number) part.get("segments_before")).intValue()).as(context).isEqualTo(1);
        assertThat(((Number) part.get("segments_after")).intValue()).as(context).isEqualTo(2);
        int rounds = ((Number) part.get("rounds")).intValue();

        // idle now: both halves report cold and merge back
        awaitCondition("the merge", () -> segments().size() == 1);
        assertThat(segments().get(0).low()).isEqualTo(0.0);
        assertThat(segments().get(0).high()).isEqualTo(1.0);
        client.streamManager().sealStream(STREAM.scope(), STREAM.name());

        Map<String, Integer> last = new HashMap<>();
        int read = 0;
        try (ReaderGroup group = client.readerGroupManager(STREAM.scope()).createReaderGroup("g",
                ReaderGroupConfig.builder().stream(STREAM).groupRefreshTimeMillis(100).build());
             EventStreamReader<String> reader = client.newReader(STREAM.scope(), "g", "r", Serializers.utf8())) {
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
