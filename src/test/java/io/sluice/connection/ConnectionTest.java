package io.sluice.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.sluice.common.Deadline;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.IncompatibleServerException;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.Hello;
import io.sluice.wire.KeepAlive;
import io.sluice.wire.Reply;
import io.sluice.wire.StreamSegmentInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connection mechanics against scripted servers on loopback, with the default configuration (plain-TCP connections
 * that awaiting callers may read); {@link StreamReaderConnectionTest} runs the same with a reader thread only.
 */
@Timeout(30)
class ConnectionTest {
    /** @return the connection configuration every test here uses */
    ConnectionConfig config() {
        return ConnectionConfig.DEFAULT;
    }

    private TcpConnectionFactory factory() {
        return new TcpConnectionFactory(config());
    }

    /** A fresh deadline for each wait: a static one would expire while the class runs. */
    private static Deadline longWait() {
        return Deadline.after(Duration.ofSeconds(20));
    }

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    private <T extends AutoCloseable> T track(T c) {
        closeables.add(c);
        return c;
    }

    private static StreamSegmentInfo infoFor(GetStreamSegmentInfo g) {
        return new StreamSegmentInfo(g.requestId(), g.segmentName(), true, false, false, 0, g.segmentName().length(), 0);
    }

    /** A server that answers every GetStreamSegmentInfo at once. */
    private FakeSegmentStore answeringStore() throws IOException {
        return track(new FakeSegmentStore((request, peer) -> {
            if (request instanceof GetStreamSegmentInfo g) {
                peer.send(infoFor(g));
            } else if (request instanceof KeepAlive k) {
                peer.send(k);
            }
        }));
    }

    @Test
    void helloIsExchangedAndVersionsNegotiated() throws IOException {
        FakeSegmentStore store = track(new FakeSegmentStore(new Hello(16, 5), (r, p) -> { }));
        Connection c = track(factory().connect(store.endpoint(), longWait()));
        assertThat(c.isOpen()).isTrue();
        assertThat(c.negotiatedVersion()).isEqualTo(16);
        assertThat(c.endpoint()).isEqualTo(store.endpoint());
    }

    @Test
    void incompatibleServerIsRefusedWithAClearError() throws IOException {
        FakeSegmentStore store = track(new FakeSegmentStore(new Hello(4, 3), (r, p) -> { }));
        assertThatThrownBy(() -> factory().connect(store.endpoint(), longWait()))
                .isInstanceOf(IncompatibleServerException.class)
                .hasMessageContaining("speaks wire versions 3..4, this client 5..17");
    }

    @Test
    void serverThatNeverSaysHelloFailsTheConnectAtTheDeadline() throws IOException {
        FakeSegmentStore store = track(new FakeSegmentStore(null, (r, p) -> { }));
        assertThatThrownBy(() -> factory().connect(store.endpoint(), Deadline.after(Duration.ofMillis(200))))
                .isInstanceOf(ConnectionFailedException.class).hasMessageContaining("did not answer Hello");
    }

    @Test
    void refusedConnectionIsRetriable() {
        // nothing listens on port 1 of the loopback interface (binding it needs privileges no test has); a port
        // freed by a closed test server could be taken by another test in the meantime
        var endpoint = new io.sluice.common.Endpoint("127.0.0.1", 1);
        assertThatThrownBy(() -> factory().connect(endpoint, longWait()))
                .isInstanceOf(ConnectionFailedException.class).hasMessageContaining("cannot connect to segment store " + endpoint);
    }

    @Test
    void multiplexedFlowsEachGetTheirOwnReplies() throws Exception {
        FakeSegmentStore store = answeringStore();
        ConnectionPool pool = track(new ConnectionPool(factory(), 1, 10_000));
        RawClient raw = new RawClient(pool);
        int callers = 200;
        try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<StreamSegmentInfo>> results = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                String segment = "scope/stream/" + i + ".#epoch.0";
                results.add(exec.submit(() -> raw.call(store.endpoint(), id -> new GetStreamSegmentInfo(id, segment, ""),
                        StreamSegmentInfo.class, longWait())));
            }
            for (int i = 0; i < callers; i++) {
                assertThat(results.get(i).get(20, TimeUnit.SECONDS).segmentName()).isEqualTo("scope/stream/" + i + ".#epoch.0");
            }
        }
        assertThat(store.connectionsAccepted()).as("all flows shared one connection").isEqualTo(1);
        assertThat(pool.connectionCount(store.endpoint())).isEqualTo(1);
    }

    @Test
    void repliesOutOfOrderReachTheRightFlows() throws Exception {
        BlockingQueue<GetStreamSegmentInfo> held = new ArrayBlockingQueue<>(10);
        FakeSegmentStore store = track(new FakeSegmentStore((request, peer) -> {
            if (request instanceof GetStreamSegmentInfo g) {
                held.add(g);
                if (held.size() == 3) {
                    List<GetStreamSegmentInfo> all = new ArrayList<>();
                    held.drainTo(all);
                    for (int i = all.size() - 1; i >= 0; i--) {
                        peer.send(infoFor(all.get(i)));
                    }
                }
            }
        }));
        Connection c = track(factory().connect(store.endpoint(), longWait()));
        List<Flow> flows = List.of(c.openFlow(), c.openFlow(), c.openFlow());
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            long id = flows.get(i).nextRequestId();
            ids.add(id);
            flows.get(i).send(new GetStreamSegmentInfo(id, "segment-" + i, ""));
        }
        for (int i = 0; i < 3; i++) {
            Reply reply = flows.get(i).await(longWait());
            assertThat(reply.requestId()).isEqualTo(ids.get(i));
            assertThat(((StreamSegmentInfo) reply).segmentName()).isEqualTo("segment-" + i);
        }
    }

    @Test
    void droppedConnectionWakesEveryWaiterAtOnce() throws Exception {
        int waiters = 50;
        CountDownLatch allSent = new CountDownLatch(waiters);
        FakeSegmentStore store = track(new FakeSegmentStore((request, peer) -> {
            if (request instanceof GetStreamSegmentInfo) {
                allSent.countDown();
                if (allSent.getCount() == 0) {
                    peer.hangUp(); // mid-request: nobody got an answer
                }
            }
        }));
        ConnectionPool pool = track(new ConnectionPool(factory(), 1, 1000));
        RawClient raw = new RawClient(pool);
        Deadline far = Deadline.after(Duration.ofMinutes(10));
        try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                String segment = "s" + i;
                calls.add(exec.submit(() -> raw.call(store.endpoint(), id -> new GetStreamSegmentInfo(id, segment, ""), far)));
            }
            for (Future<?> f : calls) {
                // the test's own timeout would trip if any waiter slept until its 10-minute deadline
                assertThatThrownBy(() -> f.get(20, TimeUnit.SECONDS)).hasCauseInstanceOf(ConnectionFailedException.class)
                        .cause().hasMessageContaining("segment store closed the connection");
            }
        }
        assertThat(pool.connectionCount(store.endpoint())).as("the dead connection left the pool").isZero();
    }

    @Test
    void serverThatNeverAnswersHitsTheDeadline() throws IOException {
        FakeSegmentStore store = track(new FakeSegmentStore((r, p) -> { }));
        ConnectionPool pool = track(new ConnectionPool(factory()));
        RawClient raw = new RawClient(pool);
        pool.lease(store.endpoint(), longWait()).close(); // connect first: only the reply is late, not the Hello
        assertThatThrownBy(() -> raw.call(store.endpoint(), id -> new GetStreamSegmentInfo(id, "s", ""),
                Deadline.after(Duration.ofMillis(150))))
                .isInstanceOf(DeadlineExceededException.class).hasMessageContaining("no reply from segment store");
        assertThat(pool.connectionCount(store.endpoint())).as("a slow server is not a broken connection").isEqualTo(1);
    }

    @Test
    void garbageClosesTheConnectionAndThePoolRecovers() throws Exception {
        FakeSegmentStore store = track(new FakeSegmentStore((request, peer) -> {
            if (request instanceof GetStreamSegmentInfo g) {
                if (g.segmentName().equals("poison")) {
                    peer.sendRaw(new byte[] {0, 0, 0, 99, 0, 0, 0, 1, 42}); // type 99 does not exist
                } else {
                    peer.send(infoFor(g));
                }
            }
        }));
        ConnectionPool pool = track(new ConnectionPool(factory(), 1, 100));
        RawClient raw = new RawClient(pool);
        assertThatThrownBy(() -> raw.call(store.endpoint(), id -> new GetStreamSegmentInfo(id, "poison", ""), longWait()))
                .isInstanceOf(ConnectionFailedException.class)
                .hasMessageContaining("malformed frame").hasMessageContaining("type code 99");
        StreamSegmentInfo ok = raw.call(store.endpoint(), id -> new GetStreamSegmentInfo(id, "fine", ""),
                StreamSegmentInfo.class, longWait());
        assertThat(ok.segmentName()).isEqualTo("fine");
        assertThat(store.connectionsAccepted()).as("a fresh connection replaced the broken one").isEqualTo(2);
    }

    @Test
    void poolBlocksWhenExhaustedAndResumesOnRelease() throws Exception {
        FakeSegmentStore store = answeringStore();
        ConnectionPool pool = track(new ConnectionPool(factory(), 2, 1));
        Lease a = pool.lease(store.endpoint(), longWait());
        Lease b = pool.lease(store.endpoint(), longWait());
        assertThat(pool.connectionCount(store.endpoint())).isEqualTo(2);
        assertThatThrownBy(() -> pool.lease(store.endpoint(), Deadline.after(Duration.ofMillis(100))))
                .isInstanceOf(DeadlineExceededException.class).hasMessageContaining("connection pool exhausted");

        CountDownLatch waiting = new CountDownLatch(1);
        try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<Lease> third = exec.submit(() -> {
                waiting.countDown();
                return pool.lease(store.endpoint(), longWait());
            });
            waiting.await();
            assertThat(third.isDone()).isFalse();
            a.close();
            Lease c = third.get(20, TimeUnit.SECONDS);
            assertThat(c.endpoint()).isEqualTo(store.endpoint());
            c.close();
        }
        b.close();
        assertThat(pool.connectionCount(store.endpoint())).as("released connections stay pooled").isEqualTo(2);
    }

    @Test
    void leaseOnAFailedConnectionDestroysItOnClose() throws Exception {
        FakeSegmentStore store = answeringStore();
        ConnectionPool pool = track(new ConnectionPool(factory(), 1, 10));
        Lease lease = pool.lease(store.endpoint(), longWait());
        lease.invalidate("test says so");
        assertThatThrownBy(() -> lease.await(longWait())).isInstanceOf(ConnectionFailedException.class).hasMessageContaining("test says so");
        lease.close();
        assertThat(pool.connectionCount(store.endpoint())).isZero();
        try (Lease fresh = pool.lease(store.endpoint(), longWait())) {
            assertThat(fresh.flow().connection().isOpen()).isTrue();
        }
        assertThat(store.connectionsAccepted()).isEqualTo(2);
    }

    @Test
    void deadPeerIsDetectedByKeepAlive() throws Exception {
        // answers Hello, then swallows everything, KeepAlive included
        FakeSegmentStore store = track(new FakeSegmentStore((r, p) -> { }));
        ConnectionConfig fast = config().withKeepAlive(Duration.ofMillis(20), Duration.ofMillis(20));
        Connection c = track(new TcpConnectionFactory(fast).connect(store.endpoint(), longWait()));
        Flow flow = c.openFlow();
        assertThatThrownBy(() -> flow.await(longWait())).isInstanceOf(ConnectionFailedException.class)
                .hasMessageContaining("no reply to KeepAlive");
        assertThat(c.isOpen()).isFalse();
    }

    @Test
    void livePeerAnsweringKeepAlivesStaysConnected() throws Exception {
        CountDownLatch keepAlives = new CountDownLatch(3);
        FakeSegmentStore store = track(new FakeSegmentStore((request, peer) -> {
            if (request instanceof KeepAlive k) {
                peer.send(k);
                keepAlives.countDown();
            }
        }));
        // an interval generous enough that a loaded 2-core CI machine answers within one (200 ms was not: a stall of
        // the test JVM longer than one interval ends the connection, which is what the keep-alive is for)
        ConnectionConfig fast = config().withKeepAlive(Duration.ofMillis(100), Duration.ofSeconds(1));
        Connection c = track(new TcpConnectionFactory(fast).connect(store.endpoint(), longWait()));
        assertThat(keepAlives.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(c.isOpen()).isTrue();
    }

    @Test
    void sendingOnAClosedConnectionFailsAtOnce() throws Exception {
        FakeSegmentStore store = answeringStore();
        Connection c = factory().connect(store.endpoint(), longWait());
        Flow flow = c.openFlow();
        c.close();
        assertThatThrownBy(() -> flow.send(new KeepAlive())).isInstanceOf(ConnectionFailedException.class);
        assertThatThrownBy(c::openFlow).isInstanceOf(ConnectionFailedException.class);
        assertThatThrownBy(() -> flow.await(longWait())).isInstanceOf(ConnectionFailedException.class).hasMessageContaining("closed");
    }

    @Test
    void writesFromManyThreadsAllArriveIntact() throws Exception {
        sendFromManyThreadsAndCheckOrder(false, false);
    }

    @Test
    void sendNowFromManyThreadsArrivesIntactAndInOrder() throws Exception {
        sendFromManyThreadsAndCheckOrder(false, true);
    }

    /**
     * 16 threads send 500 commands each, claiming the connection for a direct write whenever it is idle if
     * {@code claim} (or through {@link Connection#sendNow} if {@code now}); the server must get every command intact
     * and each thread's in the order it sent them.
     *
     * @return how many commands went out through a claim
     */
    private int sendFromManyThreadsAndCheckOrder(boolean claim, boolean now) throws Exception {
        int threads = 16;
        int perThread = 500;
        CountDownLatch received = new CountDownLatch(threads * perThread);
        List<GetStreamSegmentInfo> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        FakeSegmentStore store = track(new FakeSegmentStore((request, peer) -> {
            if (request instanceof GetStreamSegmentInfo g) {
                seen.add(g);
                received.countDown();
            }
        }));
        Connection c = track(factory().connect(store.endpoint(), longWait()));
        java.util.concurrent.atomic.AtomicInteger claimed = new java.util.concurrent.atomic.AtomicInteger();
        try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                exec.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        GetStreamSegmentInfo command = new GetStreamSegmentInfo(i, "t" + thread, "");
                        Connection.Claim direct = claim ? c.tryClaim(64) : null;
                        if (direct != null) {
                            claimed.incrementAndGet();
                            direct.write(out -> FrameCodec.encode(command, out));
                        } else if (now) {
                            c.sendNow(command);
                        } else {
                            c.send(command);
                        }
                    }
                });
            }
        }
        assertThat(received.await(20, TimeUnit.SECONDS)).isTrue();
        for (int t = 0; t < threads; t++) {
            String name = "t" + t;
            List<Long> order = seen.stream().filter(g -> g.segmentName().equals(name))
                    .map(GetStreamSegmentInfo::requestId).toList();
            assertThat(order).as("one thread's commands keep their order").isSorted().hasSize(perThread);
        }
        return claimed.get();
    }

    @Test
    void aClaimWritesFromTheCallerAndWhatIsSentMeanwhileWaitsForIt() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(16);
        FakeSegmentStore store = track(new FakeSegmentStore((request, peer) -> {
            if (request instanceof GetStreamSegmentInfo g) {
                seen.add(g.segmentName());
            }
        }));
        Connection c = track(factory().connect(store.endpoint(), longWait()));
        Connection.Claim claim = claimWhenIdle(c);
        assertThat(c.tryClaim(100)).as("one claim at a time").isNull();
        c.send(new GetStreamSegmentInfo(1, "sent-while-claimed", ""));
        Deadline deadline = longWait();
        while (!((SocketConnection) c).writerWaitsForClaim() && seen.isEmpty()) {
            assertThat(deadline.remainingNanos()).as("the writer thread took the command").isPositive();
            Thread.yield();   // let the connection's threads run (2 cores in CI)
        }
        claim.write(out -> FrameCodec.encode(new GetStreamSegmentInfo(2, "claimed", ""), out));
        assertThat(seen.poll(20, TimeUnit.SECONDS)).isEqualTo("claimed");
        assertThat(seen.poll(20, TimeUnit.SECONDS)).as("the writer thread waited for the claim")
                .isEqualTo("sent-while-claimed");
    }

    @Test
    void sendNowWhileAClaimIsOpenGoesOutAfterIt() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(16);
        FakeSegmentStore store = track(new FakeSegmentStore((request, peer) -> {
            if (request instanceof GetStreamSegmentInfo g) {
                seen.add(g.segmentName());
            }
        }));
        Connection c = track(factory().connect(store.endpoint(), longWait()));
        c.sendNow(new GetStreamSegmentInfo(1, "idle", ""));
        assertThat(seen.poll(20, TimeUnit.SECONDS)).isEqualTo("idle");
        Connection.Claim claim = claimWhenIdle(c);
        c.sendNow(new GetStreamSegmentInfo(2, "sent-now-while-claimed", ""));
        claim.write(out -> FrameCodec.encode(new GetStreamSegmentInfo(3, "claimed", ""), out));
        assertThat(seen.poll(20, TimeUnit.SECONDS)).isEqualTo("claimed");
        assertThat(seen.poll(20, TimeUnit.SECONDS)).isEqualTo("sent-now-while-claimed");
        c.close();
        assertThatThrownBy(() -> c.sendNow(new GetStreamSegmentInfo(4, "closed", "")))
                .isInstanceOf(ConnectionFailedException.class);
    }

    /**
     * Claims the connection once its writer thread has written the Hello (which it counts as queued until its write
     * returns, possibly after the answer arrived).
     */
    private static Connection.Claim claimWhenIdle(Connection c) {
        Deadline deadline = longWait();
        Connection.Claim claim;
        while ((claim = c.tryClaim(100)) == null) {
            assertThat(deadline.remainingNanos()).as("the idle connection became claimable").isPositive();
            Thread.yield();   // let the connection's threads run (2 cores in CI)
        }
        return claim;
    }

    @Test
    void largeWritesAndClosedConnectionsAreNotClaimed() throws Exception {
        FakeSegmentStore store = answeringStore();
        Connection c = factory().connect(store.endpoint(), longWait());
        assertThat(c.tryClaim(1024 * 1024)).as("a write that may not fit the socket buffer").isNull();
        claimWhenIdle(c).write(out -> FrameCodec.encode(new KeepAlive(), out));
        c.close();
        assertThat(c.tryClaim(100)).isNull();
    }

    @Test
    void claimsAndQueuedSendsFromManyThreadsArriveIntactAndInOrder() throws Exception {
        assertThat(sendFromManyThreadsAndCheckOrder(true, false)).as("some writes went out directly").isPositive();
    }

    @Test
    void theReaderIsAVirtualThreadUnlessPlatformReadersAreConfigured() throws Exception {
        FakeSegmentStore store = answeringStore();
        for (boolean platform : new boolean[] {false, true}) {
            Connection c = track(new TcpConnectionFactory(config().withPlatformReaders(platform))
                    .connect(store.endpoint(), longWait()));
            Flow flow = c.openFlow();
            java.util.concurrent.CompletableFuture<Thread> reader = new java.util.concurrent.CompletableFuture<>();
            flow.intercept(reply -> {
                reader.complete(Thread.currentThread());
                return false;
            });
            flow.send(new GetStreamSegmentInfo(flow.nextRequestId(), "scope/stream/0.#epoch.0", ""));
            assertThat(flow.await(longWait())).isInstanceOf(StreamSegmentInfo.class);
            Thread thread = reader.get(20, TimeUnit.SECONDS);
            assertThat(thread.isVirtual()).as("platformReaders=%s", platform).isEqualTo(!platform);
            assertThat(thread.getName()).startsWith("sluice-reader-");
            c.close();
            thread.join(Duration.ofSeconds(20));
            assertThat(thread.isAlive()).as("the reader ends with the connection").isFalse();
        }
    }
}
