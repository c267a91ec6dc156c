package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.sluice.bytestream.ByteStreamReader;
import io.sluice.bytestream.ByteStreamWriter;
import io.sluice.common.Json;
import io.sluice.compat.BothServers.Target;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.stream.ScopedStream;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Byte streams against the REAL Pravega 0.13, and interop with the OFFICIAL client's {@code ByteStreamWriter} and
 * {@code ByteStreamReader} ({@code compat/official-client.sh bytestream-interop}) both ways, on the real server and
 * on Sluice's embedded server: the same bytes, compared byte for byte and by CRC-32, and the seal seen by the reader.
 */
@CompatTest
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ByteStreamCompatTest {
    private static final int MIB = 1024 * 1024;
    /** Over 8 MiB, so the writers cut one write into pieces. */
    private static final int SIZE = 12 * MIB + 12_345;
    private static final Duration DRIVER_TIMEOUT = Duration.ofMinutes(3);

    @RegisterExtension
    @Order(1)
    static final RealPravegaScope real = new RealPravegaScope("compat-bytes");

    @RegisterExtension
    @Order(2) // after the scope it uses
    static final BothServersExtension both = new BothServersExtension(real);

    private static Target target(String name) {
        return both.servers().target(name);
    }

    /** The driver's bytes ({@code ByteStreamInteropPart.content}). */
    private static byte[] content(int size) {
        return LargeEventCompatTest.content(0, size);
    }

    private static byte[] readFully(ByteStreamReader in, int n) {
        byte[] b = new byte[n];
        int done = 0;
        while (done < n) {
            int k = in.read(b, done, n - done);
            assertThat(k).as("read at %d of %d", done, n).isPositive();
            done += k;
        }
        return b;
    }

    /** Sluice's writes: the driver's write sizes in turn ({@code ByteStreamInteropPart.WRITES}). */
    private static void writeInPieces(ByteStreamWriter out, byte[] data) {
        int[] writes = {1, 1000, 4096, 65_536, 7, 9 * MIB, 100_000, 3};
        int pos = 0;
        for (int c = 0; pos < data.length; c++) {
            int len = Math.min(writes[c % writes.length], data.length - pos);
            out.write(data, pos, len);
            pos += len;
        }
    }

    private static Map<String, Object> driver(Target t, ScopedStream stream, String role) throws Exception {
        OfficialClient.Result result = OfficialClient.run("bytes-" + role + "-" + stream.name(),
                List.of("bytestream-interop", "--role", role, "--controller", t.controllerUri(), "--scope",
                        stream.scope(), "--stream", stream.name(), "--size", Integer.toString(SIZE),
                        "--timeout-seconds", Long.toString(DRIVER_TIMEOUT.toSeconds())),
                DRIVER_TIMEOUT.plusSeconds(60));
        String context = "official client bytestream-interop --role " + role + " x " + t.name() + ": "
                + result.describe();
        assertThat(result.exitCode()).as(context).isZero();
        Map<String, Object> json = Json.parseObject(result.json());
        assertThat(json.get("ok")).as(context).isEqualTo(true);
        @SuppressWarnings("unchecked")
        Map<String, Object> part = (Map<String, Object>) json.get("bytestream-interop");
        assertThat(part.get("ok")).as(context).isEqualTo(true);
        return part;
    }

    @Test
    void writeReadSeekTruncateAndSealOnTheRealPravega() {
        Target t = target("real");
        ScopedStream stream = t.createStream("own-" + System.nanoTime());
        byte[] data = content(SIZE);
        try (ByteStreamWriter out = t.client().newByteStreamWriter(t.scope(), stream.name())) {
            writeInPieces(out, data);
            out.flush();
            assertThat(out.tailOffset()).isEqualTo(SIZE);
            try (ByteStreamReader in = t.client().newByteStreamReader(t.scope(), stream.name())) {
                assertThat(readFully(in, SIZE)).isEqualTo(data);
                assertThat(in.offset()).isEqualTo(SIZE);
                in.seekToOffset(SIZE / 3);
                assertThat(readFully(in, 10_000)).isEqualTo(Arrays.copyOfRange(data, SIZE / 3, SIZE / 3 + 10_000));
                out.truncateDataBefore(4096);
                assertThat(in.headOffset()).isEqualTo(4096);
                in.seekToOffset(10);
                assertThatThrownBy(in::read).isInstanceOf(SegmentTruncatedException.class)
                        .hasMessageContaining("head is at offset 4096");
                in.seekToOffset(SIZE - 5);
                assertThat(readFully(in, 5)).isEqualTo(Arrays.copyOfRange(data, SIZE - 5, SIZE));
                out.closeAndSeal();
                assertThat(in.read()).as("the end of the sealed stream").isEqualTo(-1);
            }
        }
        try (ByteStreamWriter late = t.client().newByteStreamWriter(t.scope(), stream.name())) {
            assertThatThrownBy(() -> {
                late.write(new byte[] {1});
                late.flush();
            }).isInstanceOf(SegmentSealedException.class);
        }
    }

    @Test
    void aReaderAtTheTailWaitsForARacingWriterOnTheRealPravega() throws Exception {
        Target t = target("real");
        ScopedStream stream = t.createStream("tail-" + System.nanoTime());
        byte[] data = content(300_000);
        try (ByteStreamReader in = t.client().newByteStreamReader(t.scope(), stream.name());
             ByteStreamWriter out = t.client().newByteStreamWriter(t.scope(), stream.name())) {
            CompletableFuture<byte[]> reading = CompletableFuture.supplyAsync(() -> readFully(in, data.length),
                    r -> Thread.ofVirtual().start(r));
            for (int pos = 0; pos < data.length; pos += 3000) {
                out.write(data, pos, 3000);
                if (pos % 30_000 == 0) {
                    out.flush();
                }
            }
            out.flush();
            assertThat(reading.get(60, TimeUnit.SECONDS)).isEqualTo(data);
        }
    }

    @ParameterizedTest(name = "Sluice writes and seals, the official ByteStreamReader reads, on {0}")
    @ValueSource(strings = {"real", "embedded"})
    void sluiceWritesTheOfficialClientReads(String name) throws Exception {
        Target t = target(name);
        ScopedStream stream = t.createStream("to-official-" + System.nanoTime());
        byte[] data = content(SIZE);
        try (ByteStreamWriter out = t.client().newByteStreamWriter(t.scope(), stream.name())) {
            writeInPieces(out, data);
            out.closeAndSeal();
        }
        Map<String, Object> part = driver(t, stream, "read");
        assertThat(((Number) part.get("crc32")).longValue()).isEqualTo(LargeEventCompatTest.crc(data));
        assertThat(((Number) part.get("offset")).longValue()).isEqualTo(SIZE);
    }

    @ParameterizedTest(name = "the official ByteStreamWriter writes and seals, Sluice reads, on {0}")
    @ValueSource(strings = {"real", "embedded"})
    void theOfficialClientWritesSluiceReads(String name) throws Exception {
        Target t = target(name);
        ScopedStream stream = t.createStream("from-official-" + System.nanoTime());
        Map<String, Object> part = driver(t, stream, "write");
        try (ByteStreamReader in = t.client().newByteStreamReader(t.scope(), stream.name())) {
            byte[] back = readFully(in, SIZE);
            assertThat(back).isEqualTo(content(SIZE));
            assertThat(LargeEventCompatTest.crc(back)).isEqualTo(((Number) part.get("crc32")).longValue());
            assertThat(in.read()).as("the official writer sealed the stream").isEqualTo(-1);
            assertThat(in.tailOffset()).isEqualTo(SIZE);
        }
    }
}
