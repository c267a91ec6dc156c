package io.sluice.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.common.Await;
import io.sluice.common.Endpoint;
import io.sluice.common.Threads;

/**
 * {@link FaultProxy} against a plain TCP server on loopback: each fault does what it says, and a schedule is a
 * function of its seed.
 */
@Timeout(60)
class FaultProxyTest {
    private ServerSocket target;
    /** The server's side of each connection the proxy made, in order. */
    private final BlockingQueue<Socket> accepted = new LinkedBlockingQueue<>();
    private FaultProxy proxy;

    @BeforeEach
    void start() throws IOException {
        target = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Threads.startVirtual("fault-proxy-test-accept", () -> {
            try {
                while (true) {
                    accepted.add(target.accept());
                }
            } catch (IOException e) {
                // closed
            }
        });
        proxy = new FaultProxy(new Endpoint(target.getInetAddress().getHostAddress(), target.getLocalPort()));
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        target.close();
        for (Socket s : accepted) {
            s.close();
        }
    }

    /** A client connection through the proxy and the server's side of it. */
    private record Link(Socket client, Socket server) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            client.close();
            server.close();
        }
    }

    private Link connect() throws IOException, InterruptedException {
        int before = proxy.connections();
        Socket client = new Socket();
        client.connect(new InetSocketAddress(proxy.endpoint().host(), proxy.endpoint().port()), 5_000);
        Socket server = accepted.poll(10, TimeUnit.SECONDS);
        assertThat(server).as("the proxy connected to the target").isNotNull();
        // counted once it is among the open ones, which the faults act on
        Await.until("the proxy forwards the connection", () -> proxy.connections() > before);
        return new Link(client, server);
    }

    private static byte[] bytes(int n, int salt) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 7 + salt);
        }
        return b;
    }

    /** Reads until the stream ends or {@code max} bytes came. */
    private static byte[] readUpTo(InputStream in, int max) throws IOException {
        byte[] out = new byte[max];
        int n = 0;
        for (int r = 0; n < max && (r = in.read(out, n, max - n)) >= 0; ) {
            n += r;
        }
        return Arrays.copyOf(out, n);
    }

    @Test
    void bytesPassBothWaysUntouched() throws Exception {
        try (Link link = connect()) {
            link.client().getOutputStream().write(bytes(100_000, 1));
            assertThat(link.server().getInputStream().readNBytes(100_000)).isEqualTo(bytes(100_000, 1));
            link.server().getOutputStream().write(bytes(70_000, 2));
            assertThat(link.client().getInputStream().readNBytes(70_000)).isEqualTo(bytes(70_000, 2));
        }
        assertThat(proxy.totalFaults()).isZero();
    }

    @Test
    void aDelayHoldsBytesBackInOneDirectionOnly() throws Exception {
        try (Link link = connect()) {
            proxy.delay(FaultProxy.Direction.TO_CLIENT, Duration.ofMillis(300), Duration.ofSeconds(30));
            long t0 = System.nanoTime();
            link.server().getOutputStream().write(bytes(10, 3));
            assertThat(link.client().getInputStream().readNBytes(10)).isEqualTo(bytes(10, 3));
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("held back at least the delay")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(300));
            // the other way is not delayed: the server gets it before anything sent its way later comes back
            link.client().getOutputStream().write(bytes(10, 4));
            assertThat(link.server().getInputStream().readNBytes(10)).isEqualTo(bytes(10, 4));
        }
        assertThat(proxy.counts()).containsEntry(FaultProxy.Fault.DELAY, 1);
    }

    @Test
    void aDropForwardsHalfAChunkThenEndsBothSidesInOrder() throws Exception {
        try (Link link = connect()) {
            assertThat(proxy.drop(new Random(1))).isTrue();
            link.client().getOutputStream().write(bytes(1000, 5));
            byte[] got = readUpTo(link.server().getInputStream(), 1000);
            // one write of 1000 bytes on loopback is one chunk: the server gets its first half, then the end
            assertThat(got).as("a part, then the end of the stream").hasSizeLessThan(1000)
                    .isEqualTo(Arrays.copyOf(bytes(1000, 5), got.length));
            assertThat(link.client().getInputStream().read()).as("the client sees an orderly end").isEqualTo(-1);
        }
        assertThat(proxy.counts()).containsEntry(FaultProxy.Fault.DROP, 1);
        assertThat(proxy.connectionsHit()).containsEntry(FaultProxy.Fault.DROP, 1);
    }

    @Test
    void aCutResetsEveryConnectionOnBothSides() throws Exception {
        try (Link a = connect(); Link b = connect()) {
            assertThat(proxy.cut()).isEqualTo(2);
            for (Link link : List.of(a, b)) {
                assertThatThrownBy(() -> link.client().getInputStream().read()).isInstanceOf(SocketException.class);
                assertThatThrownBy(() -> link.server().getInputStream().read()).isInstanceOf(SocketException.class);
            }
            assertThat(proxy.openConnections()).isZero();
        }
        assertThat(proxy.connectionsHit()).containsEntry(FaultProxy.Fault.CUT, 2);
    }

    @Test
    void aBlackHoleForwardsNothingButKeepsTheSocketsOpenUntilTheClientCloses() throws Exception {
        try (Link link = connect()) {
            assertThat(proxy.blackHole(new Random(2))).isTrue();
            link.client().getOutputStream().write(bytes(100, 6));
            link.server().getOutputStream().write(bytes(100, 7));
            link.client().setSoTimeout(300);
            link.server().setSoTimeout(300);
            assertThatThrownBy(() -> link.client().getInputStream().read()).as("nothing arrives, nothing ends")
                    .isInstanceOf(SocketTimeoutException.class);
            assertThatThrownBy(() -> link.server().getInputStream().read()).as("nothing arrives, nothing ends")
                    .isInstanceOf(SocketTimeoutException.class);
            assertThat(proxy.openConnections()).isEqualTo(1);
            link.client().close();   // the client's own timeout gives up
            link.server().setSoTimeout(10_000);
            assertThat(link.server().getInputStream().read()).as("then the server's side ends").isEqualTo(-1);
        }
        Await.until("the black-holed connection is gone", () -> proxy.openConnections() == 0);
        assertThat(proxy.counts()).containsEntry(FaultProxy.Fault.BLACK_HOLE, 1);
    }

    @Test
    void aScheduleIsAFunctionOfItsSeed() {
        List<FaultProxy.Step> a = first(FaultProxy.Schedule.mixed(42), 200);
        assertThat(first(FaultProxy.Schedule.mixed(42), 200)).isEqualTo(a);
        assertThat(first(FaultProxy.Schedule.mixed(43), 200)).isNotEqualTo(a);
        assertThat(a).extracting(FaultProxy.Step::fault).contains(FaultProxy.Fault.values());
        assertThat(a).allSatisfy(s -> {
            assertThat(s.gapNanos()).isBetween(150_000_000L, 600_000_000L);
            assertThat(s.delayNanos()).isBetween(1_000_000L, 200_000_000L);
        });
    }

    private static List<FaultProxy.Step> first(FaultProxy.Schedule schedule, int n) {
        List<FaultProxy.Step> out = new ArrayList<>();
        Iterator<FaultProxy.Step> steps = FaultProxy.steps(schedule);
        for (int i = 0; i < n; i++) {
            out.add(steps.next());
        }
        return out;
    }

    @Test
    void aRunningScheduleInjectsEveryKindOfFaultUntilStopped() throws Exception {
        FaultProxy.Schedule fast = new FaultProxy.Schedule(7, Duration.ofMillis(5), Duration.ofMillis(10),
                Duration.ofMillis(5), Map.of(FaultProxy.Fault.CUT, 1, FaultProxy.Fault.DROP, 1,
                FaultProxy.Fault.DELAY, 1, FaultProxy.Fault.BLACK_HOLE, 1));
        proxy.startSchedule(fast);
        try {
            Await.until("every fault injected", () -> proxy.counts().values().stream().allMatch(n -> n > 0));
        } finally {
            proxy.stopSchedule();
        }
        int after = proxy.totalFaults();
        assertThat(proxy.counts().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(after);
        // stopped: a connection made now passes untouched
        try (Link link = connect()) {
            link.client().getOutputStream().write(bytes(1000, 8));
            assertThat(link.server().getInputStream().readNBytes(1000)).isEqualTo(bytes(1000, 8));
        }
        assertThat(proxy.totalFaults()).isEqualTo(after);
    }
}
