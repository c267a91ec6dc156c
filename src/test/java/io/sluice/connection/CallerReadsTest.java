package io.sluice.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.sluice.common.Deadline;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.KeepAlive;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.Reply;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.StreamSegmentInfo;
import io.sluice.wire.WireCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Connection#lead}: a thread awaiting a reply reads a plain-TCP connection itself, one at a time, and gives
 * the socket back to the connection's reader however it stops (its reply, its deadline, an interrupt, the end of the
 * connection, or what it awaits completing elsewhere).
 */
@Timeout(30)
class CallerReadsTest {
    private static final String SEGMENT = "scope/stream/0.#epoch.0";
    private static final ConnectionConfig CALLER_READS = ConnectionConfig.DEFAULT.withCallerReads(true);

    /** A request the fake store received, and the client connection to answer it on. */
    private record Received(WireCommand request, FakeSegmentStore.Peer peer) {
    }

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    private static Deadline longWait() {
        return Deadline.after(Duration.ofSeconds(20));
    }

    /** A store that answers KeepAlives and queues every other request for the test to answer. */
    private FakeSegmentStore heldStore() throws IOException {
        FakeSegmentStore store = new FakeSegmentStore((request, peer) -> {
            if (request instanceof KeepAlive k) {
                peer.send(k);
            } else if (!(request instanceof io.sluice.wire.Hello)) {
                received.add(new Received(request, peer));
            }
        });
        closeables.add(store);
        return store;
    }

    private SocketConnection connect(FakeSegmentStore store, ConnectionConfig config) {
        SocketConnection c = (SocketConnection) new TcpConnectionFactory(config).connect(store.endpoint(), longWait());
        closeables.add(c);
        return c;
    }

    private Received next() throws InterruptedException {
        Received r = received.poll(20, TimeUnit.SECONDS);
        assertThat(r).as("a request reached the store").isNotNull();
        return r;
    }

    /** Starts a platform thread that leads {@code c} until {@code done}, and waits until it holds the socket. */
    private static Thread leadUntil(SocketConnection c, CompletableFuture<?> done, Deadline deadline,
                                    AtomicReference<Boolean> led) {
        return startLeading(c, () -> led.set(c.lead(done, deadline)));
    }

    /** Starts {@code caller} (which leads {@code c}) on a platform thread, and waits until it holds the socket. */
    private static Thread startLeading(SocketConnection c, Runnable caller) {
        Thread t = Thread.ofPlatform().name("leading-caller").start(caller);
        while (!c.callerLeads() && t.isAlive()) {
            Thread.onSpinWait();
        }
        return t;
    }

    /** Completes {@code done} with each reply of {@code flow}, and records the thread that routed it. */
    private static void completeOnReply(Flow flow, CompletableFuture<Reply> done, AtomicReference<Thread> routedOn) {
        flow.intercept(reply -> {
            routedOn.set(Thread.currentThread());
            done.complete(reply);
            return true;
        });
    }

    @Test
    void theAwaitingCallerReadsRepliesItselfAndTheReaderReadsWhenNoCallerDoes() throws Exception {
        SocketConnection c = connect(heldStore(), CALLER_READS);
        Flow flow = c.openFlow();
        int onCaller = 0;
        // the reader waits in a selector too, so either may read a reply; the caller, woken by the kernel itself,
        // should read most of them, and a caller that never could would read none
        for (int i = 0; i < 20; i++) {
            CompletableFuture<Reply> done = new CompletableFuture<>();
            AtomicReference<Thread> routedOn = new AtomicReference<>();
            completeOnReply(flow, done, routedOn);
            long id = flow.nextRequestId();
            flow.send(new GetStreamSegmentInfo(id, SEGMENT, ""));
            Received r = next();
            AtomicReference<Boolean> led = new AtomicReference<>();
            Thread caller = leadUntil(c, done, longWait(), led);
            r.peer().send(new StreamSegmentInfo(id, SEGMENT, true, false, false, 0, 10, 0));
            caller.join(Duration.ofSeconds(20));
            assertThat(led.get()).as("the caller led").isTrue();
            assertThat(((StreamSegmentInfo) done.get(1, TimeUnit.SECONDS)).requestId()).isEqualTo(id);
            if (routedOn.get() == caller) {
                onCaller++;
            }
        }
        assertThat(onCaller).as("replies read on the awaiting caller's thread, of 20").isPositive();

        flow.intercept(null);
        long second = flow.nextRequestId();
        flow.send(new GetStreamSegmentInfo(second, SEGMENT, ""));
        next().peer().send(new StreamSegmentInfo(second, SEGMENT, true, false, false, 0, 10, 0));
        assertThat(flow.await(longWait()).requestId()).as("the reader reads with no caller leading").isEqualTo(second);
        assertThat(c.callerLeads()).isFalse();
    }

    @Test
    void aVirtualThreadWaitsForItsReplyAsUsual() throws Exception {
        SocketConnection c = connect(heldStore(), CALLER_READS);
        AtomicReference<Boolean> led = new AtomicReference<>();
        Thread.ofVirtual().start(() -> led.set(c.lead(new CompletableFuture<>(), longWait()))).join();
        assertThat(led.get()).isFalse();
    }

    @Test
    void oneCallerLeadsAtATimeAndStopsWhenWhatItAwaitsCompletesElsewhere() throws Exception {
        SocketConnection c = connect(heldStore(), CALLER_READS);
        CompletableFuture<Void> first = new CompletableFuture<>();
        AtomicReference<Boolean> led = new AtomicReference<>();
        Thread caller = leadUntil(c, first, longWait(), led);
        assertThat(c.callerLeads()).isTrue();
        assertThat(c.lead(new CompletableFuture<>(), longWait())).as("a second caller waits as usual").isFalse();
        first.complete(null); // not by a reply: the leading caller must notice anyway
        caller.join(Duration.ofSeconds(20));
        assertThat(caller.isAlive()).isFalse();
        assertThat(led.get()).isTrue();
        assertThat(c.isOpen()).isTrue();
    }

    @Test
    void aCallerWhoseDeadlinePassesGivesTheSocketBack() throws Exception {
        SocketConnection c = connect(heldStore(), CALLER_READS);
        CompletableFuture<Void> never = new CompletableFuture<>();
        assertThat(c.lead(never, Deadline.after(Duration.ofMillis(100)))).isTrue();
        assertThat(never).isNotDone();
        Flow flow = c.openFlow();
        long id = flow.nextRequestId();
        flow.send(new GetStreamSegmentInfo(id, SEGMENT, ""));
        next().peer().send(new StreamSegmentInfo(id, SEGMENT, true, false, false, 0, 10, 0));
        assertThat(flow.await(longWait()).requestId()).isEqualTo(id);
    }

    @Test
    void anInterruptedCallerStopsLeadingAndKeepsItsInterrupt() throws Exception {
        SocketConnection c = connect(heldStore(), CALLER_READS);
        AtomicReference<Boolean> led = new AtomicReference<>();
        AtomicReference<Boolean> interrupted = new AtomicReference<>();
        CompletableFuture<Void> never = new CompletableFuture<>();
        Thread caller = startLeading(c, () -> {
            led.set(c.lead(never, longWait()));
            interrupted.set(Thread.currentThread().isInterrupted());
        });
        caller.interrupt();
        caller.join(Duration.ofSeconds(20));
        assertThat(caller.isAlive()).isFalse();
        assertThat(led.get()).isTrue();
        assertThat(interrupted.get()).isTrue();
        assertThat(c.isOpen()).isTrue();
    }

    @Test
    void aLeadingCallerSeesTheConnectionEnd() throws Exception {
        SocketConnection c = connect(heldStore(), CALLER_READS);
        Flow flow = c.openFlow();
        flow.send(new GetStreamSegmentInfo(flow.nextRequestId(), SEGMENT, ""));
        Received r = next();
        AtomicReference<Boolean> led = new AtomicReference<>();
        Thread caller = leadUntil(c, new CompletableFuture<>(), longWait(), led);
        r.peer().hangUp();
        caller.join(Duration.ofSeconds(20));
        assertThat(caller.isAlive()).isFalse();
        assertThat(c.isOpen()).isFalse();
        assertThatThrownBy(() -> flow.await(longWait())).isInstanceOf(ConnectionFailedException.class)
                .hasMessageContaining("segment store closed the connection");
    }

    @Test
    void framesSplitAcrossReadsAndLargerThanTheBufferArriveWhole() throws Exception {
        SocketConnection c = connect(heldStore(), CALLER_READS);
        Flow flow = c.openFlow();
        byte[] data = new byte[300 * 1024];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31);
        }
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            long id = flow.nextRequestId();
            ids.add(id);
            flow.send(new ReadSegment(SEGMENT, 0, data.length, "", id));
        }
        FakeSegmentStore.Peer peer = null;
        ByteBuffer frames = ByteBuffer.allocate(3 * (data.length + 1024));
        for (long id : ids) {
            peer = next().peer();
            frames.put(FrameCodec.encode(new SegmentRead(SEGMENT, 0, false, false, ByteBuffer.wrap(data), id)));
        }
        byte[] all = Arrays.copyOf(frames.array(), frames.position());
        // cut inside the first header, inside a payload, and right after a header
        int[] cuts = {3, 70_000, all.length / 3 + 8, all.length};
        int from = 0;
        for (int cut : cuts) {
            peer.sendRaw(Arrays.copyOfRange(all, from, cut));
            from = cut;
        }
        for (long id : ids) {
            SegmentRead read = (SegmentRead) flow.await(longWait());
            assertThat(read.requestId()).isEqualTo(id);
            byte[] got = new byte[read.data().remaining()];
            read.data().get(got);
            assertThat(got).isEqualTo(data);
        }
    }

    @Test
    void connectionsThatCannotBeReadByCallersSayNo() throws Exception {
        SocketConnection streams = connect(heldStore(), ConnectionConfig.DEFAULT.withCallerReads(false));
        assertThat(streams.lead(new CompletableFuture<>(), longWait())).isFalse();
        assertThat(streams.callersMayRead()).isFalse();
        assertThat(connect(heldStore(), CALLER_READS).callersMayRead()).isTrue();
        assertThat(new TlsConnectionFactory(CALLER_READS, new TlsConfig(null, null, true))
                .channelSockets()).as("TLS runs over a blocking socket").isFalse();
        assertThat(new TcpConnectionFactory(CALLER_READS).channelSockets()).isTrue();
        assertThat(new TcpConnectionFactory(ConnectionConfig.DEFAULT).channelSockets()).as("on by default").isTrue();
    }
}
