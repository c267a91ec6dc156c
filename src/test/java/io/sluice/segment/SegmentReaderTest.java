package io.sluice.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.sluice.common.Await;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.server.SegmentStore;
import io.sluice.server.SegmentStoreServer;
import io.sluice.server.TokenVerifier;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.Padding;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.WireOutput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The prefetching segment reader against the embedded segment store. */
@Timeout(60)
class SegmentReaderTest {
    private static final String SEG = "scope/stream/0.#epoch.0";

    private SegmentStore store;
    private SegmentStoreServer server;
    private ConnectionPool pool;
    private final LinkedBlockingQueue<SegmentReader> ready = new LinkedBlockingQueue<>();
    private final List<SegmentReader> readers = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        store = SegmentStore.inMemory(1);
        server = new SegmentStoreServer(store, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null, TokenVerifier.ACCEPT_ALL);
        pool = new ConnectionPool(new TcpConnectionFactory());
        store.createSegment(SEG, (byte) 0, 0, 0);
    }

    @AfterEach
    void stop() {
        readers.forEach(SegmentReader::close);
        pool.close();
        server.close();
    }

    private void write(String segment, int from, int count, int size) throws Exception {
        try (SegmentWriter w = new SegmentWriter(segment, UUID.randomUUID(), pool, SegmentLocator.fixed(server.endpoint()),
                () -> null, SegmentWriter.Config.DEFAULT, (s, u) -> { })) {
            List<CompletableFuture<Void>> acks = new ArrayList<>();
            for (int i = from; i < from + count; i++) {
                String body = ("event-" + i + "-").repeat(Math.max(1, size / 10));
                PendingEvent e = PendingEvent.of(null, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)));
                w.write(e);
                acks.add(e.future());
            }
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        }
    }

    private SegmentReader reader(String segment, long from, long to, int buffer) {
        SegmentReader r = new SegmentReader(segment, from, to, pool, SegmentLocator.fixed(server.endpoint()), () -> null,
                new SegmentReader.Config(buffer, SegmentReader.Config.DEFAULT.retry()), ready::add);
        readers.add(r);
        return r;
    }

    /** Takes events until {@code n} were read, waiting on the ready queue between bursts. */
    private List<SegmentReader.ReadEvent> take(SegmentReader r, int n) throws InterruptedException {
        List<SegmentReader.ReadEvent> out = new ArrayList<>();
        while (out.size() < n) {
            SegmentReader.ReadEvent e = r.next();
            if (e != null) {
                out.add(e);
            } else if (!r.isFinished()) {
                assertThat(ready.poll(30, TimeUnit.SECONDS)).as("reader signals new data").isNotNull();
            } else {
                break;
            }
        }
        return out;
    }

    private static String text(SegmentReader.ReadEvent e) {
        return StandardCharsets.UTF_8.decode(e.payload().duplicate()).toString();
    }

    @Test
    void readsEventsSpanningManyRepliesWithASmallBuffer() throws Exception {
        write(SEG, 0, 2000, 100);
        SegmentReader r = reader(SEG, 0, Long.MAX_VALUE, 1024);
        List<SegmentReader.ReadEvent> events = take(r, 2000);
        assertThat(events).hasSize(2000);
        long offset = 0;
        for (int i = 0; i < 2000; i++) {
            assertThat(text(events.get(i))).startsWith("event-" + i + "-");
            assertThat(events.get(i).offset()).isEqualTo(offset);
            offset = events.get(i).nextOffset();
        }
        assertThat(r.position()).isEqualTo(offset);
        assertThat(r.next()).isNull();
        assertThat(r.isFinished()).isFalse();
    }

    @Test
    void theWindowGrowsToTheBufferWhileTheConsumerWaitsOnASegmentWithMoreData() throws Exception {
        write(SEG, 0, 400, 10 * 1024);   // about 4 MiB
        SegmentReader r = reader(SEG, 0, Long.MAX_VALUE, 1024 * 1024);
        assertThat(r.window()).as("an event reader starts small").isEqualTo(SegmentReader.Config.START_WINDOW_BYTES);
        List<SegmentReader.ReadEvent> events = take(r, 400);
        assertThat(events).hasSize(400);
        assertThat(text(events.get(399))).startsWith("event-399-");
        assertThat(r.window()).as("a consumer that drains every read grows it to the buffer").isEqualTo(1024 * 1024);
    }

    @Test
    void theWindowStaysWhereItStartsAtTheTail() throws Exception {
        write(SEG, 0, 5, 100);
        SegmentReader r = reader(SEG, 0, Long.MAX_VALUE, 1024 * 1024);
        assertThat(take(r, 5)).hasSize(5);
        assertThat(r.next()).isNull();   // the consumer waits, at the tail
        write(SEG, 5, 5, 100);
        assertThat(take(r, 5)).hasSize(5);
        assertThat(r.window()).as("reads that reach the tail do not grow it").isEqualTo(
                SegmentReader.Config.START_WINDOW_BYTES);
    }

    @Test
    void aBufferNoLargerThanTheStartWindowIsTheWindow() throws Exception {
        write(SEG, 0, 100, 10 * 1024);
        SegmentReader r = reader(SEG, 0, Long.MAX_VALUE, 64 * 1024);
        assertThat(r.window()).isEqualTo(64 * 1024);
        assertThat(take(r, 100)).hasSize(100);
        assertThat(r.window()).isEqualTo(64 * 1024);
    }

    @Test
    void anEventLargerThanTheBufferIsReadWhole() throws Exception {
        write(SEG, 0, 3, 100);
        write(SEG, 3, 1, 3 * 1024 * 1024);
        write(SEG, 4, 2, 100);
        // a 1 KiB prefetch window and a 3 MiB event: the reader must fetch past its window to complete the event
        SegmentReader r = reader(SEG, 0, Long.MAX_VALUE, 1024);
        List<SegmentReader.ReadEvent> events = take(r, 6);
        assertThat(events).hasSize(6);
        for (int i = 0; i < 6; i++) {
            assertThat(text(events.get(i))).startsWith("event-" + i + "-");
        }
        assertThat(events.get(3).payload().remaining()).isEqualTo("event-3-".length() * (3 * 1024 * 1024 / 10));
    }

    @Test
    void waitsAtTheTailAndWakesOnNewData() throws Exception {
        SegmentReader r = reader(SEG, 0, Long.MAX_VALUE, 64 * 1024);
        assertThat(r.next()).isNull();
        write(SEG, 0, 1, 10);
        assertThat(ready.poll(30, TimeUnit.SECONDS)).isSameAs(r);
        assertThat(text(r.next())).startsWith("event-0-");
    }

    @Test
    void sealedSegmentFinishes() throws Exception {
        write(SEG, 0, 3, 10);
        SegmentReader r = reader(SEG, 0, Long.MAX_VALUE, 64 * 1024);
        assertThat(take(r, 3)).hasSize(3);
        store.sealSegment(SEG);
        while (!r.isFinished()) {
            assertThat(ready.poll(30, TimeUnit.SECONDS)).isNotNull();
        }
        assertThat(r.next()).isNull();
    }

    @Test
    void endOffsetBoundsTheRead() throws Exception {
        write(SEG, 0, 10, 10);
        SegmentReader all = reader(SEG, 0, Long.MAX_VALUE, 64 * 1024);
        List<SegmentReader.ReadEvent> events = take(all, 10);
        long cut = events.get(4).nextOffset();
        SegmentReader bounded = reader(SEG, events.get(2).offset(), cut, 64 * 1024);
        List<SegmentReader.ReadEvent> some = take(bounded, 100);
        assertThat(some).extracting(SegmentReaderTest::text).hasSize(3).allSatisfy(t -> assertThat(t).startsWith("event-"));
        assertThat(text(some.get(0))).startsWith("event-2-");
        assertThat(bounded.isFinished()).isTrue();
    }

    @Test
    void hadMoreSaysWhetherAnotherEventOrTheEndIsBuffered() throws Exception {
        write(SEG, 0, 3, 100);
        // the three events arrive in one reply: once the reader signals, all of them are buffered
        SegmentReader open = reader(SEG, 0, Long.MAX_VALUE, 64 * 1024);
        assertThat(ready.poll(30, TimeUnit.SECONDS)).isSameAs(open);
        assertThat(text(open.next())).startsWith("event-0-");
        assertThat(open.hadMore()).isTrue();
        assertThat(text(open.next())).startsWith("event-1-");
        assertThat(open.hadMore()).isTrue();
        SegmentReader.ReadEvent last = open.next();
        assertThat(text(last)).startsWith("event-2-");
        assertThat(open.hadMore()).as("nothing after the last event of an open segment").isFalse();
        assertThat(open.hasSomething()).isFalse();

        // a bounded read: after its last event the end counts (the next call finds it)
        SegmentReader bounded = reader(SEG, 0, last.nextOffset(), 64 * 1024);
        assertThat(ready.poll(30, TimeUnit.SECONDS)).isSameAs(bounded);
        bounded.next();
        bounded.next();
        assertThat(text(bounded.next())).startsWith("event-2-");
        assertThat(bounded.hadMore()).isTrue();
        assertThat(bounded.next()).isNull();
        assertThat(bounded.isFinished()).isTrue();
    }

    @Test
    void truncatedDataIsASignalNotAHang() throws Exception {
        write(SEG, 0, 10, 10);
        store.truncateSegment(SEG, store.segmentInfo(SEG).orElseThrow().length());
        SegmentReader r = reader(SEG, 0, Long.MAX_VALUE, 64 * 1024);
        assertThat(ready.poll(30, TimeUnit.SECONDS)).isSameAs(r);
        assertThatThrownBy(r::next).isInstanceOf(SegmentTruncatedException.class).hasMessageContaining(SEG);
    }

    @Test
    void manyIdleSegmentsDoNotDelayABusyOne() throws Exception {
        List<SegmentReader> idle = new ArrayList<>();
        for (int i = 0; i < 199; i++) {
            String s = "scope/stream/" + (i + 1) + ".#epoch.0";
            store.createSegment(s, (byte) 0, 0, 0);
            idle.add(reader(s, 0, Long.MAX_VALUE, 64 * 1024));
        }
        SegmentReader busy = reader(SEG, 0, Long.MAX_VALUE, 64 * 1024);
        write(SEG, 0, 5, 10);
        assertThat(ready.poll(30, TimeUnit.SECONDS)).isSameAs(busy);
        assertThat(take(busy, 5)).hasSize(5);
        assertThat(idle).allSatisfy(r -> assertThat(r.hasSomething()).isFalse());
    }

    /**
     * A segment store that answers every read with at most 5 bytes: each event reaches the reader split between
     * replies, headers included; after the events come bytes that are no event.
     */
    @Test
    void eventsSplitBetweenRepliesAreJoinedAndBytesThatHoldNoEventFailTheReader() throws Exception {
        WireOutput data = new WireOutput();
        for (String e : List.of("alpha", "", "gamma-gamma")) {
            data.writeEventFrame(ByteBuffer.wrap(e.getBytes(StandardCharsets.UTF_8)));
        }
        FrameCodec.encode(new Padding(4), data);
        byte[] segmentBytes = data.toByteArray();
        try (ScriptedSegmentStore fake = new ScriptedSegmentStore((conn, request, peer) -> {
            if (request instanceof ReadSegment r && r.offset() < segmentBytes.length) {
                // at the end no answer comes, as from a long poll at the tail
                int at = (int) r.offset();
                int n = Math.min(5, Math.min(r.suggestedLength(), segmentBytes.length - at));
                peer.send(new SegmentRead(r.segment(), r.offset(), false, false, ByteBuffer.wrap(segmentBytes, at, n),
                        r.requestId()));
            }
        })) {
            SegmentReader r = new SegmentReader(SEG, 0, Long.MAX_VALUE, pool, SegmentLocator.fixed(fake.endpoint()),
                    () -> null, new SegmentReader.Config(1024, SegmentReader.Config.DEFAULT.retry()), ready::add);
            readers.add(r);
            List<SegmentReader.ReadEvent> events = take(r, 3);
            assertThat(events).extracting(SegmentReaderTest::text).containsExactly("alpha", "", "gamma-gamma");
            assertThat(events).extracting(SegmentReader.ReadEvent::offset).containsExactly(0L, 13L, 21L);
            assertThat(r.position()).isEqualTo(40);
            while (!r.hasSomething()) {
                assertThat(ready.poll(30, TimeUnit.SECONDS)).as("the reader signals its failure").isNotNull();
            }
            assertThatThrownBy(r::next).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("segment " + SEG + " holds no event at offset 40")
                    .hasMessageContaining("type code -1, length 4");
        }
    }

    /**
     * Without {@link SegmentReader.Config#fetchLargeAhead} a reader holds at most its window of an event larger than
     * the window until the consumer asks for the event (as the batch client's iterator reads), so a consumer that
     * handles one event at a time never holds two large events at once.
     */
    @Test
    void withoutFetchLargeAheadALargeEventIsFetchedOnlyOnceAskedFor() throws Exception {
        int window = 16 * 1024;
        write(SEG, 0, 3, 1024 * 1024);
        SegmentReader r = new SegmentReader(SEG, 0, Long.MAX_VALUE, pool, SegmentLocator.fixed(server.endpoint()),
                () -> null, new SegmentReader.Config(window, SegmentReader.Config.DEFAULT.retry(), false), ready::add);
        readers.add(r);
        for (int i = 0; i < 3; i++) {
            Await.until("the reader holds back event " + i, r::waitsForDemand);
            assertThat(r.available()).as("bytes held before event %d is asked for", i).isLessThanOrEqualTo(window);
            assertThat(r.hasSomething()).isFalse();
            List<SegmentReader.ReadEvent> e = take(r, 1);
            assertThat(e).hasSize(1);
            assertThat(e.get(0).payload().remaining()).isGreaterThan(window);
            assertThat(text(e.get(0))).startsWith("event-" + i + "-");
        }
        assertThat(r.next()).isNull();
        assertThat(r.waitsForDemand()).isFalse();
    }

    @Test
    void byDefaultALargeEventIsFetchedWholeAhead() throws Exception {
        write(SEG, 0, 3, 1024 * 1024);
        SegmentReader r = reader(SEG, 0, Long.MAX_VALUE, 16 * 1024);
        Await.until("the first event fetched whole", r::hasSomething);
        assertThat(r.available()).isGreaterThan(800 * 1024);
        assertThat(r.waitsForDemand()).isFalse();
        List<SegmentReader.ReadEvent> events = take(r, 3);
        for (int i = 0; i < 3; i++) {
            assertThat(text(events.get(i))).startsWith("event-" + i + "-");
        }
    }
}
