package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.sluice.client.SluiceClient;
import io.sluice.common.Deadline;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.TimeWindow;

/**
 * Watermarks across clients, on the real Pravega 0.13 (watermarks every 10 s) and on the embedded server (every
 * 200 ms): the official writer's noted times give Sluice's reader its time window, and a Sluice writer's noted times
 * give the official reader its {@code getCurrentTimeWindow} (driver mode {@code watermarks}, see WatermarkPart).
 */
@CompatTest
@Timeout(400)
class WatermarkInteropCompatTest {
    private static final int EVENTS = 30;
    private static final Duration DRIVER_TIMEOUT = Duration.ofSeconds(120);

    /** A server to test against: the real one, or an embedded one started for the test. */
    record Target(String name, boolean embedded) {
        @Override
        public String toString() {
            return name;
        }

        String slug() {
            return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
        }
    }

    static Stream<Target> targets() {
        return Stream.of(new Target("real Pravega 0.13", false), new Target("Sluice embedded server", true));
    }

    @BeforeAll
    static void buildDriver() throws Exception {
        OfficialClient.build();
    }

    /** Runs {@code body} with a client of the target's server (started for embedded targets). */
    private static void withServer(Target target, ServerBody body) throws Exception {
        EmbeddedServer server = target.embedded()
                ? EmbeddedServer.builder().inMemory().watermarkInterval(Duration.ofMillis(200)).build() : null;
        String uri = server != null ? server.controllerUri() : RealPravega.controllerUri().toString();
        try (SluiceClient client = SluiceClient.connect(uri)) {
            String scope = "wm-" + UUID.randomUUID().toString().substring(0, 8);
            client.streamManager().createScope(scope);
            client.streamManager().createStream(scope, "s", StreamConfiguration.builder()
                    .scalingPolicy(ScalingPolicy.fixed(2)).build());
            body.run(client, uri, ScopedStream.of(scope, "s"));
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    @FunctionalInterface
    interface ServerBody {
        void run(SluiceClient client, String uri, ScopedStream stream) throws Exception;
    }

    private static OfficialClient.Result driver(Target target, String role, String uri, ScopedStream stream)
            throws Exception {
        return OfficialClient.run("watermarks-" + role + "-" + target.slug(), List.of("watermarks", "--role", role,
                "--controller", uri, "--scope", stream.scope(), "--stream", stream.name(),
                "--events", Integer.toString(EVENTS), "--timeout-seconds", Long.toString(DRIVER_TIMEOUT.toSeconds())),
                DRIVER_TIMEOUT.plusSeconds(60));
    }

    private static TimeWindow awaitWindow(EventStreamReader<String> r, Predicate<TimeWindow> wanted) {
        Deadline deadline = Deadline.after(Duration.ofSeconds(60));
        TimeWindow w = r.currentTimeWindow();
        while (!wanted.test(w)) {
            assertThat(deadline.expired()).as("time window %s as wanted in time", w).isFalse();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            w = r.currentTimeWindow();
        }
        return w;
    }

    @ParameterizedTest(name = "official writer -> Sluice reader x {0}")
    @MethodSource("targets")
    void officialWritersWatermarksGiveSluicesReaderItsWindow(Target target) throws Exception {
        withServer(target, (client, uri, stream) -> {
            OfficialClient.Result wrote = driver(target, "write", uri, stream);
            assertThat(wrote.exitCode()).as("official writer: %s", wrote.describe()).isZero();
            client.readerGroupManager(stream.scope()).createReaderGroup("g", ReaderGroupConfig.builder()
                    .stream(stream).groupRefreshTimeMillis(100).disableAutomaticCheckpoints().build());
            try (EventStreamReader<String> r = client.newReader(stream.scope(), "g", "r1", Serializers.utf8())) {
                TimeWindow before = awaitWindow(r, w -> w.upperTimeBound() != null);
                assertThat(before.lowerTimeBound()).as("nothing read yet: %s", before).isNull();
                assertThat(before.upperTimeBound()).isIn(1000L, 2000L, 3000L);
                Deadline deadline = Deadline.after(Duration.ofSeconds(30));
                int read = 0;
                while (read < EVENTS) {
                    assertThat(deadline.expired()).as("read %s of %s events in time", read, EVENTS).isFalse();
                    EventRead<String> e = r.readNextEvent(Duration.ofMillis(200));
                    if (e.event() != null) {
                        assertThat(e.event()).startsWith("official:");
                        read++;
                    }
                }
                assertThat(awaitWindow(r, w -> Long.valueOf(3000).equals(w.lowerTimeBound())))
                        .isEqualTo(new TimeWindow(3000L, null));
            }
        });
    }

    @ParameterizedTest(name = "Sluice writer -> official reader x {0}")
    @MethodSource("targets")
    void sluiceWritersWatermarksGiveTheOfficialReaderItsWindow(Target target) throws Exception {
        withServer(target, (client, uri, stream) -> {
            try (EventStreamWriter<String> w = client.newWriter(stream.scope(), stream.name(), Serializers.utf8())) {
                int written = 0;
                for (long t = 1000; t <= 3000; t += 1000) {
                    for (int i = 0; i < EVENTS / 3; i++) {
                        w.write("k" + (written % 7), "sluice:" + written++);
                    }
                    w.flush();
                    w.noteTime(t);
                }
            }
            OfficialClient.Result read = driver(target, "read", uri, stream);
            String json = read.json();
            assertThat(read.exitCode()).as("official reader: %s", read.describe()).isZero();
            assertThat(json).as("official reader: %s", read.describe()).contains("\"read\":" + EVENTS)
                    .contains("\"after\":[3000,null]");
        });
    }
}
