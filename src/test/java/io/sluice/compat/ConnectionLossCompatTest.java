package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.client.ClientInternals;
import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.LoopbackProxy;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.segment.PendingEvent;
import io.sluice.segment.RevisionedSegment;
import io.sluice.segment.SegmentCalls;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.SegmentReader;
import io.sluice.segment.SegmentWriter;
import io.sluice.stream.Segment;

/**
 * Sluice's segment clients against the REAL Pravega 0.13 segment store while a proxy in between cuts every
 * connection again and again. The real server does not deduplicate a resent append (docs/protocol.md §9: it
 * appends it a second time, without an acknowledgement), so exactly-once rests on the client alone: the writer must
 * resend only what {@code AppendSetup.lastEventNumber} says is missing, the reader must resume at its offset, and
 * conditional appends of two racing state clients must each land exactly once.
 */
@CompatTest
@Timeout(300)
class ConnectionLossCompatTest {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLossCompatTest.class);
    private static final Duration WAIT = Duration.ofSeconds(90);

    @RegisterExtension
    static final RealPravegaScope real = new RealPravegaScope("compat-loss");
    private static ConnectionPool direct;

    @BeforeAll
    static void connect() {
        direct = new ConnectionPool(new TcpConnectionFactory());
    }

    @AfterAll
    static void disconnect() {
        if (direct != null) {
            direct.close();
        }
    }

    /** Creates a one-segment stream; returns its segment. */
    private static Segment oneSegment(String stream) {
        return Segment.of(real.createStream(stream, 1), 0, 0);
    }

    private static Endpoint segmentStore(Segment segment) {
        return ClientInternals.controller(real.client).endpointFor(segment);
    }

    /** The events of a segment from 0 to its current end, read without the proxy. */
    private static List<String> readAll(Segment segment, long length) throws InterruptedException {
        return read(segment, length, SegmentLocator.fixed(segmentStore(segment)), direct, null);
    }

    /**
     * Reads {@code segment} from 0 to {@code length}; if {@code proxy} is given, cuts its connections after every
     * 2,000 events.
     */
    private static List<String> read(Segment segment, long length, SegmentLocator locator, ConnectionPool pool,
                                     LoopbackProxy proxy) throws InterruptedException {
        Semaphore ready = new Semaphore(0);
        List<String> out = new ArrayList<>();
        Deadline deadline = Deadline.after(WAIT);
        try (SegmentReader reader = new SegmentReader(segment.qualifiedName(), 0, length, pool, locator, () -> null,
                new SegmentReader.Config(16 * 1024, SegmentReader.Config.DEFAULT.retry()), r -> ready.release())) {
            while (true) {
                SegmentReader.ReadEvent e = reader.next();
                if (e != null) {
                    out.add(StandardCharsets.UTF_8.decode(e.payload()).toString());
                    if (proxy != null && out.size() % 2000 == 0) {
                        proxy.dropAll();
                    }
                } else if (reader.isFinished()) {
                    return out;
                } else {
                    assertThat(ready.tryAcquire(deadline.remainingNanos(), TimeUnit.NANOSECONDS))
                            .as("%s read to %s in time (%s events so far)", segment, length, out.size()).isTrue();
                }
            }
        }
    }

    private static long length(Segment segment) {
        return real.streams.streamInfo(segment.scope(), segment.stream()).tail().positions().get(segment);
    }

    @Test
    void writerAndReaderAreExactlyOnceAcrossCutConnections() throws Exception {
        Segment segment = oneSegment("cut");
        int n = 20_000;
        int cuts = 0;
        List<CompletableFuture<Void>> acks = new ArrayList<>();
        try (LoopbackProxy proxy = new LoopbackProxy(segmentStore(segment));
             ConnectionPool viaProxy = new ConnectionPool(new TcpConnectionFactory());
             SegmentWriter writer = new SegmentWriter(segment.qualifiedName(), UUID.randomUUID(), viaProxy,
                     SegmentLocator.fixed(proxy.endpoint()), () -> null, SegmentWriter.Config.DEFAULT,
                     (s, unacknowledged) -> { })) {
            for (int i = 0; i < n; i++) {
                PendingEvent e = PendingEvent.of("k", ByteBuffer.wrap(("event-" + i).getBytes(StandardCharsets.UTF_8)));
                assertThat(writer.write(e)).isTrue();
                acks.add(e.future());
                if (i % 2500 == 1000) {
                    cuts += proxy.dropAll();   // while blocks are in flight
                }
            }
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            LOG.info("writer: {} connections cut, {} made through the proxy", cuts, proxy.connections());
            assertThat(proxy.connections()).as("the writer reconnected after the cuts").isGreaterThan(1);

            List<String> expected = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                expected.add("event-" + i);
            }
            long length = length(segment);
            assertThat(readAll(segment, length)).as("what the real segment store holds").isEqualTo(expected);

            int before = proxy.connections();
            List<String> throughCuts = read(segment, length, SegmentLocator.fixed(proxy.endpoint()), viaProxy, proxy);
            assertThat(throughCuts).as("read through the proxy while it cuts connections").isEqualTo(expected);
            assertThat(proxy.connections() - before).as("the reader reconnected").isGreaterThan(1);
        }
    }

    @Test
    void racingConditionalAppendsLandExactlyOnceAcrossCutConnections() throws Exception {
        Segment segment = oneSegment("state");
        int perClient = 150;
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        try (LoopbackProxy proxy = new LoopbackProxy(segmentStore(segment));
             ConnectionPool poolA = new ConnectionPool(new TcpConnectionFactory());
             ConnectionPool poolB = new ConnectionPool(new TcpConnectionFactory());
             RevisionedSegment a = new RevisionedSegment(segment.qualifiedName(), poolA,
                     SegmentLocator.fixed(proxy.endpoint()), () -> null, SegmentCalls.Config.DEFAULT);
             RevisionedSegment b = new RevisionedSegment(segment.qualifiedName(), poolB,
                     SegmentLocator.fixed(proxy.endpoint()), () -> null, SegmentCalls.Config.DEFAULT)) {
            List<Future<Integer>> clients = new ArrayList<>();
            for (RevisionedSegment log : List.of(a, b)) {
                String name = log == a ? "a" : "b";
                clients.add(threads.submit(() -> {
                    int conflicts = 0;
                    for (int i = 0; i < perClient; i++) {
                        ByteBuffer update = ByteBuffer.wrap((name + ":" + i).getBytes(StandardCharsets.UTF_8));
                        while (log.writeConditionally(log.latestRevision(), update) == RevisionedSegment.CONFLICT) {
                            conflicts++;
                        }
                        if (name.equals("a") && i % 15 == 7) {
                            proxy.dropAll();
                        }
                    }
                    return conflicts;
                }));
            }
            int conflicts = 0;
            for (Future<Integer> c : clients) {
                conflicts += c.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            LOG.info("state clients: {} conflicts, {} connections through the proxy", conflicts, proxy.connections());

            // every update exactly once, each client's in its order
            Map<String, Integer> next = new TreeMap<>(Map.of("a", 0, "b", 0));
            List<String> problems = new ArrayList<>();
            List<RevisionedSegment.Revisioned> updates = a.readFrom(0);
            for (RevisionedSegment.Revisioned r : updates) {
                String u = StandardCharsets.UTF_8.decode(r.update()).toString();
                String who = u.substring(0, 1);
                int i = Integer.parseInt(u.substring(2));
                if (i != next.get(who)) {
                    problems.add(u + " where " + who + ":" + next.get(who) + " was due");
                }
                next.put(who, Math.max(next.get(who), i + 1));
            }
            assertThat(problems).as("duplicated or lost conditional appends").isEmpty();
            assertThat(updates).hasSize(2 * perClient);
            assertThat(a.latestRevision()).isEqualTo(b.latestRevision()).isEqualTo(length(segment));
        } finally {
            threads.shutdownNow();
        }
    }
}
