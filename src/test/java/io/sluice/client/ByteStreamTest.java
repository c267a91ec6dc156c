package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.sluice.bytestream.ByteStreamReader;
import io.sluice.bytestream.ByteStreamWriter;
import io.sluice.common.Deadline;
import io.sluice.connection.ConnectionConfig;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.LoopbackProxy;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.controller.ControllerClient;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.errors.WriterClosedException;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.SegmentStores;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.WriterConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Byte streams against the embedded server: raw bytes in and out, atomic writes, the tail, seal, truncation. */
@Timeout(120)
class ByteStreamTest {
    private static final ScopedStream STREAM = ScopedStream.of("logs", "raw");
    private static final int MIB = 1024 * 1024;

    private EmbeddedServer server;
    private SluiceClient client;
    private ControllerClient controller;

    @BeforeEach
    void start() {
        server = EmbeddedServer.builder().inMemory().build();
        client = SluiceClient.connect(server.controllerUri());
        controller = client.controller();
        controller.createScope(STREAM.scope());
        controller.createStream(STREAM, StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(1)).build());
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    private long segmentLength() {
        return server.segmentStore().segmentInfo(Segment.of(STREAM, 0, 0).qualifiedName()).orElseThrow().length();
    }

    /** Reads exactly {@code n} bytes. */
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

    @Test
    void bytesOfEverySizeReadBackInOrderWithoutFraming() {
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        try (ByteStreamWriter out = client.newByteStreamWriter("logs", "raw")) {
            out.write(7);
            expected.write(7);
            for (int size : new int[] {1, 100, 4095, 4096, 4097, 65536, MIB, 3}) {
                byte[] b = LargeEventTest.content(size, size);
                out.write(b);
                expected.writeBytes(b);
            }
            out.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            expected.writeBytes(new byte[] {1, 2, 3});
            out.flush();
            assertThat(out.tailOffset()).isEqualTo(expected.size());
            assertThat(out.headOffset()).isZero();
        }
        assertThat(segmentLength()).as("raw bytes, no event headers").isEqualTo(expected.size());
        try (ByteStreamReader in = client.newByteStreamReader("logs", "raw")) {
            assertThat(in.offset()).isZero();
            assertThat(in.read()).isEqualTo(7);
            byte[] rest = readFully(in, expected.size() - 1);
            assertThat(rest).isEqualTo(Arrays.copyOfRange(expected.toByteArray(), 1, expected.size()));
            assertThat(in.offset()).isEqualTo(expected.size());
            assertThat(in.tailOffset()).isEqualTo(expected.size());
        }
    }

    @Test
    void aWriteOver8MiBIsCutInto8MiBPiecesAndArrivesWhole() {
        byte[] big = LargeEventTest.content(20 * MIB + 5, 3);
        try (ByteStreamWriter out = client.newByteStreamWriter("logs", "raw")) {
            out.write(big);
            out.flush();
        }
        assertThat(segmentLength()).isEqualTo(big.length);
        try (ByteStreamReader in = client.newByteStreamReader("logs", "raw")) {
            assertThat(readFully(in, big.length)).isEqualTo(big);
        }
    }

    @Test
    void concurrentWritesNeverInterleave() throws Exception {
        int chunk = 64 * 1024;
        int perThread = 40;
        try (ByteStreamWriter out = client.newByteStreamWriter("logs", "raw")) {
            List<CompletableFuture<Void>> writers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int id = t;
                writers.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < perThread; i++) {
                        byte[] b = new byte[chunk];
                        Arrays.fill(b, (byte) (id * perThread + i));
                        out.write(b);
                    }
                }, r -> Thread.ofVirtual().start(r)));
            }
            CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            out.flush();
        }
        boolean[] seen = new boolean[4 * perThread];
        try (ByteStreamReader in = client.newByteStreamReader("logs", "raw")) {
            for (int c = 0; c < 4 * perThread; c++) {
                byte[] b = readFully(in, chunk);
                int v = b[0] & 0xFF;
                for (byte x : b) {
                    assertThat(x & 0xFF).as("chunk %d is one write's bytes", c).isEqualTo(v);
                }
                assertThat(seen[v]).as("write %d appears once", v).isFalse();
                seen[v] = true;
            }
        }
    }

    /**
     * A pool whose keep-alive checks wait longer than any test: a connection whose replies a proxy holds back is not
     * declared dead while the test looks at it.
     */
    private static ConnectionPool quietPool() {
        ConnectionConfig config = ConnectionConfig.DEFAULT.withKeepAlive(Duration.ofMinutes(10), Duration.ofMinutes(10));
        return new ConnectionPool(new TcpConnectionFactory(config));
    }

    @Test
    void writesArePipelinedNotOneRoundTripEach() throws IOException {
        try (LoopbackProxy proxy = new LoopbackProxy(server.segmentStoreEndpoint());
             ConnectionPool pool = quietPool();
             ByteStreamWriterImpl out = new ByteStreamWriterImpl(STREAM, WriterConfig.DEFAULT, controller,
                     SegmentStores.over(pool, SegmentLocator.fixed(proxy.endpoint())))) {
            out.write(new byte[10]);
            out.flush(); // the session is set up
            proxy.holdReplies();
            try {
                for (int i = 0; i < 100; i++) {
                    out.write(new byte[5000]);
                }
                // every write returned while no acknowledgement came back; the server has them all
                Deadline deadline = Deadline.after(Duration.ofSeconds(30));
                while (segmentLength() < 10 + 100 * 5000 && !deadline.expired()) {
                    Thread.yield();
                }
                assertThat(segmentLength()).isEqualTo(10 + 100 * 5000);
            } finally {
                proxy.release(); // else closing the writer would wait for acknowledgements forever
            }
            out.flush();
            assertThat(out.tailOffset()).isEqualTo(10 + 100 * 5000);
        }
    }

    @Test
    void aLostConnectionResendsWhatWasNotAcknowledgedExactlyOnce() throws IOException {
        byte[] data = LargeEventTest.content(301 * 1000, 11);
        try (LoopbackProxy proxy = new LoopbackProxy(server.segmentStoreEndpoint());
             ConnectionPool pool = quietPool();
             ByteStreamWriterImpl out = new ByteStreamWriterImpl(STREAM, WriterConfig.DEFAULT, controller,
                     SegmentStores.over(pool, SegmentLocator.fixed(proxy.endpoint())))) {
            out.write(data, 0, 1000);
            out.flush();
            proxy.holdReplies();
            try {
                for (int off = 1000; off < data.length; off += 5000) {
                    out.write(data, off, Math.min(5000, data.length - off));
                }
                Deadline deadline = Deadline.after(Duration.ofSeconds(30));
                while (segmentLength() < data.length && !deadline.expired()) {
                    Thread.yield();
                }
                assertThat(segmentLength()).as("everything reached the server unacknowledged").isEqualTo(data.length);
                assertThat(proxy.dropAll()).as("the writer's connection was cut (connections that ended before: %s)",
                        proxy.endings()).isPositive();
            } finally {
                proxy.release(); // else closing the writer would wait for acknowledgements forever
            }
            out.flush();
            assertThat(proxy.connections()).as("a new connection took over").isGreaterThan(1);
        }
        assertThat(segmentLength()).as("nothing written twice").isEqualTo(data.length);
        try (ByteStreamReader in = client.newByteStreamReader("logs", "raw")) {
            assertThat(readFully(in, data.length)).isEqualTo(data);
        }
    }

    @Test
    void readBlocksAtTheTailUntilAWriterAppends() throws Exception {
        try (ByteStreamReader in = client.newByteStreamReader("logs", "raw");
             ByteStreamWriter out = client.newByteStreamWriter("logs", "raw")) {
            assertThat(in.available()).isZero();
            CompletableFuture<byte[]> reading = CompletableFuture.supplyAsync(() -> readFully(in, 3000),
                    r -> Thread.ofVirtual().start(r));
            byte[] data = LargeEventTest.content(3000, 2);
            out.write(data, 0, 1000);
            out.flush();
            assertThat(reading).as("still waiting for the rest").isNotDone();
            out.write(data, 1000, 2000);
            out.flush();
            assertThat(reading.get(30, TimeUnit.SECONDS)).isEqualTo(data);
        }
    }

    @Test
    void availableCountsBufferedBytesWithoutBlocking() {
        try (ByteStreamWriter out = client.newByteStreamWriter("logs", "raw")) {
            out.write(new byte[1000]);
            out.flush();
        }
        try (ByteStreamReader in = client.newByteStreamReader("logs", "raw")) {
            assertThat(in.read()).isZero();
            Deadline deadline = Deadline.after(Duration.ofSeconds(30));
            while (in.available() < 999 && !deadline.expired()) {
                Thread.yield();
            }
            assertThat(in.available()).isEqualTo(999);
            assertThat(in.read(new byte[5000], 0, 5000)).isEqualTo(999);
            assertThat(in.available()).isZero();
        }
    }

    @Test
    void closeAndSealEndsTheStreamForReadersAndWriters() {
        ByteStreamWriter out = client.newByteStreamWriter("logs", "raw");
        out.write(new byte[] {1, 2, 3});
        out.closeAndSeal();
        assertThatThrownBy(() -> out.write(4)).isInstanceOf(WriterClosedException.class);
        try (ByteStreamReader in = client.newByteStreamReader("logs", "raw")) {
            assertThat(readFully(in, 3)).containsExactly(1, 2, 3);
            assertThat(in.read()).isEqualTo(-1);
            assertThat(in.read(new byte[10], 0, 10)).isEqualTo(-1);
        }
        try (ByteStreamWriter late = client.newByteStreamWriter("logs", "raw")) {
            assertThatThrownBy(() -> {
                late.write(new byte[] {4});
                late.flush();
            }).isInstanceOf(SegmentSealedException.class).hasMessageContaining("logs/raw");
        }
        assertThat(segmentLength()).isEqualTo(3);
    }

    @Test
    void aStreamSealedBehindTheWritersBackFailsItsNextFlush() {
        try (ByteStreamWriter out = client.newByteStreamWriter("logs", "raw")) {
            out.write(new byte[5000]);
            out.flush();
            client.streamManager().sealStream("logs", "raw");
            assertThatThrownBy(() -> {
                out.write(new byte[5000]);
                out.flush();
            }).isInstanceOf(SegmentSealedException.class).hasMessageContaining("logs/raw");
        }
        assertThat(segmentLength()).isEqualTo(5000);
    }

    @Test
    void seekMovesTheReaderAndSkipStopsAtTheTail() {
        byte[] data = LargeEventTest.content(10_000, 4);
        try (ByteStreamWriter out = client.newByteStreamWriter("logs", "raw")) {
            out.write(data);
            out.flush();
        }
        try (ByteStreamReader in = client.newByteStreamReader("logs", "raw")) {
            in.seekToOffset(6000);
            assertThat(in.offset()).isEqualTo(6000);
            assertThat(readFully(in, 100)).isEqualTo(Arrays.copyOfRange(data, 6000, 6100));
            in.seekToOffset(10);
            assertThat(readFully(in, 10)).isEqualTo(Arrays.copyOfRange(data, 10, 20));
            assertThat(in.skip(1000)).isEqualTo(1000);
            assertThat(in.offset()).isEqualTo(1020);
            assertThat(in.read()).isEqualTo(data[1020] & 0xFF);
            assertThat(in.skip(1_000_000)).isEqualTo(10_000 - 1021);
            assertThat(in.offset()).isEqualTo(10_000);
            assertThatThrownBy(() -> in.seekToOffset(-1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("-1");
        }
    }

    @Test
    void truncatedBytesFailWithTheHeadOffset() {
        byte[] data = LargeEventTest.content(10_000, 5);
        try (ByteStreamWriter out = client.newByteStreamWriter("logs", "raw")) {
            out.write(data);
            out.flush();
            out.truncateDataBefore(4000);
            assertThat(out.headOffset()).isEqualTo(4000);
            assertThat(out.tailOffset()).isEqualTo(10_000);
            assertThatThrownBy(() -> out.truncateDataBefore(-5)).isInstanceOf(IllegalArgumentException.class);
        }
        try (ByteStreamReader in = client.newByteStreamReader("logs", "raw")) {
            assertThat(in.offset()).as("a new reader starts at the head").isEqualTo(4000);
            assertThat(in.headOffset()).isEqualTo(4000);
            assertThat(readFully(in, 10)).isEqualTo(Arrays.copyOfRange(data, 4000, 4010));
            in.seekToOffset(100);
            assertThatThrownBy(() -> in.read()).isInstanceOf(SegmentTruncatedException.class)
                    .hasMessageContaining("head is at offset 4000");
            in.seekToOffset(9990);
            assertThat(readFully(in, 10)).isEqualTo(Arrays.copyOfRange(data, 9990, 10_000));
        }
    }

    @Test
    void aStreamOfSeveralSegmentsIsRefused() {
        controller.createStream(ScopedStream.of("logs", "wide"),
                StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(3)).build());
        assertThatThrownBy(() -> client.newByteStreamWriter("logs", "wide"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exactly one");
        assertThatThrownBy(() -> client.newByteStreamReader("logs", "wide"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exactly one");
    }

    @Test
    void aClosedReaderAndWriterRefuseToWork() {
        ByteStreamWriter out = client.newByteStreamWriter("logs", "raw");
        out.close();
        out.close();
        assertThatThrownBy(() -> out.write(new byte[10])).isInstanceOf(WriterClosedException.class);
        assertThatThrownBy(out::flush).isInstanceOf(WriterClosedException.class);
        ByteStreamReader in = client.newByteStreamReader("logs", "raw");
        in.close();
        assertThatThrownBy(in::read).hasMessageContaining("closed");
    }
}
