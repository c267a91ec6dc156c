package io.sluice.segment;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.sluice.common.Deadline;
import io.sluice.common.Threads;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.LoopbackProxy;
import io.sluice.connection.Outages;
import io.sluice.connection.RawClient;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.server.SegmentStore;
import io.sluice.server.SegmentStoreServer;
import io.sluice.server.TokenVerifier;
import io.sluice.wire.EventFrames;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.SegmentRead;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 12, defect 9: a writer (or reader) whose segment store goes away again and again for a few seconds must
 * resume soon after each return, not sleep through the server's up time in an exponential backoff that has grown
 * to 10 or 20 s. A proxy in front of the segment store refuses every connection for a while, then passes again;
 * with the default (Pravega) retry policy, the writer's and the reader's first progress after the proxy passes
 * must come within {@link #BOUND}, after every outage.
 */
@Timeout(120)
class ReconnectBackoffTest {
    private static final String SEG = "scope/stream/0.#epoch.0";
    /**
     * How soon after the server is reachable again a client must make progress. The wait between reconnect
     * attempts is at most 250 ms by default; the rest is slack for a loaded machine. Before that cap, the first
     * progress came 6.7 to 9.4 s after the server was back (the next attempt came 9 to 11 s after the outage began).
     */
    private static final Duration BOUND = Duration.ofSeconds(2);
    /** Each outage is longer than the 1.1 s in which the uncapped policy makes its first five attempts. */
    private static final List<Duration> OUTAGES = List.of(Duration.ofMillis(1500), Duration.ofSeconds(3),
            Duration.ofMillis(1500));

    private SegmentStore store;
    private SegmentStoreServer server;
    private LoopbackProxy proxy;
    private ConnectionPool viaProxy;
    private ConnectionPool direct;

    @BeforeEach
    void start() throws IOException {
        store = SegmentStore.inMemory(1);
        server = new SegmentStoreServer(store, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null,
                TokenVerifier.ACCEPT_ALL);
        store.createSegment(SEG, (byte) 0, 0, 0);
        proxy = new LoopbackProxy(server.endpoint());
        viaProxy = new ConnectionPool(new TcpConnectionFactory());
        direct = new ConnectionPool(new TcpConnectionFactory());
    }

    @AfterEach
    void stop() throws IOException {
        viaProxy.close();
        direct.close();
        proxy.close();
        server.close();
    }

    private static PendingEvent event(String s) {
        return PendingEvent.of(null, ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)));
    }

    private SegmentWriter writer(ConnectionPool pool, Outages.Progress progress) {
        SegmentLocator at = SegmentLocator.fixed(pool == viaProxy ? proxy.endpoint() : server.endpoint());
        return new SegmentWriter(SEG, UUID.randomUUID(), pool, at, () -> null, SegmentWriter.Config.DEFAULT,
                (segment, unacked) -> progress.fail(new AssertionError("segment " + segment + " ended")));
    }

    @Test
    void aWriterResumesSoonAfterEachOutage() throws Exception {
        Outages.Progress acked = new Outages.Progress();
        try (SegmentWriter w = writer(viaProxy, acked)) {
            Thread producer = Threads.startVirtual("reconnect-test-producer", () -> {
                try {
                    for (int i = 0; !Thread.currentThread().isInterrupted(); i++) {
                        PendingEvent e = event("e" + i);
                        w.write(e);
                        e.future().get();
                        acked.step();
                    }
                } catch (InterruptedException e) {
                    // done
                } catch (Exception e) {
                    acked.fail(e);
                }
            });
            try {
                assertThat(acked.await(() -> acked.count() > 10, Duration.ofSeconds(10))).isTrue();
                Outages.run(proxy, "writer", acked, OUTAGES, BOUND);
            } finally {
                producer.interrupt();
                producer.join();
            }
        }
        // exactly once: every acknowledged event is in the segment once, in order
        List<String> events = readAll();
        assertThat(events.size()).isGreaterThanOrEqualTo((int) acked.count());
        for (int i = 0; i < events.size(); i++) {
            assertThat(events.get(i)).isEqualTo("e" + i);
        }
    }

    @Test
    void aReaderResumesSoonAfterEachOutage() throws Exception {
        Outages.Progress read = new Outages.Progress();
        List<String> seen = new ArrayList<>();
        // the writer goes straight to the segment store: only the reader's connection goes through the proxy
        try (SegmentWriter w = writer(direct, read);
             SegmentReader r = new SegmentReader(SEG, 0, Long.MAX_VALUE, viaProxy,
                     SegmentLocator.fixed(proxy.endpoint()), () -> null, SegmentReader.Config.DEFAULT,
                     x -> read.wake())) {
            Thread consumer = Threads.startVirtual("reconnect-test-consumer", () -> {
                try {
                    while (!Thread.currentThread().isInterrupted()) {
                        SegmentReader.ReadEvent e = r.next();
                        if (e == null) {
                            read.await(r::hasSomething, Duration.ofMillis(100));
                            continue;
                        }
                        seen.add(StandardCharsets.UTF_8.decode(e.payload()).toString());
                        read.step();
                    }
                } catch (InterruptedException e) {
                    // done
                } catch (RuntimeException e) {
                    read.fail(e);
                }
            });
            Thread producer = Threads.startVirtual("reconnect-test-producer", () -> {
                try {
                    for (int i = 0; !Thread.currentThread().isInterrupted(); i++) {
                        PendingEvent e = event("e" + i);
                        w.write(e);
                        e.future().get();
                        // the next event once the reader has this one: the reader waits at the tail (in a long poll
                        // when it is cut), and there is always an event for it to read when the proxy passes again
                        long n = i;
                        read.await(() -> read.count() > n, Duration.ofSeconds(60));
                    }
                } catch (InterruptedException e) {
                    // done
                } catch (Exception e) {
                    read.fail(e);
                }
            });
            try {
                assertThat(read.await(() -> read.count() > 10, Duration.ofSeconds(10))).isTrue();
                Outages.run(proxy, "reader", read, OUTAGES, BOUND);
            } finally {
                producer.interrupt();
                consumer.interrupt();
                producer.join();
                consumer.join();
            }
        }
        for (int i = 0; i < seen.size(); i++) {
            assertThat(seen.get(i)).isEqualTo("e" + i);
        }
    }

    private List<String> readAll() {
        List<String> out = new ArrayList<>();
        RawClient raw = new RawClient(direct);
        long offset = 0;
        long length = store.segmentInfo(SEG).orElseThrow().length();
        while (offset < length) {
            long at = offset;
            SegmentRead r = raw.call(server.endpoint(), id -> new ReadSegment(SEG, at, 1 << 20, "", id),
                    SegmentRead.class, Deadline.after(Duration.ofSeconds(30)));
            offset += EventFrames.forEach(r.data(), e -> out.add(StandardCharsets.UTF_8.decode(e).toString()));
        }
        return out;
    }
}
