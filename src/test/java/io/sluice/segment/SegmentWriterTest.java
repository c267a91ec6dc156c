package io.sluice.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.sluice.common.Deadline;
import io.sluice.common.Retry;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.RawClient;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.errors.RetriesExhaustedException;
import io.sluice.server.SegmentStore;
import io.sluice.server.SegmentStoreServer;
import io.sluice.server.TokenVerifier;
import io.sluice.wire.AppendBlock;
import io.sluice.wire.AppendBlockEnd;
import io.sluice.wire.AppendSetup;
import io.sluice.wire.Bytes;
import io.sluice.wire.DataAppended;
import io.sluice.wire.EventFrames;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.InvalidEventNumber;
import io.sluice.wire.PravegaAppends;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.WireProtocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The segment writer against the embedded segment store: batching, acks, reconnects, seals. */
@Timeout(60)
class SegmentWriterTest {
    private static final String SEG = "scope/stream/0.#epoch.0";
    /** A fresh deadline for each wait: a static one would expire while the class runs. */
    private static Deadline longWait() {
        return Deadline.after(Duration.ofSeconds(50));
    }

    private SegmentStore store;
    private SegmentStoreServer server;
    private ConnectionPool pool;
    private final List<List<PendingEvent>> ended = new CopyOnWriteArrayList<>();
    private final CountDownLatch endedLatch = new CountDownLatch(1);

    @BeforeEach
    void start() throws IOException {
        store = SegmentStore.inMemory(1);
        server = new SegmentStoreServer(store, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null, TokenVerifier.ACCEPT_ALL);
        pool = new ConnectionPool(new TcpConnectionFactory());
        store.createSegment(SEG, (byte) 0, 0, 0);
    }

    @AfterEach
    void stop() {
        pool.close();
        server.close();
    }

    private SegmentWriter writer(UUID id) {
        return new SegmentWriter(SEG, id, pool, SegmentLocator.fixed(server.endpoint()), () -> null,
                SegmentWriter.Config.DEFAULT, (segment, unacked) -> {
                    ended.add(unacked);
                    endedLatch.countDown();
                });
    }

    private static PendingEvent event(String s) {
        return PendingEvent.of(null, ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)));
    }

    private List<String> readAll() {
        List<String> out = new ArrayList<>();
        RawClient raw = new RawClient(pool);
        long offset = 0;
        long length = store.segmentInfo(SEG).orElseThrow().length();
        while (offset < length) {
            long at = offset;
            SegmentRead r = raw.call(server.endpoint(), id -> new ReadSegment(SEG, at, 1 << 20, "", id), SegmentRead.class, longWait());
            offset += EventFrames.forEach(r.data(), e -> out.add(StandardCharsets.UTF_8.decode(e).toString()));
        }
        return out;
    }

    @Test
    void writesEveryEventOnceInOrder() throws Exception {
        try (SegmentWriter w = writer(UUID.randomUUID())) {
            List<CompletableFuture<Void>> acks = new ArrayList<>();
            for (int i = 0; i < 5000; i++) {
                PendingEvent e = event("e" + i);
                assertThat(w.write(e)).isTrue();
                acks.add(e.future());
            }
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        }
        List<String> events = readAll();
        assertThat(events).hasSize(5000);
        for (int i = 0; i < 5000; i++) {
            assertThat(events.get(i)).isEqualTo("e" + i);
        }
    }

    /**
     * Awaited writes find the writer idle and write their block from the caller's thread; pipelined writes from other
     * threads meanwhile go through the flusher. Whichever way a block goes, the segment store must get them in
     * event-number order: one that overtook another would make the store drop the other as a duplicate.
     */
    @Test
    void directWritesAndFlusherBlocksFromManyThreadsAllLandInOrder() throws Exception {
        int threads = 8;
        int perThread = 400;
        try (SegmentWriter w = writer(UUID.randomUUID());
             ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(exec.submit(() -> {
                    List<CompletableFuture<Void>> acks = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        PendingEvent e = event(thread + ":" + i);
                        assertThat(w.write(e)).isTrue();
                        if (thread % 2 == 0 || i % 50 == 0) {
                            e.future().get(30, TimeUnit.SECONDS);
                        } else {
                            acks.add(e.future());
                        }
                    }
                    CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(50, TimeUnit.SECONDS);
            }
        }
        List<String> events = readAll();
        assertThat(events).hasSize(threads * perThread).doesNotHaveDuplicates();
        for (int t = 0; t < threads; t++) {
            String prefix = t + ":";
            List<Integer> order = events.stream().filter(e -> e.startsWith(prefix))
                    .map(e -> Integer.parseInt(e.substring(prefix.length()))).toList();
            assertThat(order).as("thread %d's events in the order written", t).isSorted().hasSize(perThread);
        }
    }

    @Test
    void atomicBatchesStayTogether() throws Exception {
        try (SegmentWriter w = writer(UUID.randomUUID())) {
            PendingEvent batch = new PendingEvent("k", List.of(ByteBuffer.wrap("a".getBytes()), ByteBuffer.wrap("b".getBytes())));
            w.write(batch);
            batch.future().get(30, TimeUnit.SECONDS);
        }
        assertThat(readAll()).containsExactly("a", "b");
    }

    @Test
    void exactlyOnceAcrossDroppedConnections() throws Exception {
        int n = 20_000;
        List<CompletableFuture<Void>> acks = new ArrayList<>();
        try (SegmentWriter w = writer(UUID.randomUUID())) {
            for (int i = 0; i < n; i++) {
                PendingEvent e = event("event-" + i);
                w.write(e);
                acks.add(e.future());
                if (i % 2500 == 1000) {
                    // cut every connection while blocks are in flight; the writer must resume without loss or duplicates
                    server.dropConnections();
                }
            }
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(50, TimeUnit.SECONDS);
        }
        List<String> events = readAll();
        assertThat(events).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(events.get(i)).isEqualTo("event-" + i);
        }
    }

    @Test
    void aSegmentStoreClosingOnEveryResendFailsTheWriterAfterItsRetriesNotEndlessly() throws Exception {
        // what a real Pravega segment store does with a frame it refuses: the session is set up, the append closes
        // the connection. Without a bound the writer reconnected and resent thousands of times, and flush never ended.
        try (ScriptedSegmentStore fake = new ScriptedSegmentStore((conn, request, peer) -> {
            if (request instanceof SetupAppend s) {
                peer.send(new AppendSetup(s.requestId(), SEG, s.writerId(), WireProtocol.NULL_ATTRIBUTE_VALUE));
            } else {
                peer.hangUp();
            }
        })) {
            Retry quick = Retry.withExpBackoff(Duration.ofMillis(1), 2, 4, Duration.ofMillis(20));
            SegmentWriter w = new SegmentWriter(SEG, UUID.randomUUID(), pool, SegmentLocator.fixed(fake.endpoint()),
                    () -> null, new SegmentWriter.Config(quick, 1024 * 1024, Duration.ofSeconds(10)), (s, u) -> { });
            PendingEvent poison = event("poison");
            w.write(poison);
            assertThatThrownBy(() -> poison.future().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(RetriesExhaustedException.class).hasMessageContaining("4 times in a row");
            assertThat(fake.connections()).as("one connection per attempt").isEqualTo(4);
            assertThatThrownBy(() -> w.write(event("more"))).isInstanceOf(RetriesExhaustedException.class);
            w.close();
        }
    }

    @Test
    void anEventNumberTheSegmentStoreRejectsSetsTheSessionUpAgainAndNothingIsLostOrDuplicated() throws Exception {
        // a real segment store answers InvalidEventNumber and closes the connection when the writer's last event
        // number moved under the session (NetworkFaultsCompatTest met it: the writer failed for good, and every later
        // write to its segment with it); here the first session's append is refused that way after the store took
        // the first event, and the second session says so
        AtomicLong stored = new AtomicLong(WireProtocol.NULL_ATTRIBUTE_VALUE);
        AtomicLong length = new AtomicLong();
        List<Long> appended = new CopyOnWriteArrayList<>();
        try (ScriptedSegmentStore fake = new ScriptedSegmentStore((conn, request, peer) -> {
            switch (request) {
                case SetupAppend s -> peer.send(new AppendSetup(s.requestId(), SEG, s.writerId(), stored.get()));
                case AppendBlockEnd e when conn == 1 -> {
                    stored.set(1); // the first event landed, as if from an earlier connection
                    length.addAndGet(e.sizeOfWholeEvents());
                    peer.send(new InvalidEventNumber(e.writerId(), e.requestId(), "", e.lastEventNumber(), false));
                    peer.hangUp();
                }
                case AppendBlockEnd e -> {
                    appended.add(e.lastEventNumber());
                    peer.send(new DataAppended(e.requestId(), e.writerId(), e.lastEventNumber(),
                            stored.getAndSet(e.lastEventNumber()), length.addAndGet(e.sizeOfWholeEvents())));
                }
                default -> { }
            }
        })) {
            try (SegmentWriter w = new SegmentWriter(SEG, UUID.randomUUID(), pool,
                    SegmentLocator.fixed(fake.endpoint()), () -> null, SegmentWriter.Config.DEFAULT, (s, u) -> { })) {
                PendingEvent first = event("first");
                assertThat(w.queue(first)).isTrue();
                first.future().get(30, TimeUnit.SECONDS);
                PendingEvent second = event("second");
                assertThat(w.write(second)).isTrue();
                second.future().get(30, TimeUnit.SECONDS);
            }
            assertThat(fake.connections()).isEqualTo(2);
            // the first event was not sent again: the second session started after the store's number
            assertThat(appended).containsExactly(2L);
        }
    }

    @Test
    void sealedSegmentHandsBackWhatIsNotDurable() throws Exception {
        SegmentWriter w = writer(UUID.randomUUID());
        PendingEvent first = event("before seal");
        w.write(first);
        first.future().get(30, TimeUnit.SECONDS);
        store.sealSegment(SEG);
        PendingEvent late = event("after seal");
        w.write(late);
        assertThat(endedLatch.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ended.get(0)).containsExactly(late);
        assertThat(late.future()).isNotDone();
        assertThat(w.write(event("more"))).as("an ended writer refuses events").isFalse();
        w.close();
        assertThat(readAll()).containsExactly("before seal");
    }

    @Test
    void closeFailsWhatIsStillPending() {
        store.sealSegment(SEG);
        SegmentWriter w = writer(UUID.randomUUID());
        w.close();
        assertThat(w.busy()).isFalse();
    }

    /**
     * What the writer puts on the wire, captured byte for byte by a scripted segment store, against Pravega 0.13's
     * own encoding of the same blocks: the flusher's blocks of many events (atomic batches among them) and a block
     * written from the caller's thread.
     */
    @Test
    void theBlocksOnTheWireAreTheBytesPravegaEncodes() throws Exception {
        CountDownLatch setUp = new CountDownLatch(1);
        AtomicLong acknowledged = new AtomicLong(Long.MIN_VALUE);
        AtomicLong length = new AtomicLong();
        try (ScriptedSegmentStore fake = new ScriptedSegmentStore((conn, request, peer) -> {
            switch (request) {
                case SetupAppend s -> {
                    // hold the session back so the first events queue up into one block
                    try {
                        assertThat(setUp.await(30, TimeUnit.SECONDS)).isTrue();
                    } catch (InterruptedException e) {
                        throw new IOException(e);
                    }
                    peer.send(new AppendSetup(s.requestId(), SEG, s.writerId(), WireProtocol.NULL_ATTRIBUTE_VALUE));
                }
                case AppendBlockEnd e -> peer.send(new DataAppended(e.requestId(), e.writerId(), e.lastEventNumber(),
                        acknowledged.getAndSet(e.lastEventNumber()), length.addAndGet(e.sizeOfWholeEvents())));
                default -> { }
            }
        })) {
            UUID writerId = UUID.randomUUID();
            List<String> written = new ArrayList<>();
            List<CompletableFuture<Void>> acks = new ArrayList<>();
            try (SegmentWriter w = new SegmentWriter(SEG, writerId, pool, SegmentLocator.fixed(fake.endpoint()),
                    () -> null, SegmentWriter.Config.DEFAULT, (segment, unacked) -> { })) {
                for (int i = 0; i < 30; i++) {
                    PendingEvent e = i % 10 == 5
                            ? new PendingEvent(null, List.of(utf8("batch-" + i + "-a"), utf8(""), utf8("b" + i + "-c")))
                            : event("e" + i);
                    e.payloads().forEach(p -> written.add(StandardCharsets.UTF_8.decode(p.duplicate()).toString()));
                    assertThat(w.queue(e)).isTrue();
                    acks.add(e.future());
                }
                setUp.countDown();
                CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
                PendingEvent last = event("after an idle moment");
                written.add("after an idle moment");
                assertThat(w.write(last)).isTrue();
                last.future().get(30, TimeUnit.SECONDS);
            }

            List<byte[]> frames = fake.receivedFrames().stream()
                    .filter(f -> !(FrameCodec.decodeOne(f) instanceof SetupAppend)).toList();
            List<String> onTheWire = new ArrayList<>();
            long eventNumber = 0;
            int largestBlock = 0;
            assertThat(frames.size() % 2).as("AppendBlock + AppendBlockEnd pairs").isZero();
            for (int i = 0; i < frames.size(); i += 2) {
                AppendBlock block = (AppendBlock) FrameCodec.decodeOne(frames.get(i));
                AppendBlockEnd end = (AppendBlockEnd) FrameCodec.decodeOne(frames.get(i + 1));
                List<ByteBuffer> events = new ArrayList<>();
                EventFrames.forEach(block.data(), e -> events.add(ByteBuffer.wrap(Bytes.toArray(e))));
                events.forEach(e -> onTheWire.add(StandardCharsets.UTF_8.decode(e.duplicate()).toString()));
                eventNumber += events.size();
                largestBlock = Math.max(largestBlock, events.size());
                assertThat(end.lastEventNumber()).isEqualTo(eventNumber);

                byte[] ours = ByteBuffer.allocate(frames.get(i).length + frames.get(i + 1).length)
                        .put(frames.get(i)).put(frames.get(i + 1)).array();
                byte[] pravega = PravegaAppends.block(writerId, events, end.lastEventNumber(), end.requestId());
                assertThat(HexFormat.of().formatHex(ours)).as("block %d", i / 2)
                        .isEqualTo(HexFormat.of().formatHex(pravega));
            }
            assertThat(onTheWire).isEqualTo(written);
            assertThat(largestBlock).as("the queued events went out together").isEqualTo(written.size() - 1);
        }
    }

    private static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }
}
