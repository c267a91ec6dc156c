package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import io.sluice.admin.ReaderGroupManager;
import io.sluice.common.Deadline;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.FaultProxy;
import io.sluice.connection.LoopbackProxy;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.controller.ControllerClient;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.SegmentStores;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ReaderConfig;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.WriteHandle;
import io.sluice.stream.WriterConfig;
import io.sluice.wire.Event;
import io.sluice.wire.WireCommandType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Large events ({@link WriterConfig#withLargeEvents}) against the embedded server: written through a transient
 * segment and a merge, read whole, in order with the writer's other events, atomic when the connection fails.
 */
@Timeout(180)
class LargeEventTest {
    private static final ScopedStream STREAM = ScopedStream.of("big", "blobs");
    private static final int MIB = 1024 * 1024;
    private static final WriterConfig LARGE = WriterConfig.DEFAULT.withLargeEvents(true);

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

    /** {@code n} bytes that differ with {@code seed} and along the event, so a misplaced piece shows. */
    static byte[] content(int n, int seed) {
        byte[] b = new byte[n];
        long x = seed * 0x9E3779B97F4A7C15L + 1;
        for (int i = 0; i < n; i += 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            for (int j = 0; j < 8 && i + j < n; j++) {
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

    private long segmentLength() {
        return server.segmentStore().segmentInfo(Segment.of(STREAM, 0, 0).qualifiedName()).orElseThrow().length();
    }

    private List<String> transientSegments() {
        return server.segmentStore().segmentNames().stream().filter(n -> n.contains("#transient.")).toList();
    }

    /** Reads {@code count} events with a fresh group, then checks that nothing else comes. */
    private List<byte[]> readAll(int count, ReaderConfig config) {
        ReaderGroupManager groups = client.readerGroupManager(STREAM.scope());
        String group = "g" + System.nanoTime();
        groups.createReaderGroup(group, ReaderGroupConfig.builder().stream(STREAM).disableAutomaticCheckpoints()
                .build()).close();
        List<byte[]> out = new ArrayList<>();
        try (EventStreamReader<byte[]> reader = client.newReader(STREAM.scope(), group, "r", Serializers.bytes(),
                config)) {
            Deadline deadline = Deadline.after(Duration.ofSeconds(120));
            while (out.size() < count && !deadline.expired()) {
                EventRead<byte[]> e = reader.readNextEvent(Duration.ofSeconds(1));
                if (e.event() != null) {
                    out.add(e.event());
                }
            }
            assertThat(reader.readNextEvent(Duration.ofMillis(300)).event()).as("an event after the expected ones")
                    .isNull();
        }
        return out;
    }

    @Test
    void anEventOver8MiBWithoutTheOptionFailsNamingTheOption() {
        try (EventStreamWriter<byte[]> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.bytes())) {
            assertThatThrownBy(() -> writer.write("k", new byte[8 * MIB + 1]))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("exceeds the maximum event size of 8388608 bytes")
                    .hasMessageContaining("WriterConfig.withLargeEvents(true)");
            assertThatThrownBy(() -> writer.writeAll("k", List.of(new byte[10], new byte[9 * MIB])))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("WriterConfig.withLargeEvents(true)");
            writer.writeAndWait("k", new byte[8 * MIB]); // the largest ordinary event still goes
        }
        assertThat(segmentLength()).isEqualTo(8L * MIB + Event.HEADER_SIZE);
        assertThat(WriterConfig.DEFAULT.largeEvents()).isFalse();
        assertThat(LARGE.largeEvents()).isTrue();
        assertThat(LARGE.withLargeEvents(false)).isEqualTo(WriterConfig.DEFAULT);
    }

    @Test
    void a12MiBEventIsMergedWholeAndReadWhole() {
        byte[] event = content(12 * MIB, 1);
        try (EventStreamWriter<byte[]> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.bytes(),
                LARGE)) {
            WriteHandle h = writer.write("k", event);
            h.await();
            assertThat(h.isDone()).as("its handle completes once it is merged").isTrue();
            assertThat(segmentLength()).as("merged when the handle completes").isEqualTo(12L * MIB + Event.HEADER_SIZE);
        }
        assertThat(segmentLength()).isEqualTo(12L * MIB + Event.HEADER_SIZE);
        assertThat(transientSegments()).as("the transient segment was merged away").isEmpty();
        // a 4 KiB prefetch window and 2 MiB server replies: the event is joined from many reads
        List<byte[]> read = readAll(1, ReaderConfig.DEFAULT.withBufferBytes(4096));
        assertThat(read).hasSize(1);
        assertThat(crc(read.get(0))).isEqualTo(crc(event));
        assertThat(read.get(0)).isEqualTo(event);
    }

    @Test
    void a100MiBEventIsWrittenAndReadWhole() {
        byte[] event = content(100 * MIB, 2);
        long crc = crc(event);
        try (EventStreamWriter<byte[]> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.bytes(),
                LARGE)) {
            writer.write("k", event).await();
        }
        assertThat(segmentLength()).isEqualTo(100L * MIB + Event.HEADER_SIZE);
        event = null; // let the heap go before reading it back
        List<byte[]> read = readAll(1, ReaderConfig.DEFAULT);
        assertThat(read).hasSize(1);
        assertThat(read.get(0)).hasSize(100 * MIB);
        assertThat(crc(read.get(0))).isEqualTo(crc);
    }

    @Test
    void largeEventsStayInOrderWithTheSmallEventsOfTheirKey() {
        List<byte[]> written = new ArrayList<>();
        try (EventStreamWriter<byte[]> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.bytes(),
                LARGE)) {
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 50; i++) {
                    byte[] small = content(100 + i, round * 1000 + i);
                    written.add(small);
                    writer.write("k", small); // not awaited: the large write must come after these
                }
                byte[] big = content(9 * MIB + round, 77 + round);
                written.add(big);
                writer.write("k", big);
            }
            byte[] last = content(10, 5);
            written.add(last);
            writer.write("k", last);
            // a batch too large for one frame travels as one large write, atomically
            List<byte[]> batch = List.of(content(5 * MIB, 6), content(7 * MIB, 7), content(6 * MIB, 8));
            written.addAll(batch);
            writer.writeAll("k", batch).await();
            writer.flush();
        }
        List<byte[]> read = readAll(written.size(), ReaderConfig.DEFAULT);
        assertThat(read).hasSize(written.size());
        for (int i = 0; i < written.size(); i++) {
            assertThat(read.get(i)).as("event " + i).isEqualTo(written.get(i));
        }
    }

    @Test
    void largeEventsWrittenWithoutWaitingMergeInTheOrderTheyWereWritten() {
        List<byte[]> written = new ArrayList<>();
        List<WriteHandle> handles = new ArrayList<>();
        try (EventStreamWriter<byte[]> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.bytes(),
                LARGE)) {
            for (int i = 0; i < 6; i++) {
                // different keys and sizes: a later, smaller event travels faster, yet must merge after the earlier
                byte[] big = content((i % 2 == 0 ? 12 : 9) * MIB + i, 200 + i);
                written.add(big);
                handles.add(writer.write("key-" + i, big));
                byte[] small = content(50 + i, 300 + i);
                written.add(small);
                handles.add(writer.write("key-" + i, small)); // after the large one of its key
            }
            writer.flush();
            assertThat(handles).allMatch(WriteHandle::isDone);
        }
        assertThat(transientSegments()).as("every transient segment was merged away").isEmpty();
        List<byte[]> read = readAll(written.size(), ReaderConfig.DEFAULT);
        assertThat(read).hasSize(written.size());
        for (int i = 0; i < written.size(); i++) {
            assertThat(crc(read.get(i))).as("event " + i).isEqualTo(crc(written.get(i)));
        }
    }

    @Test
    void aLargeEventReadByPointerAndFetchEvent() {
        byte[] event = content(12 * MIB + 5, 3);
        try (EventStreamWriter<byte[]> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.bytes(),
                LARGE)) {
            writer.write("k", new byte[] {1, 2, 3});
            writer.write("k", event).await();
        }
        ReaderGroupManager groups = client.readerGroupManager(STREAM.scope());
        groups.createReaderGroup("p", ReaderGroupConfig.builder().stream(STREAM).build()).close();
        try (EventStreamReader<byte[]> reader = client.newReader(STREAM.scope(), "p", "r", Serializers.bytes())) {
            EventRead<byte[]> first = reader.readNextEvent(Duration.ofSeconds(10));
            assertThat(first.event()).containsExactly(1, 2, 3);
            EventRead<byte[]> big = reader.readNextEvent(Duration.ofSeconds(30));
            assertThat(big.event()).isEqualTo(event);
            assertThat(big.pointer().length()).isEqualTo(event.length + Event.HEADER_SIZE);
            assertThat(reader.fetchEvent(big.pointer())).isEqualTo(event);
            assertThat(client.streamManager().fetchEvent(big.pointer(), Serializers.bytes())).isEqualTo(event);
        }
    }

    @Test
    void aSealedSegmentSendsTheLargeEventToTheSuccessor() {
        byte[] event = content(9 * MIB, 4);
        try (EventStreamWriter<byte[]> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.bytes(),
                LARGE)) {
            writer.writeAndWait("k", new byte[] {9});
            SegmentWithRange only = controller.currentSegments(STREAM).ranges().get(0);
            // the writer still routes to the old segment: the large write finds it sealed and follows the scale
            controller.scale(STREAM, List.of(only.segment()), List.of(new KeyRange(0, 0.5), new KeyRange(0.5, 1)));
            writer.write("k", event).await();
            writer.writeAndWait("k", new byte[] {10});
        }
        assertThat(segmentLength()).isEqualTo(Event.HEADER_SIZE + 1);
        List<byte[]> read = readAll(3, ReaderConfig.DEFAULT);
        assertThat(read).hasSize(3);
        assertThat(read.get(0)).containsExactly(9);
        assertThat(read.get(1)).isEqualTo(event);
        assertThat(read.get(2)).containsExactly(10);
        assertThat(transientSegments()).isEmpty();
    }

    /**
     * The connection is cut just as the server answers the merge: the event is in the segment, but the writer never
     * heard so. Its retry must find that out (the merge's proof attribute on the parent) instead of writing the
     * event a second time through a new transient segment, as it did before (found by NetworkFaultsTest: a 9 MiB
     * event read twice, at two offsets).
     */
    @Test
    void aMergeWhoseReplyIsLostIsNotWrittenAgain() throws IOException {
        byte[] event = content(9 * MIB, 6);
        try (FaultProxy proxy = new FaultProxy(server.segmentStoreEndpoint());
             ConnectionPool pool = new ConnectionPool(new TcpConnectionFactory());
             EventStreamWriterImpl<byte[]> writer = new EventStreamWriterImpl<>(STREAM, Serializers.bytes(), LARGE,
                     controller, SegmentStores.over(pool, SegmentLocator.fixed(proxy.endpoint())))) {
            proxy.cutBeforeReply(WireCommandType.SEGMENTS_MERGED.code());
            writer.write("k", event).await(Duration.ofSeconds(120));
            assertThat(proxy.cutBeforeReplyArmed()).as("the merge's reply was cut").isFalse();
            assertThat(proxy.connections()).as("the retry came over a new connection").isGreaterThan(1);
            writer.writeAndWait("k", new byte[] {7});
        }
        assertThat(segmentLength()).as("written once, then the small event")
                .isEqualTo(9L * MIB + Event.HEADER_SIZE + 1 + Event.HEADER_SIZE);
        List<byte[]> read = readAll(2, ReaderConfig.DEFAULT);
        assertThat(read.get(0)).isEqualTo(event);
        assertThat(read.get(1)).containsExactly(7);
        assertThat(transientSegments()).isEmpty();
    }

    @Test
    void aConnectionLostBeforeTheMergeLeavesNothingAndTheRetryWritesItOnce() throws IOException {
        byte[] event = content(100 * MIB, 5);
        try (LoopbackProxy proxy = new LoopbackProxy(server.segmentStoreEndpoint());
             ConnectionPool pool = new ConnectionPool(new TcpConnectionFactory());
             EventStreamWriterImpl<byte[]> writer = new EventStreamWriterImpl<>(STREAM, Serializers.bytes(), LARGE,
                     controller, SegmentStores.over(pool, SegmentLocator.fixed(proxy.endpoint())))) {
            CompletableFuture<WriteHandle> writing = CompletableFuture.supplyAsync(() -> writer.write("k", event),
                    r -> Thread.ofVirtual().start(r));
            // cut the connection while the pieces are going to the transient segment
            Deadline deadline = Deadline.after(Duration.ofSeconds(60));
            long staged = 0;
            while (staged < 8L * MIB && !deadline.expired()) {
                staged = transientSegments().stream().mapToLong(n -> server.segmentStore().segmentInfo(n)
                        .map(i -> i.length()).orElse(0L)).sum();
                Thread.yield();
            }
            assertThat(staged).as("bytes staged in the transient segment").isBetween(8L * MIB, 60L * MIB);
            assertThat(segmentLength()).as("nothing visible before the merge").isZero();
            assertThat(proxy.dropAll()).isPositive();
            WriteHandle h = writing.orTimeout(120, TimeUnit.SECONDS).join();
            h.await();
            assertThat(proxy.connections()).as("the retry came over a new connection").isGreaterThan(1);
        }
        assertThat(segmentLength()).as("written once").isEqualTo(100L * MIB + Event.HEADER_SIZE);
        Deadline deadline = Deadline.after(Duration.ofSeconds(10));
        while (!transientSegments().isEmpty() && !deadline.expired()) {
            Thread.yield();
        }
        assertThat(transientSegments()).as("the lost transient segment was deleted").isEmpty();
    }
}
