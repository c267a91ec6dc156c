package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.sluice.common.Deadline;
import io.sluice.common.KeyHash;
import io.sluice.connection.RawClient;
import io.sluice.controller.ControllerClient;
import io.sluice.errors.SegmentSealedException;
import io.sluice.segment.PendingEvent;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.WriteHandle;
import io.sluice.stream.WriterConfig;
import io.sluice.wire.Event;
import io.sluice.wire.EventFrames;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.SegmentRead;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The event writer against the embedded server: routing, ordering per key, flush, scaling. */
@Timeout(90)
class EventStreamWriterTest {
    private static final ScopedStream STREAM = ScopedStream.of("shop", "orders");

    private EmbeddedServer server;
    private SluiceClient client;
    private ControllerClient controller;

    @BeforeEach
    void start() {
        server = EmbeddedServer.builder().inMemory().build();
        client = SluiceClient.connect(server.controllerUri());
        controller = client.controller();
        controller.createScope(STREAM.scope());
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    private void createStream(int segments) {
        controller.createStream(STREAM, StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(segments)).build());
    }

    /** Every event of every segment of the stream (all epochs), in segment order, as text. */
    private Map<Segment, List<String>> contents() {
        Map<Segment, List<String>> out = new TreeMap<>();
        RawClient raw = new RawClient(client.stores().pool());
        for (String name : server.segmentStore().segmentNames()) {
            if (!name.startsWith(STREAM.scopedName() + "/")) {
                continue;
            }
            Segment segment = Segment.parse(name);
            List<String> events = new ArrayList<>();
            long offset = 0;
            long length = server.segmentStore().segmentInfo(name).orElseThrow().length();
            while (offset < length) {
                long at = offset;
                SegmentRead r = raw.call(server.segmentStoreEndpoint(), id -> new ReadSegment(name, at, 1 << 20, "", id),
                        SegmentRead.class, Deadline.after(Duration.ofSeconds(20)));
                offset += EventFrames.forEach(r.data(), e -> events.add(StandardCharsets.UTF_8.decode(e).toString()));
            }
            out.put(segment, events);
        }
        return out;
    }

    @Test
    void eventsGoWhereTheirKeyHashesAndKeepPerKeyOrder() {
        createStream(4);
        List<SegmentWithRange> ranges = controller.currentSegments(STREAM).ranges();
        try (EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            assertThat(writer.config()).isEqualTo(WriterConfig.DEFAULT);
            for (int i = 0; i < 4000; i++) {
                writer.write("key-" + (i % 40), "key-" + (i % 40) + ":" + i);
            }
            writer.flush();
        }
        Map<Segment, List<String>> contents = contents();
        assertThat(contents.values().stream().mapToInt(List::size).sum()).isEqualTo(4000);
        for (Map.Entry<Segment, List<String>> e : contents.entrySet()) {
            SegmentWithRange range = ranges.stream().filter(r -> r.segment().equals(e.getKey())).findFirst().orElseThrow();
            Map<String, Integer> last = new HashMap<>();
            for (String event : e.getValue()) {
                String key = event.substring(0, event.indexOf(':'));
                int n = Integer.parseInt(event.substring(event.indexOf(':') + 1));
                assertThat(range.contains(KeyHash.routingKey(key))).as("%s in %s", key, range).isTrue();
                assertThat(n).as("order of %s", key).isGreaterThan(last.getOrDefault(key, -1));
                last.put(key, n);
            }
        }
    }

    @Test
    void segmentWritersSharingOneConnectionKeepTheirSessionsApart() {
        createStream(4);
        // one connection per segment store: every segment writer's append session shares it
        try (SluiceClient single = SluiceClient.connect(ClientConfig.builder(server.controllerUri())
                .maxConnectionsPerSegmentStore(1).build());
             EventStreamWriter<String> writer = single.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            for (int i = 0; i < 2000; i++) {
                writer.write("key-" + (i % 40), "key-" + (i % 40) + ":" + i);
            }
            writer.flush();
        }
        List<SegmentWithRange> ranges = controller.currentSegments(STREAM).ranges();
        Map<Segment, List<String>> contents = contents();
        assertThat(contents.values().stream().mapToInt(List::size).sum()).isEqualTo(2000);
        contents.forEach((segment, events) -> {
            SegmentWithRange range = ranges.stream().filter(r -> r.segment().equals(segment)).findFirst().orElseThrow();
            events.forEach(e -> assertThat(range.contains(KeyHash.routingKey(e.substring(0, e.indexOf(':')))))
                    .as("%s in %s", e, segment).isTrue());
        });
    }

    @Test
    void writeAndWaitIsDurableOnReturn() {
        createStream(1);
        try (EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            writer.writeAndWait("k", "now");
            assertThat(contents().values().iterator().next()).containsExactly("now");
            WriteHandle h = writer.write("k", "later");
            h.await(Duration.ofSeconds(20));
            assertThat(h.isDone()).isTrue();
        }
    }

    @Test
    void stagesOnAWritesFutureMayBlockWithoutStallingTheWriter() throws Exception {
        createStream(1);
        int attempts = 0;
        try (EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            CountDownLatch release = new CountDownLatch(1);
            Thread test = Thread.currentThread();
            // a stage attached after its write completed runs at once on this (the attaching) thread, as
            // CompletableFuture does, and must not block it: write until one is attached while still in flight
            CompletableFuture<Void> blocked = null;
            while (blocked == null) {
                assertThat(attempts).as("a write still in flight when its stage was attached").isLessThan(50);
                CompletableFuture<Thread> stageThread = new CompletableFuture<>();
                CompletableFuture<Void> stage = writer.write("k", "first" + attempts++).toCompletableFuture()
                        .thenRun(() -> {
                            stageThread.complete(Thread.currentThread());
                            if (Thread.currentThread() == test) {
                                return;
                            }
                            try {
                                release.await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        });
                Thread ranOn = stageThread.get(20, TimeUnit.SECONDS);
                if (ranOn != test) {
                    assertThat(ranOn.getName()).doesNotStartWith("sluice-reader");
                    blocked = stage;
                }
            }
            // the stage still blocks: acknowledgements of later writes on the same connection arrive regardless
            for (int i = 0; i < 20; i++) {
                writer.write("k", "next" + i).await(Duration.ofSeconds(20));
            }
            assertThat(blocked).isNotDone();
            release.countDown();
            blocked.get(20, TimeUnit.SECONDS);
        }
        assertThat(contents().values().iterator().next()).hasSize(attempts + 20).startsWith("first0");
    }

    @Test
    void atomicBatchesAreContiguous() {
        createStream(2);
        try (EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            writer.writeAll("batch", List.of("a", "b", "c")).await();
        }
        List<String> all = contents().values().stream().flatMap(List::stream).toList();
        assertThat(all).containsExactly("a", "b", "c");
    }

    @Test
    void tooLargeEventsAreRejectedClearly() {
        createStream(1);
        try (EventStreamWriter<ByteBuffer> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.byteBuffer())) {
            assertThatThrownBy(() -> writer.write(ByteBuffer.allocate(8 * 1024 * 1024 + 1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceeds the maximum event size");
        }
    }

    @Test
    void theLargestAtomicBatchFitsOneFrameAndOneByteMoreIsRejected() {
        createStream(1);
        // two events, 8 bytes of framing each: exactly what one AppendBlock frame of 16 MiB - 1 bytes carries
        int first = PendingEvent.MAX_EVENT_SIZE;
        int second = WriterConfig.MAX_BLOCK_BYTES - 2 * Event.HEADER_SIZE - first;
        assertThat(PendingEvent.MAX_BATCH_SIZE).isEqualTo(WriterConfig.MAX_BLOCK_BYTES).isEqualTo(16_777_191);
        try (EventStreamWriter<ByteBuffer> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.byteBuffer())) {
            assertThatThrownBy(() -> writer.writeAll("k", List.of(ByteBuffer.allocate(first),
                    ByteBuffer.allocate(second + 1)))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("exceeds the maximum of " + PendingEvent.MAX_BATCH_SIZE);
            writer.writeAll("k", List.of(ByteBuffer.allocate(first), ByteBuffer.allocate(second)))
                    .await(Duration.ofSeconds(60));
        }
        Segment only = Segment.of(STREAM, 0, 0);
        assertThat(server.segmentStore().segmentInfo(only.qualifiedName()).orElseThrow().length())
                .isEqualTo(PendingEvent.MAX_BATCH_SIZE);
        assertThatThrownBy(() -> new WriterConfig(WriterConfig.DEFAULT.maxOutstandingBytes(),
                WriterConfig.DEFAULT.backpressureTimeout(), WriterConfig.DEFAULT.retry(), WriterConfig.MAX_BLOCK_BYTES + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one append frame");
    }

    @Test
    void perKeyOrderHoldsAcrossAScaleUpAndDownWhileWriting() throws Exception {
        createStream(2);
        int keys = 32;
        int perKey = 600;
        try (EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8());
             ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<?> producing = exec.submit(() -> {
                for (int i = 0; i < perKey; i++) {
                    for (int k = 0; k < keys; k++) {
                        writer.write("k" + k, "k" + k + ":" + i);
                    }
                }
            });
            // split segment 0 into two, then merge everything back into one, while events flow
            List<SegmentWithRange> current = controller.currentSegments(STREAM).ranges();
            SegmentWithRange first = current.get(0);
            double mid = (first.low() + first.high()) / 2;
            controller.scale(STREAM, List.of(first.segment()), List.of(new KeyRange(first.low(), mid), new KeyRange(mid, first.high())));
            List<SegmentWithRange> afterSplit = controller.currentSegments(STREAM).ranges();
            controller.scale(STREAM, afterSplit.stream().map(SegmentWithRange::segment).toList(), List.of(new KeyRange(0, 1)));
            producing.get(60, TimeUnit.SECONDS);
            writer.flush();
        }
        // per key, the events of all segments, read in the order a reader would (predecessors before successors)
        Map<Segment, List<String>> contents = contents();
        Map<String, List<Integer>> byKey = new HashMap<>();
        List<Segment> order = new ArrayList<>(contents.keySet());
        order.sort((a, b) -> a.epoch() != b.epoch() ? Integer.compare(a.epoch(), b.epoch()) : a.compareTo(b));
        for (Segment s : order) {
            for (String event : contents.get(s)) {
                String key = event.substring(0, event.indexOf(':'));
                byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(Integer.parseInt(event.substring(event.indexOf(':') + 1)));
            }
        }
        assertThat(byKey).hasSize(keys);
        for (Map.Entry<String, List<Integer>> e : byKey.entrySet()) {
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < perKey; i++) {
                expected.add(i);
            }
            assertThat(e.getValue()).as("events of %s: all once, in order", e.getKey()).isEqualTo(expected);
        }
    }

    /** @return a routing key that falls in {@code range} */
    private static String keyIn(SegmentWithRange range) {
        for (int i = 0; ; i++) {
            if (range.contains(KeyHash.routingKey("key-" + i))) {
                return "key-" + i;
            }
        }
    }

    /**
     * A writer starts the writer of a segment (its threads, its append session) on the first event for it: a writer
     * of one key on a stream of many segments connects to one. A segment split before the writer first used it (the
     * writer never saw the scale) takes no event: the first event for it follows to the successor.
     */
    @Test
    void segmentWritersStartOnFirstUseAndAnUnusedSegmentThatEndedPassesItsKeysOn() {
        createStream(4);
        List<SegmentWithRange> ranges = controller.currentSegments(STREAM).ranges();
        SegmentWithRange used = ranges.get(0);
        SegmentWithRange unused = ranges.get(2);
        try (EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            EventStreamWriterImpl<String> impl = (EventStreamWriterImpl<String>) writer;
            assertThat(impl.startedSegmentWriters()).isZero();
            writer.writeAndWait(keyIn(used), "first");
            assertThat(impl.startedSegmentWriters()).isEqualTo(1);
            double mid = (unused.low() + unused.high()) / 2;
            controller.scale(STREAM, List.of(unused.segment()), List.of(new KeyRange(unused.low(), mid),
                    new KeyRange(mid, unused.high())));
            String key = keyIn(unused);
            writer.writeAndWait(key, "after the split");
            assertThat(impl.startedSegmentWriters()).as("the first segment's and one successor's").isEqualTo(2);
        }
        Map<Segment, List<String>> contents = contents();
        assertThat(contents.get(used.segment())).containsExactly("first");
        assertThat(contents.get(unused.segment())).as("the sealed segment took nothing").isEmpty();
        assertThat(contents.entrySet().stream().filter(e -> e.getKey().epoch() == 1)
                .flatMap(e -> e.getValue().stream()).toList()).containsExactly("after the split");
    }

    @Test
    void sealedStreamRefusesWrites() {
        createStream(1);
        try (EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            writer.writeAndWait("k", "before");
            controller.sealStream(STREAM);
            assertThatThrownBy(() -> writer.writeAndWait("k", "after")).isInstanceOf(SegmentSealedException.class)
                    .hasMessageContaining("sealed");
        }
    }

    /**
     * A segment the store says is sealed while the controller knows no successors for it (a real store never does
     * that; a spoilt reply can look so): its keys go nowhere, and its events never move to a neighbouring segment,
     * which would write them twice (the segment holds those it took) or in the wrong segment. The reply fuzz test
     * found events twice in the stream that way (seed 2363085833).
     */
    @Test
    void aSegmentEndedWithoutSuccessorsHandsItsKeysToNoOtherSegment() {
        createStream(2);
        List<SegmentWithRange> ranges = controller.currentSegments(STREAM).ranges();
        SegmentWithRange first = ranges.stream().filter(r -> r.low() == 0.0).findFirst().orElseThrow();
        SegmentWithRange second = ranges.stream().filter(r -> r.low() > 0.0).findFirst().orElseThrow();
        String inFirst = null;
        String inSecond = null;
        for (int i = 0; inFirst == null || inSecond == null; i++) {
            double h = KeyHash.routingKey("key-" + i);
            if (h < first.high() && inFirst == null) {
                inFirst = "key-" + i;
            } else if (h >= second.low() && inSecond == null) {
                inSecond = "key-" + i;
            }
        }
        String a = inFirst;
        String b = inSecond;
        try (EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            writer.writeAndWait(a, "a-before");
            writer.writeAndWait(b, "b-before");
            assertThat(server.segmentStore().sealSegment(first.segment().qualifiedName())).isTrue();
            assertThatThrownBy(() -> writer.writeAndWait(a, "a-after")).isInstanceOf(SegmentSealedException.class)
                    .hasMessageContaining("sealed");
            assertThatThrownBy(() -> writer.writeAndWait(a, "a-later")).isInstanceOf(SegmentSealedException.class)
                    .hasMessageContaining("no segment takes key " + a);
            writer.writeAndWait(b, "b-after");
        }
        Map<Segment, List<String>> contents = contents();
        assertThat(contents.get(first.segment())).containsExactly("a-before");
        assertThat(contents.get(second.segment())).as("the other segment takes none of the first's keys")
                .containsExactly("b-before", "b-after");
    }
}
