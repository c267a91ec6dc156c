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
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.common.Retry;
import io.sluice.common.Threads;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.errors.InvalidRequestException;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.server.SegmentStore;
import io.sluice.server.SegmentStoreServer;
import io.sluice.server.TokenVerifier;
import io.sluice.wire.AppendBlockEnd;
import io.sluice.wire.AppendSetup;
import io.sluice.wire.ConditionalAppend;
import io.sluice.wire.ConditionalCheckFailed;
import io.sluice.wire.DataAppended;
import io.sluice.wire.GetSegmentAttribute;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.PravegaAppends;
import io.sluice.wire.SegmentAttribute;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.StreamSegmentInfo;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireProtocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A segment as a log of updates: conditional writes, reads to the end, the mark, truncation, reconnects. */
@Timeout(60)
class RevisionedSegmentTest {
    private static final String SEG = "scope/_RGgroup/0.#epoch.0";
    /** Quick retries: tests drop connections on purpose. */
    static final SegmentCalls.Config FAST = new SegmentCalls.Config(
            Retry.withExpBackoff(Duration.ofMillis(1), 2, 30, Duration.ofMillis(50)), Duration.ofSeconds(10));

    private SegmentStore store;
    private SegmentStoreServer server;
    private ConnectionPool pool;
    private final List<RevisionedSegment> clients = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        store = SegmentStore.inMemory(1);
        server = new SegmentStoreServer(store, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null,
                TokenVerifier.ACCEPT_ALL);
        pool = new ConnectionPool(new TcpConnectionFactory());
        store.createSegment(SEG, (byte) 0, 0, 0);
    }

    @AfterEach
    void stop() {
        clients.forEach(RevisionedSegment::close);
        pool.close();
        server.close();
    }

    private RevisionedSegment client(String segment) {
        RevisionedSegment c = new RevisionedSegment(segment, pool, SegmentLocator.fixed(server.endpoint()), () -> null, FAST);
        clients.add(c);
        return c;
    }

    static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static String text(ByteBuffer b) {
        return StandardCharsets.UTF_8.decode(b).toString();
    }

    private static List<String> texts(List<RevisionedSegment.Revisioned> updates) {
        return updates.stream().map(u -> text(u.update())).toList();
    }

    @Test
    void markAttributeIsPravegas() {
        assertThat(RevisionedSegment.MARK_ATTRIBUTE).hasToString("7df9a874-246c-c9d6-9397-cdd19ead68c5");
    }

    @Test
    void conditionalWritesAdvanceTheRevisionAndReadBack() {
        RevisionedSegment log = client(SEG);
        long r1 = log.writeConditionally(0, bytes("one"));
        assertThat(r1).isEqualTo(8 + 3);
        assertThat(log.writeConditionally(0, bytes("stale"))).isEqualTo(RevisionedSegment.CONFLICT);
        long r2 = log.writeConditionally(r1, bytes("two!"));
        assertThat(r2).isEqualTo(r1 + 8 + 4);
        assertThat(log.writeConditionally(r1, bytes("stale"))).isEqualTo(RevisionedSegment.CONFLICT);
        assertThat(log.latestRevision()).isEqualTo(r2);

        List<RevisionedSegment.Revisioned> all = log.readFrom(0);
        assertThat(texts(all)).containsExactly("one", "two!");
        assertThat(all).extracting(RevisionedSegment.Revisioned::revision).containsExactly(r1, r2);
        assertThat(all.get(1).startRevision()).isEqualTo(r1);
        assertThat(texts(log.readFrom(r1))).containsExactly("two!");
        assertThat(log.readFrom(r2)).isEmpty();
        assertThatThrownBy(() -> log.readFrom(r2 + 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("beyond the end");
    }

    @Test
    void unconditionalWritesGoToTheEnd() {
        RevisionedSegment a = client(SEG);
        RevisionedSegment b = client(SEG);
        long r1 = a.writeUnconditionally(bytes("a1"));
        long r2 = b.writeUnconditionally(bytes("b1"));
        long r3 = a.writeUnconditionally(bytes("a2"));
        assertThat(List.of(r1, r2, r3)).containsExactly(10L, 20L, 30L);
        assertThat(a.writeConditionally(r2, bytes("late"))).isEqualTo(RevisionedSegment.CONFLICT);
        assertThat(texts(b.readFrom(0))).containsExactly("a1", "b1", "a2");
    }

    @Test
    void racingClientsExactlyOneWinsEachRevision() throws Exception {
        int rounds = 200;
        RevisionedSegment a = client(SEG);
        RevisionedSegment b = client(SEG);
        CyclicBarrier barrier = new CyclicBarrier(2);
        try (ExecutorService exec = Threads.perTaskExecutor("race-")) {
            Future<List<Long>> fa = exec.submit(() -> race(a, "a", rounds, barrier));
            Future<List<Long>> fb = exec.submit(() -> race(b, "b", rounds, barrier));
            List<Long> wa = fa.get(50, TimeUnit.SECONDS);
            List<Long> wb = fb.get(50, TimeUnit.SECONDS);
            List<RevisionedSegment.Revisioned> log = a.readFrom(0);
            assertThat(log).hasSize(rounds);
            for (int i = 0; i < rounds; i++) {
                boolean aWon = wa.get(i) != RevisionedSegment.CONFLICT;
                boolean bWon = wb.get(i) != RevisionedSegment.CONFLICT;
                assertThat(aWon ^ bWon).as("exactly one winner in round %d", i).isTrue();
                long won = aWon ? wa.get(i) : wb.get(i);
                assertThat(log.get(i).revision()).isEqualTo(won);
                assertThat(text(log.get(i).update())).isEqualTo((aWon ? "a" : "b") + i);
            }
        }
    }

    /** Each round: both sides write at the same revision; both learn the new one from the log. */
    private static List<Long> race(RevisionedSegment log, String name, int rounds, CyclicBarrier barrier) throws Exception {
        List<Long> results = new ArrayList<>();
        long revision = 0;
        for (int i = 0; i < rounds; i++) {
            barrier.await(20, TimeUnit.SECONDS);
            results.add(log.writeConditionally(revision, bytes(name + i)));
            barrier.await(20, TimeUnit.SECONDS);
            revision = log.latestRevision();
        }
        return results;
    }

    @Test
    void truncationHidesOlderRevisions() {
        RevisionedSegment log = client(SEG);
        long r1 = log.writeConditionally(0, bytes("one"));
        long r2 = log.writeConditionally(r1, bytes("two"));
        log.writeConditionally(r2, bytes("three"));
        assertThat(log.startRevision()).isZero();

        log.truncateTo(r1);
        assertThat(log.startRevision()).isEqualTo(r1);
        assertThatThrownBy(() -> log.readFrom(0)).isInstanceOf(SegmentTruncatedException.class)
                .hasMessageContaining(SEG).hasMessageContaining("truncated at " + r1);
        assertThat(texts(log.readFrom(r1))).containsExactly("two", "three");

        log.truncateTo(0);   // below the start: nothing to do
        assertThat(log.startRevision()).isEqualTo(r1);
        assertThatThrownBy(() -> log.truncateTo(log.latestRevision() + 100)).isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("beyond its end");
    }

    @Test
    void markIsCompareAndSet() {
        RevisionedSegment log = client(SEG);
        assertThat(log.mark()).isEqualTo(RevisionedSegment.NO_MARK);
        assertThat(log.compareAndSetMark(RevisionedSegment.NO_MARK, 10)).isTrue();
        assertThat(log.compareAndSetMark(RevisionedSegment.NO_MARK, 20)).isFalse();
        assertThat(log.mark()).isEqualTo(10);
        assertThat(log.compareAndSetMark(10, 20)).isTrue();
        assertThat(client(SEG).mark()).isEqualTo(20);
        assertThatThrownBy(() -> log.compareAndSetMark(20, -5)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void missingAndSealedSegments() {
        RevisionedSegment missing = client("scope/_RGnone/0.#epoch.0");
        assertThatThrownBy(() -> missing.readFrom(0)).isInstanceOf(NoSuchSegmentException.class)
                .hasMessageContaining("scope/_RGnone/0.#epoch.0");
        assertThatThrownBy(() -> missing.writeConditionally(0, bytes("x"))).isInstanceOf(NoSuchSegmentException.class)
                .hasMessageContaining("does not exist");
        assertThatThrownBy(missing::mark).isInstanceOf(NoSuchSegmentException.class);

        RevisionedSegment log = client(SEG);
        long r1 = log.writeConditionally(0, bytes("before"));
        store.sealSegment(SEG);
        assertThatThrownBy(() -> log.writeConditionally(r1, bytes("after"))).isInstanceOf(SegmentSealedException.class)
                .hasMessageContaining("sealed");
        assertThatThrownBy(() -> log.writeUnconditionally(bytes("after"))).isInstanceOf(SegmentSealedException.class);
        assertThat(texts(log.readFrom(0))).containsExactly("before");
    }

    @Test
    void argumentsAreChecked() {
        RevisionedSegment log = client(SEG);
        assertThatThrownBy(() -> log.writeConditionally(-1, bytes("x"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expectedRevision");
        assertThatThrownBy(() -> log.writeUnconditionally(ByteBuffer.allocate(RevisionedSegment.MAX_UPDATE_BYTES + 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceeds");
        assertThatThrownBy(() -> log.readFrom(-1)).isInstanceOf(IllegalArgumentException.class);
        log.close();
        assertThatThrownBy(() -> log.writeUnconditionally(bytes("x"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void readsEventsSpanningManyReplies() {
        RevisionedSegment log = client(SEG);
        long revision = 0;
        List<String> written = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String s = String.valueOf((char) ('a' + i)).repeat(700_000);
            revision = log.writeConditionally(revision, bytes(s));
            written.add(s);
        }
        assertThat(texts(log.readFrom(0))).containsExactlyElementsOf(written);
    }

    /** One writer, connections dropped at random points of its writes: it never mistakes its own write for a conflict. */
    @Test
    void droppedConnectionsNeitherDuplicateNorLoseWrites() throws Exception {
        int n = 300;
        RevisionedSegment log = client(SEG);
        LinkedBlockingQueue<Integer> dropRequests = new LinkedBlockingQueue<>();
        Thread dropper = Threads.startVirtual("dropper", () -> {
            try {
                while (dropRequests.take() >= 0) {
                    server.dropConnections();
                }
            } catch (InterruptedException e) {
                // done
            }
        });
        long revision = 0;
        try {
            for (int i = 0; i < n; i++) {
                if (i % 3 == 0) {
                    dropRequests.add(i);   // races with this write
                }
                long next = log.writeConditionally(revision, bytes("u" + i));
                assertThat(next).as("write %d", i).isEqualTo(revision + 8 + ("u" + i).length());
                revision = next;
            }
        } finally {
            dropRequests.add(-1);
            dropper.join(Duration.ofSeconds(10));
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            expected.add("u" + i);
        }
        assertThat(texts(log.readFrom(0))).containsExactlyElementsOf(expected);
    }

    // ------------------------------------------------------------------ like a real segment store (no dedup)

    private RevisionedSegment client(ScriptedSegmentStore fake) {
        return client(fake, FAST);
    }

    private RevisionedSegment client(ScriptedSegmentStore fake, SegmentCalls.Config config) {
        RevisionedSegment c = new RevisionedSegment(SEG, pool, SegmentLocator.fixed(fake.endpoint()), () -> null, config);
        clients.add(c);
        return c;
    }

    private static List<WireCommand> ofType(List<WireCommand> commands, Class<?> type) {
        return commands.stream().filter(type::isInstance).toList();
    }

    @Test
    void appendDurableBeforeTheReconnectIsNotSentAgain() throws IOException {
        try (ScriptedSegmentStore fake = new ScriptedSegmentStore((conn, request, peer) -> {
            switch (request) {
                case SetupAppend s -> peer.send(new AppendSetup(s.requestId(), SEG, s.writerId(),
                        conn == 1 ? WireProtocol.NULL_ATTRIBUTE_VALUE : 1));
                case ConditionalAppend a -> peer.hangUp();   // applied, but the ack is lost
                default -> throw new AssertionError("unexpected " + request);
            }
        })) {
            RevisionedSegment log = client(fake);
            assertThat(log.writeConditionally(40, bytes("abc"))).isEqualTo(40 + 8 + 3);
            assertThat(ofType(fake.received(), ConditionalAppend.class)).hasSize(1);
            assertThat(ofType(fake.received(), SetupAppend.class)).hasSize(2);
        }
    }

    @Test
    void resentCopyThatFindsTheFirstLandedSucceeds() throws IOException {
        try (ScriptedSegmentStore fake = new ScriptedSegmentStore((conn, request, peer) -> {
            switch (request) {
                case SetupAppend s -> peer.send(new AppendSetup(s.requestId(), SEG, s.writerId(),
                        WireProtocol.NULL_ATTRIBUTE_VALUE));
                case ConditionalAppend a when conn == 1 -> peer.hangUp();
                // the first copy landed after the second setup: the resent copy fails the offset check
                case ConditionalAppend a -> peer.send(new ConditionalCheckFailed(a.writerId(), a.eventNumber(), a.requestId()));
                case GetSegmentAttribute g -> peer.send(new SegmentAttribute(g.requestId(), 1));
                default -> throw new AssertionError("unexpected " + request);
            }
        })) {
            RevisionedSegment log = client(fake);
            assertThat(log.writeConditionally(0, bytes("abc"))).isEqualTo(11);
            List<WireCommand> appends = ofType(fake.received(), ConditionalAppend.class);
            assertThat(appends).hasSize(2).extracting(c -> ((ConditionalAppend) c).eventNumber()).containsOnly(1L);
            GetSegmentAttribute asked = (GetSegmentAttribute) ofType(fake.received(), GetSegmentAttribute.class).get(0);
            assertThat(asked.attributeId()).isEqualTo(log.writerId());
        }
    }

    /** Waits long for replies: a client that waited out its request timeout would fail the test's own. */
    private static final SegmentCalls.Config PATIENT = new SegmentCalls.Config(
            Retry.withExpBackoff(Duration.ofMillis(1), 2, 30, Duration.ofMillis(50)), Duration.ofMinutes(5));

    @Test
    @Timeout(20)
    void conditionalCheckFailedNamingAnotherAppendEndsTheSessionAtOnce() throws IOException {
        AtomicInteger appends = new AtomicInteger();
        try (ScriptedSegmentStore fake = new ScriptedSegmentStore((conn, request, peer) -> {
            switch (request) {
                case SetupAppend s -> peer.send(new AppendSetup(s.requestId(), SEG, s.writerId(),
                        WireProtocol.NULL_ATTRIBUTE_VALUE));
                // the first answer names an append this writer never had outstanding (a corrupted reply)
                case ConditionalAppend a -> peer.send(new ConditionalCheckFailed(a.writerId(),
                        appends.incrementAndGet() == 1 ? a.eventNumber() + 41 : a.eventNumber(), a.requestId()));
                // the resent copy's conflict makes the client ask whether the first copy landed: it did not
                case GetSegmentAttribute g -> peer.send(new SegmentAttribute(g.requestId(), WireProtocol.NULL_ATTRIBUTE_VALUE));
                default -> throw new AssertionError("unexpected " + request);
            }
        })) {
            RevisionedSegment log = client(fake, PATIENT);
            assertThat(log.writeConditionally(0, bytes("abc"))).isEqualTo(RevisionedSegment.CONFLICT);
            assertThat(ofType(fake.received(), SetupAppend.class)).as("the session was set up again").hasSize(2);
            assertThat(ofType(fake.received(), ConditionalAppend.class)).hasSize(2)
                    .extracting(c -> ((ConditionalAppend) c).eventNumber()).containsOnly(1L);
        }
    }

    @Test
    @Timeout(20)
    void dataAppendedNamingAnEarlierAppendEndsTheSessionAndTheSetupSaysItLanded() throws IOException {
        AtomicInteger setups = new AtomicInteger();
        try (ScriptedSegmentStore fake = new ScriptedSegmentStore((conn, request, peer) -> {
            switch (request) {
                // the second setup reports the append durable
                case SetupAppend s -> peer.send(new AppendSetup(s.requestId(), SEG, s.writerId(),
                        setups.incrementAndGet() == 1 ? WireProtocol.NULL_ATTRIBUTE_VALUE : 1));
                // applied, but the acknowledgement names event 0, which this writer never sent
                case ConditionalAppend a -> peer.send(new DataAppended(a.requestId(), a.writerId(), 0, -1, 51));
                default -> throw new AssertionError("unexpected " + request);
            }
        })) {
            RevisionedSegment log = client(fake, PATIENT);
            assertThat(log.writeConditionally(40, bytes("abc"))).isEqualTo(40 + 8 + 3);
            assertThat(ofType(fake.received(), ConditionalAppend.class)).as("never sent again").hasSize(1);
            assertThat(setups).hasValue(2);
        }
    }

    @Test
    void resentCopyThatLosesToAnotherWriterIsAConflict() throws IOException {
        try (ScriptedSegmentStore fake = new ScriptedSegmentStore((conn, request, peer) -> {
            switch (request) {
                case SetupAppend s -> peer.send(new AppendSetup(s.requestId(), SEG, s.writerId(),
                        WireProtocol.NULL_ATTRIBUTE_VALUE));
                case ConditionalAppend a when conn == 1 -> peer.hangUp();
                case ConditionalAppend a -> peer.send(new ConditionalCheckFailed(a.writerId(), a.eventNumber(), a.requestId()));
                case GetSegmentAttribute g -> peer.send(new SegmentAttribute(g.requestId(), WireProtocol.NULL_ATTRIBUTE_VALUE));
                default -> throw new AssertionError("unexpected " + request);
            }
        })) {
            assertThat(client(fake).writeConditionally(0, bytes("abc"))).isEqualTo(RevisionedSegment.CONFLICT);
        }
    }

    @Test
    void unconditionalAppendDurableBeforeTheReconnectIsNotSentAgain() throws IOException {
        try (ScriptedSegmentStore fake = new ScriptedSegmentStore((conn, request, peer) -> {
            switch (request) {
                case SetupAppend s -> peer.send(new AppendSetup(s.requestId(), SEG, s.writerId(),
                        conn == 1 ? WireProtocol.NULL_ATTRIBUTE_VALUE : 1));
                case AppendBlockEnd a -> peer.hangUp();
                case GetStreamSegmentInfo g -> peer.send(new StreamSegmentInfo(g.requestId(), SEG, true, false, false,
                        0, 123, 0));
                default -> throw new AssertionError("unexpected " + request);
            }
        })) {
            assertThat(client(fake).writeUnconditionally(bytes("abc"))).isEqualTo(123);
            List<WireCommand> appends = ofType(fake.received(), AppendBlockEnd.class);
            assertThat(appends).hasSize(1);
            AppendBlockEnd sent = (AppendBlockEnd) appends.get(0);
            assertThat(sent.data().remaining()).isEqualTo(11);
            assertThat(sent.numEvents()).isEqualTo(1);
        }
    }

    @Test
    void anUnconditionalAppendIsTheBlockEndPravegaEncodes() throws IOException {
        try (ScriptedSegmentStore fake = new ScriptedSegmentStore((conn, request, peer) -> {
            switch (request) {
                case SetupAppend s -> peer.send(new AppendSetup(s.requestId(), SEG, s.writerId(),
                        WireProtocol.NULL_ATTRIBUTE_VALUE));
                case AppendBlockEnd a -> peer.send(new DataAppended(a.requestId(), a.writerId(), a.lastEventNumber(),
                        a.lastEventNumber() - 1, 11L * a.lastEventNumber()));
                default -> throw new AssertionError("unexpected " + request);
            }
        })) {
            RevisionedSegment log = client(fake);
            assertThat(log.writeUnconditionally(bytes("abc"))).isEqualTo(11);
            assertThat(log.writeUnconditionally(bytes("def"))).isEqualTo(22);
            List<WireCommand> received = fake.received();
            List<byte[]> frames = fake.receivedFrames();
            int checked = 0;
            for (int i = 0; i < received.size(); i++) {
                if (received.get(i) instanceof AppendBlockEnd sent) {
                    checked++;
                    byte[] pravega = PravegaAppends.blockEndOnly(log.writerId(),
                            List.of(bytes(checked == 1 ? "abc" : "def")), checked, sent.requestId());
                    assertThat(HexFormat.of().formatHex(frames.get(i))).as("append %d", checked)
                            .isEqualTo(HexFormat.of().formatHex(pravega));
                }
            }
            assertThat(checked).isEqualTo(2);
        }
    }
}
