package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import io.sluice.batch.BatchClient;
import io.sluice.batch.BatchReads;
import io.sluice.batch.SegmentRange;
import io.sluice.common.Json;
import io.sluice.compat.BothServers.Target;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.StreamCut;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Batch reads shared with the OFFICIAL Pravega 0.13 client, on the real Pravega 0.13 and on Sluice's embedded server:
 * the official {@code BatchClientFactory} ({@code compat/official-client.sh batch-read}) reads what Sluice wrote
 * across four segments and a scale, and Sluice's {@link BatchClient} reads what the official writer wrote
 * ({@code compat/official-client.sh route}) across four segments and a scale; every event exactly once. And large
 * events (3 of 12 MiB among small ones) written by Sluice, read whole and in order by both batch clients.
 */
@CompatTest
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class BatchClientInteropCompatTest {
    private static final Duration DRIVER_TIMEOUT = Duration.ofMinutes(3);
    /** Prefix of the events the official client writes in mode {@code route}. */
    private static final String OFFICIAL = "official:";

    @RegisterExtension
    @Order(1)
    static final RealPravegaScope real = new RealPravegaScope("compat-batch-interop");

    @RegisterExtension
    @Order(2) // after the scope it uses
    static final BothServersExtension both = new BothServersExtension(real);

    /** Seals the stream's four segments and splits its key space into five (a fixed policy allows no fewer). */
    private static void scale(Target t, ScopedStream s) {
        List<Segment> old = t.client().streamManager().currentSegments(s.scope(), s.name()).stream()
                .map(r -> r.segment()).toList();
        t.client().streamManager().scaleStream(s.scope(), s.name(), old,
                List.of(new KeyRange(0.0, 0.1), new KeyRange(0.1, 0.3), new KeyRange(0.3, 0.6),
                        new KeyRange(0.6, 0.8), new KeyRange(0.8, 1.0)));
    }

    private static Map<String, Object> part(OfficialClient.Result result, String name, String context)
            throws Exception {
        assertThat(result.exitCode()).as(context).isZero();
        Map<String, Object> json = Json.parseObject(result.json());
        assertThat(json.get("ok")).as(context).isEqualTo(true);
        @SuppressWarnings("unchecked")
        Map<String, Object> part = (Map<String, Object>) json.get(name);
        assertThat(part.get("ok")).as(context).isEqualTo(true);
        return part;
    }

    /** Runs the driver's {@code batch-read} on {@code s}; @return its part of the JSON, checked to be ok. */
    private static Map<String, Object> officialBatchRead(Target t, ScopedStream s) throws Exception {
        OfficialClient.Result result = OfficialClient.run("batch-read-" + s.name(), List.of("batch-read",
                "--controller", t.controllerUri(), "--scope", s.scope(), "--stream", s.name(),
                "--timeout-seconds", Long.toString(DRIVER_TIMEOUT.toSeconds())), DRIVER_TIMEOUT.plusSeconds(60));
        return part(result, "batch-read", "official client batch-read x " + t.name() + ": " + result.describe());
    }

    /** An event as the driver's batch-read reports it ({@code BatchInteropPart.describe}). */
    private static String describe(byte[] event) {
        if (event.length <= 1024) {
            return new String(event, StandardCharsets.UTF_8);
        }
        CRC32 crc = new CRC32();
        crc.update(event);
        return "<" + event.length + " bytes, crc32 " + crc.getValue() + ">";
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"real", "embedded"})
    void theOfficialBatchClientReadsWhatSluiceWroteAcrossAScale(String server) throws Exception {
        Target t = both.servers().target(server);
        ScopedStream s = t.createStream("to-official-" + System.nanoTime(), 4);
        BatchReads.write(t.client(), s, 0, 300);
        scale(t, s);
        BatchReads.write(t.client(), s, 300, 600);

        Map<String, Object> part = officialBatchRead(t, s);
        String context = "official client batch-read x " + t.name() + ": " + part;
        assertThat(((Number) part.get("ranges")).intValue()).as(context).isEqualTo(4 + 5);
        assertThat(((Number) part.get("read")).intValue()).as(context).isEqualTo(600);
        assertThat(part.get("events")).as(context).isEqualTo(BatchReads.events(0, 600));

        // and Sluice's batch client reads the same ranges
        assertThat(BatchReads.readParallel(t.client().batchClient(), t.client().batchClient().segments(s,
                StreamCut.UNBOUNDED, StreamCut.UNBOUNDED), real.threads)).isEqualTo(BatchReads.events(0, 600));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"real", "embedded"})
    void sluicesBatchClientReadsWhatTheOfficialWriterWroteAcrossAScale(String server) throws Exception {
        Target t = both.servers().target(server);
        ScopedStream s = t.createStream("from-official-" + System.nanoTime(), 4);
        int keys = 200;
        List<String> hexKeys = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            hexKeys.add(HexFormat.of().formatHex(("key-" + i).getBytes(StandardCharsets.UTF_16BE)));
        }
        Path keysFile = Files.createTempFile("batch-keys", ".txt");
        StreamCut beforeScale;
        try {
            Files.write(keysFile, hexKeys, StandardCharsets.US_ASCII);
            route(t, s, keysFile, "1");
            beforeScale = t.client().streamManager().streamInfo(s.scope(), s.name()).tail();
            scale(t, s);
            route(t, s, keysFile, "2");
        } finally {
            Files.delete(keysFile);
        }
        List<String> once = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            once.add(OFFICIAL + i);
        }
        Collections.sort(once);
        List<String> twice = new ArrayList<>(once);
        twice.addAll(once);
        Collections.sort(twice);

        BatchClient batch = t.client().batchClient();
        List<SegmentRange> all = batch.segments(s, StreamCut.UNBOUNDED, StreamCut.UNBOUNDED);
        assertThat(all).hasSize(4 + 5);
        assertThat(BatchReads.readParallel(batch, all, real.threads)).isEqualTo(twice);
        // each round exactly once: before the scale in the first four segments, after it in the five new ones
        List<SegmentRange> first = batch.segments(s, StreamCut.UNBOUNDED, beforeScale);
        assertThat(first).hasSize(4);
        assertThat(first.stream().filter(r -> r.length() > 0).count()).as("segments the first round landed in")
                .isGreaterThan(1);
        assertThat(BatchReads.readParallel(batch, first, real.threads)).isEqualTo(once);
        List<SegmentRange> second = batch.segments(s, beforeScale, StreamCut.UNBOUNDED);
        assertThat(BatchReads.readParallel(batch, second, real.threads)).isEqualTo(once);
    }

    private static void route(Target t, ScopedStream s, Path keysFile, String round) throws Exception {
        OfficialClient.Result result = OfficialClient.run("batch-route-" + round + "-" + s.name(), List.of("route",
                "--controller", t.controllerUri(), "--scope", s.scope(), "--stream", s.name(), "--keys-file",
                keysFile.toString(), "--timeout-seconds", Long.toString(DRIVER_TIMEOUT.toSeconds())),
                DRIVER_TIMEOUT.plusSeconds(60));
        part(result, "route", "official client route (round " + round + ") x " + t.name() + ": "
                + result.describe());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"real", "embedded"})
    void largeEventsAmongSmallOnesComeBackWholeAndInOrderThroughBothBatchClients(String server) throws Exception {
        Target t = both.servers().target(server);
        ScopedStream s = t.createStream("large-" + System.nanoTime());
        List<byte[]> events = BatchReads.largeAmongSmall(3, 12 * 1024 * 1024);
        BatchReads.writeLarge(t.client(), s, events);
        BatchReads.assertReadsLarge(t.client().batchClient(), s, events);

        Map<String, Object> part = officialBatchRead(t, s);
        assertThat(part.get("by_range")).as("official client batch-read x %s: %s", t.name(), part)
                .isEqualTo(List.of(events.stream().map(BatchClientInteropCompatTest::describe).toList()));
    }
}
