package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import io.sluice.common.Deadline;
import io.sluice.common.Json;
import io.sluice.compat.BothServers.Target;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializers;
import io.sluice.stream.WriterConfig;
import io.sluice.wire.Event;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Large events (over 8 MiB: a transient segment, 8 MiB conditional pieces, a merge) against the REAL Pravega 0.13
 * and, for interop with the OFFICIAL client ({@code compat/official-client.sh large-events}, writer with
 * {@code enableLargeEvents}), against Sluice's embedded server too: Sluice writes and the official client reads, and
 * the other way round, every event checked byte for byte and by CRC-32 on both sides. The standalone keeps its data
 * in a 1 GiB heap (in-memory storage), so one 100 MiB event a run is written to it, and every test deletes its
 * streams (and the class its scope) when done: large events left behind fill the standalone's heap.
 */
@CompatTest
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class LargeEventCompatTest {
    private static final int MIB = 1024 * 1024;
    private static final WriterConfig LARGE = WriterConfig.DEFAULT.withLargeEvents(true);
    private static final Duration DRIVER_TIMEOUT = Duration.ofMinutes(4);
    private static final Duration PROCESS_TIMEOUT = DRIVER_TIMEOUT.plusSeconds(60);
    /** The routing key of the driver's events ({@code LargeEventPart.KEY}). */
    private static final String KEY = "large";

    @RegisterExtension
    @Order(1)
    static final RealPravegaScope real = new RealPravegaScope("compat-large");

    @RegisterExtension
    @Order(2) // after the scope it uses
    static final BothServersExtension both = new BothServersExtension(real);

    private static Target target(String name) {
        return both.servers().target(name);
    }

    /** The bytes of the driver's event {@code index} ({@code LargeEventPart.content}): index, size, xorshift64. */
    static byte[] content(int index, int size) {
        byte[] b = new byte[size];
        ByteBuffer.wrap(b).putInt(0, index).putInt(4, size);
        long x = (index + 1) * 0x9E3779B97F4A7C15L;
        for (int i = 8; i < size; i += 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            for (int j = 0; j < 8 && i + j < size; j++) {
                b[i + j] = (byte) (x >>> (8 * j));
            }
        }
        return b;
    }

    static long crc(byte[] b) {
        CRC32 c = new CRC32();
        c.update(b);
        return c.getValue();
    }

    /** Reads {@code count} events from the head of {@code stream} with a new group; nothing may follow them. */
    private static List<byte[]> read(Target t, ScopedStream stream, int count) {
        String group = "rg-" + System.nanoTime();
        t.client().readerGroupManager(t.scope()).createReaderGroup(group, ReaderGroupConfig.builder().stream(stream)
                .disableAutomaticCheckpoints().build()).close();
        List<byte[]> out = new ArrayList<>();
        try (EventStreamReader<byte[]> reader = t.client().newReader(t.scope(), group, "r", Serializers.bytes())) {
            Deadline deadline = Deadline.after(Duration.ofMinutes(3));
            while (out.size() < count && !deadline.expired()) {
                EventRead<byte[]> e = reader.readNextEvent(Duration.ofSeconds(1));
                if (e.event() != null) {
                    out.add(e.event());
                }
            }
            assertThat(reader.readNextEvent(Duration.ofSeconds(1)).event()).as("an event after the expected ones")
                    .isNull();
        }
        return out;
    }

    /** Runs the driver's large-events mode; returns its {@code large-events} part after checking it passed. */
    private static Map<String, Object> driver(Target t, ScopedStream stream, String role, int events, int size)
            throws Exception {
        OfficialClient.Result result = OfficialClient.run("large-" + role + "-" + size + "-" + stream.name(),
                List.of("large-events", "--role", role, "--controller", t.controllerUri(), "--scope", stream.scope(),
                        "--stream", stream.name(), "--events", Integer.toString(events), "--size",
                        Integer.toString(size), "--timeout-seconds", Long.toString(DRIVER_TIMEOUT.toSeconds())),
                PROCESS_TIMEOUT);
        String context = "official client large-events --role " + role + " x " + t.name() + ": "
                + result.describe();
        assertThat(result.exitCode()).as(context).isZero();
        Map<String, Object> json = Json.parseObject(result.json());
        assertThat(json.get("ok")).as(context).isEqualTo(true);
        @SuppressWarnings("unchecked")
        Map<String, Object> part = (Map<String, Object>) json.get("large-events");
        assertThat(part.get("ok")).as(context).isEqualTo(true);
        return part;
    }

    private static List<Long> crcs(Map<String, Object> part) {
        List<?> list = (List<?>) part.get("crc32");
        return list.stream().map(o -> ((Number) o).longValue()).toList();
    }

    @Test
    void sluiceWritesLargeEventsInOrderWithSmallOnesAndReadsThemWholeFromTheRealPravega() {
        Target t = target("real");
        ScopedStream stream = t.createStream("sluice-" + System.nanoTime());
        List<byte[]> written = List.of(new byte[] {1}, content(0, 12 * MIB), new byte[] {2}, content(1, 100 * MIB),
                new byte[] {3});
        try (EventStreamWriter<byte[]> writer = t.client().newWriter(t.scope(), stream.name(), Serializers.bytes(),
                LARGE)) {
            for (byte[] e : written) {
                writer.write(KEY, e);
            }
            writer.flush();
        }
        List<byte[]> read = read(t, stream, written.size());
        assertThat(read).hasSize(written.size());
        for (int i = 0; i < written.size(); i++) {
            assertThat(read.get(i)).as("event %d", i).hasSize(written.get(i).length);
            assertThat(crc(read.get(i))).as("event %d", i).isEqualTo(crc(written.get(i)));
        }
        long length = t.client().streamManager().streamInfo(t.scope(), stream.name()).tail()
                .positions().values().stream().mapToLong(Long::longValue).sum();
        assertThat(length).as("the segment holds exactly the framed events")
                .isEqualTo(written.stream().mapToLong(e -> e.length + Event.HEADER_SIZE).sum());
    }

    @Test
    void aLargeEventToASegmentSealedByAScaleGoesToTheSuccessorOnTheRealPravega() {
        Target t = target("real");
        ScopedStream stream = t.createStream("scaled-" + System.nanoTime());
        byte[] event = content(7, 9 * MIB);
        try (EventStreamWriter<byte[]> writer = t.client().newWriter(t.scope(), stream.name(), Serializers.bytes(),
                LARGE)) {
            writer.writeAndWait(KEY, new byte[] {1});
            SegmentWithRange only = t.client().streamManager().currentSegments(t.scope(), stream.name()).get(0);
            // the writer still routes to the sealed segment: the real server creates the transient segment anyway
            // (it does not check the parent), and the merge fails; the writer follows the scale
            t.client().streamManager().scaleStream(t.scope(), stream.name(), List.of(only.segment()),
                    List.of(new KeyRange(0, 0.5), new KeyRange(0.5, 1)));
            writer.write(KEY, event).await();
            writer.writeAndWait(KEY, new byte[] {2});
        }
        List<byte[]> read = read(t, stream, 3);
        assertThat(read).hasSize(3);
        assertThat(read.get(0)).containsExactly(1);
        assertThat(crc(read.get(1))).isEqualTo(crc(event));
        assertThat(read.get(2)).containsExactly(2);
    }

    @ParameterizedTest(name = "Sluice writes 2 x 12 MiB, the official client reads them, on {0}")
    @ValueSource(strings = {"real", "embedded"})
    void sluiceWritesTheOfficialClientReads(String name) throws Exception {
        sluiceWritesOfficialReads(target(name), 2, 12 * MIB);
    }

    /** 100 MiB on the embedded server only: the real standalone's heap has the other two. */
    @Test
    void sluiceWrites100MiBTheOfficialClientReadsItOnTheEmbeddedServer() throws Exception {
        sluiceWritesOfficialReads(target("embedded"), 1, 100 * MIB);
    }

    private static void sluiceWritesOfficialReads(Target t, int events, int size) throws Exception {
        ScopedStream stream = t.createStream("to-official-" + System.nanoTime());
        List<Long> expected = new ArrayList<>();
        try (EventStreamWriter<byte[]> writer = t.client().newWriter(t.scope(), stream.name(), Serializers.bytes(),
                LARGE)) {
            for (int i = 0; i < events; i++) {
                byte[] e = content(i, size);
                expected.add(crc(e));
                writer.write(KEY, e).await();
            }
        }
        Map<String, Object> part = driver(t, stream, "read", events, size);
        assertThat(((Number) part.get("wrong")).longValue()).isZero();
        assertThat(crcs(part)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "the official client writes 2 x 12 MiB, Sluice reads them, on {0}")
    @ValueSource(strings = {"real", "embedded"})
    void theOfficialClientWritesSluiceReads(String name) throws Exception {
        officialWritesSluiceReads(target(name), 2, 12 * MIB);
    }

    /** 100 MiB on the embedded server only: the real standalone has the Sluice writer's. */
    @Test
    void theOfficialClientWrites100MiBSluiceReadsItOnTheEmbeddedServer() throws Exception {
        officialWritesSluiceReads(target("embedded"), 1, 100 * MIB);
    }

    private static void officialWritesSluiceReads(Target t, int events, int size) throws Exception {
        ScopedStream stream = t.createStream("from-official-" + System.nanoTime());
        Map<String, Object> part = driver(t, stream, "write", events, size);
        List<byte[]> read = read(t, stream, events);
        assertThat(read).hasSize(events);
        List<Long> seen = new ArrayList<>();
        for (int i = 0; i < events; i++) {
            byte[] e = read.get(i);
            seen.add(crc(e));
            assertThat(e).as("event %d", i).hasSize(size);
            assertThat(ByteBuffer.wrap(e)).as("event %d", i).isEqualTo(ByteBuffer.wrap(content(i, size)));
        }
        assertThat(seen).isEqualTo(crcs(part));
    }
}
