package io.sluice.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static io.sluice.batch.BatchReads.event;
import static io.sluice.batch.BatchReads.events;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.client.SluiceClient;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.StreamCut;
import io.sluice.common.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The batch client against the embedded server. */
@Timeout(120)
class BatchClientTest {
    private static final String SCOPE = "batch";
    private static final int FRAMED = BatchReads.FRAMED;

    private EmbeddedServer server;
    private SluiceClient client;
    private BatchClient batch;
    private ExecutorService threads;

    @BeforeEach
    void start() {
        server = EmbeddedServer.builder().inMemory().build();
        client = SluiceClient.connect(server.controllerUri());
        client.streamManager().createScope(SCOPE);
        batch = client.batchClient();
        threads = Executors.newVirtualThreadPerTaskExecutor();
    }

    @AfterEach
    void stop() {
        threads.shutdownNow();
        client.close();
        server.close();
    }

    private ScopedStream create(String name, int segments) {
        client.streamManager().createStream(SCOPE, name, StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(segments)).build());
        return ScopedStream.of(SCOPE, name);
    }

    private void write(ScopedStream stream, int from, int to) {
        BatchReads.write(client, stream, from, to);
    }

    private StreamCut tail(ScopedStream stream) {
        return client.streamManager().streamInfo(stream.scope(), stream.name()).tail();
    }

    private List<String> readAll(SegmentRange range) {
        return BatchReads.readAll(batch, range);
    }

    private List<String> readParallel(List<SegmentRange> ranges) throws Exception {
        return BatchReads.readParallel(batch, ranges, threads);
    }

    @Test
    void headToTailRangesReadInParallelGiveExactlyTheWrittenEvents() throws Exception {
        ScopedStream s = create("whole", 4);
        write(s, 0, 500);
        List<SegmentRange> ranges = batch.segments(s, StreamCut.UNBOUNDED, StreamCut.UNBOUNDED);
        assertThat(ranges).hasSize(4);
        assertThat(ranges).allSatisfy(r -> assertThat(r.startOffset()).isZero());
        assertThat(ranges.stream().mapToLong(SegmentRange::length).sum()).isEqualTo(500L * FRAMED);
        assertThat(readParallel(ranges)).isEqualTo(events(0, 500));
        // the ranges of the head and tail cuts are the same
        StreamCut head = client.streamManager().streamInfo(SCOPE, "whole").head();
        assertThat(batch.segments(s, head, tail(s))).isEqualTo(ranges);
    }

    @Test
    void rangesBetweenCutsSpanTheEpochsOfAScale() throws Exception {
        ScopedStream s = create("scaled", 1);
        write(s, 0, 10);
        StreamCut first = tail(s);
        write(s, 10, 20);
        Segment old = client.streamManager().currentSegments(SCOPE, "scaled").get(0).segment();
        client.streamManager().scaleStream(SCOPE, "scaled", List.of(old),
                List.of(new KeyRange(0.0, 0.5), new KeyRange(0.5, 1.0)));
        write(s, 20, 30);
        StreamCut second = tail(s);
        write(s, 30, 40);

        List<SegmentRange> between = batch.segments(s, first, second);
        assertThat(between).hasSize(3);
        assertThat(between.get(0)).isEqualTo(new SegmentRange(old, 10L * FRAMED, 20L * FRAMED));
        assertThat(between.subList(1, 3)).allSatisfy(r -> assertThat(r.segment().epoch()).isEqualTo(1));
        assertThat(readParallel(between)).isEqualTo(events(10, 30));

        assertThat(readParallel(batch.segments(s, StreamCut.UNBOUNDED, first))).isEqualTo(events(0, 10));
        assertThat(readParallel(batch.segments(s, first, StreamCut.UNBOUNDED))).isEqualTo(events(10, 40));
        assertThat(readParallel(batch.segments(s, second, StreamCut.UNBOUNDED))).isEqualTo(events(30, 40));
        assertThat(readParallel(batch.segments(s, StreamCut.UNBOUNDED, StreamCut.UNBOUNDED)))
                .isEqualTo(events(0, 40));
    }

    @Test
    void aRangeTakenAtTheTailWhileAWriterRacesEndsExactlyThere() throws Exception {
        ScopedStream s = create("racing", 1);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger written = new AtomicInteger();
        Future<?> writer = threads.submit(() -> {
            try (EventStreamWriter<String> w = client.newWriter(SCOPE, "racing", Serializers.utf8())) {
                for (int i = 0; !stop.get(); i++) {
                    w.writeAndWait("k", event(i));
                    written.incrementAndGet();
                }
            }
            return null;
        });
        Await.until("some events written", () -> written.get() >= 50);
        SegmentRange range = batch.segments(s, StreamCut.UNBOUNDED, StreamCut.UNBOUNDED).get(0);
        Await.until("more events written after the range", () -> written.get() * (long) FRAMED
                >= range.endOffset() + 20L * FRAMED);
        List<String> read = readAll(range);
        stop.set(true);
        writer.get();
        assertThat(range.endOffset() % FRAMED).isZero();
        assertThat(read).isEqualTo(events(0, (int) (range.endOffset() / FRAMED)));
    }

    @Test
    void closingMidRangeStopsTheIterator() {
        ScopedStream s = create("closing", 1);
        write(s, 0, 1000);
        SegmentRange range = batch.segments(s, StreamCut.UNBOUNDED, StreamCut.UNBOUNDED).get(0);
        SegmentIterator<String> it = batch.readSegment(range, Serializers.utf8());
        for (int i = 0; i < 10; i++) {
            assertThat(it.next()).isEqualTo(event(i));
        }
        assertThat(it.offset()).isEqualTo(10L * FRAMED);
        it.close();
        it.close();
        assertThat(it.hasNext()).isFalse();
        assertThatThrownBy(it::next).isInstanceOf(java.util.NoSuchElementException.class);
        // another iterator of the same range is unaffected; so is one of a middle part
        assertThat(readAll(range)).isEqualTo(events(0, 1000));
        assertThat(readAll(new SegmentRange(range.segment(), 100L * FRAMED, 200L * FRAMED)))
                .isEqualTo(events(100, 200));
    }

    @Test
    void nextStreamCutMovesToEventBoundaries() throws Exception {
        ScopedStream s = create("cuts", 1);
        write(s, 0, 100);
        StreamCut head = client.streamManager().streamInfo(SCOPE, "cuts").head();
        Segment seg = head.positions().firstKey();
        assertThat(batch.nextStreamCut(head, 1).positions()).containsEntry(seg, (long) FRAMED);
        assertThat(batch.nextStreamCut(head, FRAMED).positions()).containsEntry(seg, (long) FRAMED);
        assertThat(batch.nextStreamCut(head, FRAMED + 1).positions()).containsEntry(seg, 2L * FRAMED);
        assertThat(batch.nextStreamCut(head, 1000).positions()).containsEntry(seg, 67L * FRAMED);
        assertThat(batch.nextStreamCut(head, Long.MAX_VALUE).positions()).containsEntry(seg, 100L * FRAMED);
        StreamCut tail = tail(s);
        assertThat(batch.nextStreamCut(tail, 100)).isEqualTo(tail);

        // walking the stream cut by cut reads every event exactly once
        List<String> all = new ArrayList<>();
        StreamCut at = head;
        for (int steps = 0; !at.equals(tail); steps++) {
            assertThat(steps).as("steps to the tail").isLessThan(100);
            StreamCut next = batch.nextStreamCut(at, 100);
            assertThat(next.positions().get(seg)).isGreaterThan(at.positions().get(seg));
            all.addAll(readParallel(batch.segments(s, at, next)));
            at = next;
        }
        assertThat(all).isEqualTo(events(0, 100));
    }

    @Test
    void nextStreamCutSplitsTheDistanceOverTheSegments() {
        ScopedStream s = create("split", 2);
        write(s, 0, 400);
        StreamCut head = client.streamManager().streamInfo(SCOPE, "split").head();
        StreamCut next = batch.nextStreamCut(head, 20L * FRAMED);
        assertThat(next.positions().keySet()).isEqualTo(head.positions().keySet());
        assertThat(next.positions().values()).allSatisfy(o -> assertThat(o).isEqualTo(10L * FRAMED));
    }

    @Test
    void badArgumentsAreRefusedByName() {
        ScopedStream s = create("bad", 1);
        ScopedStream other = create("other", 1);
        write(s, 0, 3);
        StreamCut otherHead = client.streamManager().streamInfo(SCOPE, "other").head();
        assertThatThrownBy(() -> batch.segments(s, otherHead, StreamCut.UNBOUNDED))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("from").hasMessageContaining("bad");
        assertThatThrownBy(() -> batch.segments(s, StreamCut.UNBOUNDED, otherHead))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("to");
        assertThatThrownBy(() -> batch.segments(null, StreamCut.UNBOUNDED, StreamCut.UNBOUNDED))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("stream");
        StreamCut tail = tail(s);
        assertThatThrownBy(() -> batch.segments(s, tail, client.streamManager().streamInfo(SCOPE, "bad").head()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("before");
        assertThatThrownBy(() -> batch.nextStreamCut(StreamCut.UNBOUNDED, 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bounded");
        assertThatThrownBy(() -> batch.nextStreamCut(tail, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("approximateDistanceBytes");
        Segment seg = tail.positions().firstKey();
        assertThatThrownBy(() -> new SegmentRange(seg, 5, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("endOffset");
        assertThatThrownBy(() -> new SegmentRange(seg, -1, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("startOffset");
        assertThatThrownBy(() -> batch.readSegment(null, Serializers.utf8()))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("range");
        assertThat(other).isNotEqualTo(s);
    }
}
