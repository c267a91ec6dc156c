package io.sluice.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.common.Threads;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.server.SegmentStore;
import io.sluice.server.SegmentStoreServer;
import io.sluice.server.TokenVerifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Shared state over the embedded segment store: optimistic updates from many synchronizers, compaction, reconnects. */
@Timeout(60)
class StateSynchronizerTest {
    private static final String SEG = "scope/_RGgroup/0.#epoch.0";
    private static final Duration TIMEOUT = Duration.ofSeconds(40);

    /** A counter: the state is a long, an update adds to it. */
    private static final StateSynchronizer.Codec<Long> LONGS = StateSynchronizer.Codec.of(
            v -> ByteBuffer.allocate(8).putLong(0, v), b -> b.getLong(b.position()));

    /** A map of strings; an update puts one entry. */
    record Put(String key, String value) {
    }

    private static final StateSynchronizer.Codec<Put> PUTS = StateSynchronizer.Codec.of(
            p -> RevisionedSegmentTest.bytes(p.key() + "=" + p.value()),
            b -> {
                String[] kv = RevisionedSegmentTest.text(b).split("=", 2);
                return new Put(kv[0], kv[1]);
            });
    private static final StateSynchronizer.Codec<Map<String, String>> MAPS = StateSynchronizer.Codec.of(
            m -> {
                StringBuilder sb = new StringBuilder();
                new TreeMap<>(m).forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
                return RevisionedSegmentTest.bytes(sb.toString());
            },
            b -> {
                Map<String, String> m = new HashMap<>();
                for (String line : RevisionedSegmentTest.text(b).split("\n")) {
                    if (!line.isEmpty()) {
                        String[] kv = line.split("=", 2);
                        m.put(kv[0], kv[1]);
                    }
                }
                return Map.copyOf(m);
            });

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

    private RevisionedSegment log(String segment) {
        RevisionedSegment c = new RevisionedSegment(segment, pool, SegmentLocator.fixed(server.endpoint()), () -> null,
                RevisionedSegmentTest.FAST);
        clients.add(c);
        return c;
    }

    private StateSynchronizer<Long, Long> counter() {
        return counter(SEG);
    }

    private StateSynchronizer<Long, Long> counter(String segment) {
        return new StateSynchronizer<>(log(segment), LONGS, LONGS, Long::sum, TIMEOUT);
    }

    private StateSynchronizer<Map<String, String>, Put> map() {
        return new StateSynchronizer<>(log(SEG), MAPS, PUTS, (m, p) -> {
            Map<String, String> next = new HashMap<>(m);
            next.put(p.key(), p.value());
            return Map.copyOf(next);
        }, TIMEOUT);
    }

    private static List<Long> one() {
        return List.of(1L);
    }

    @Test
    void initializesOnlyAnEmptyLog() {
        StateSynchronizer<Long, Long> a = counter();
        StateSynchronizer<Long, Long> b = counter();
        assertThat(a.state()).isNull();
        assertThat(a.initialize(7L)).isTrue();
        assertThat(a.state()).isEqualTo(7L);
        assertThat(a.revision()).isEqualTo(8 + 4 + 8);
        assertThat(b.initialize(100L)).isFalse();
        assertThat(b.state()).isEqualTo(7L);
        assertThat(b.revision()).isEqualTo(a.revision());
    }

    @Test
    void updatesNeedAState() {
        StateSynchronizer<Long, Long> a = counter();
        assertThatThrownBy(() -> a.updateState(s -> one())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("initialize");
        assertThatThrownBy(a::compact).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void updateAppliesLocallyAndElsewhere() {
        StateSynchronizer<Long, Long> a = counter();
        StateSynchronizer<Long, Long> b = counter();
        a.initialize(0L);
        assertThat(a.updateState(s -> List.of(5L))).isEqualTo(5L);
        assertThat(b.state()).isNull();
        b.fetchUpdates();
        assertThat(b.state()).isEqualTo(5L);
        assertThat(b.updateState(s -> List.of(s * 10))).isEqualTo(55L);
        long before = b.revision();
        assertThat(b.updateState(s -> List.of())).isEqualTo(55L);
        assertThat(b.revision()).isEqualTo(before);
        assertThat(b.segment().latestRevision()).isEqualTo(before);
        a.fetchUpdates();
        assertThat(a.state()).isEqualTo(55L);
        assertThat(a.revision()).isEqualTo(b.revision());
    }

    @Test
    void fourSynchronizersIncrementingConcurrentlyLoseNothing() throws Exception {
        int syncs = 4;
        int threadsEach = 3;
        int increments = 20;
        List<StateSynchronizer<Long, Long>> all = new ArrayList<>();
        for (int i = 0; i < syncs; i++) {
            all.add(counter());
        }
        all.get(0).initialize(0L);
        AtomicInteger generatorCalls = new AtomicInteger();
        try (ExecutorService exec = Threads.perTaskExecutor("incr-")) {
            List<Future<?>> done = new ArrayList<>();
            for (StateSynchronizer<Long, Long> s : all) {
                for (int t = 0; t < threadsEach; t++) {
                    done.add(exec.submit(() -> {
                        for (int i = 0; i < increments; i++) {
                            s.updateState(state -> {
                                generatorCalls.incrementAndGet();
                                return one();
                            });
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : done) {
                f.get(50, TimeUnit.SECONDS);
            }
        }
        long total = (long) syncs * threadsEach * increments;
        for (StateSynchronizer<Long, Long> s : all) {
            s.fetchUpdates();
            assertThat(s.state()).isEqualTo(total);
        }
        StateSynchronizer<Long, Long> fresh = counter();
        fresh.fetchUpdates();
        assertThat(fresh.state()).isEqualTo(total);
        assertThat(generatorCalls.get()).isGreaterThanOrEqualTo((int) total);
        // one full state, then exactly one record per increment
        assertThat(fresh.segment().readFrom(0)).hasSize((int) total + 1);
    }

    @Test
    void fourSynchronizersPuttingConcurrentlyLoseNothing() throws Exception {
        List<StateSynchronizer<Map<String, String>, Put>> all = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            all.add(map());
        }
        all.get(0).initialize(Map.of());
        try (ExecutorService exec = Threads.perTaskExecutor("put-")) {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < all.size(); i++) {
                StateSynchronizer<Map<String, String>, Put> s = all.get(i);
                String name = "s" + i;
                done.add(exec.submit(() -> {
                    for (int k = 0; k < 25; k++) {
                        String key = name + "-k" + k;
                        // the value depends on the state the generator sees
                        s.updateState(m -> List.of(new Put(key, String.valueOf(m.size()))));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(50, TimeUnit.SECONDS);
            }
        }
        all.forEach(StateSynchronizer::fetchUpdates);
        Map<String, String> result = all.get(0).state();
        assertThat(result).hasSize(100);
        // every put saw a different state size: the puts were serialised by the log
        assertThat(result.values()).doesNotHaveDuplicates();
        for (StateSynchronizer<Map<String, String>, Put> s : all) {
            assertThat(s.state()).isEqualTo(result);
        }
    }

    @Test
    void updatesOfOneCallAreAppliedTogether() throws Exception {
        StateSynchronizer<Map<String, String>, Put> writer = map();
        StateSynchronizer<Map<String, String>, Put> reader = map();
        writer.initialize(Map.of("x", "0", "y", "0"));
        AtomicBoolean stop = new AtomicBoolean();
        try (ExecutorService exec = Threads.perTaskExecutor("atomic-")) {
            Future<Integer> watched = exec.submit(() -> {
                int checks = 0;
                while (!stop.get()) {
                    reader.fetchUpdates();
                    Map<String, String> m = reader.state();
                    assertThat(m.get("x")).isEqualTo(m.get("y"));
                    checks++;
                }
                return checks;
            });
            for (int i = 1; i <= 100; i++) {
                String v = String.valueOf(i);
                writer.updateState(m -> List.of(new Put("x", v), new Put("y", v)));
            }
            stop.set(true);
            assertThat(watched.get(30, TimeUnit.SECONDS)).isPositive();
        }
        reader.fetchUpdates();
        assertThat(reader.state()).containsEntry("x", "100").containsEntry("y", "100");
        // one record per call, both updates in it
        assertThat(writer.segment().readFrom(0)).hasSize(101);
    }

    @Test
    void compactionLetsNewAndLaggingSynchronizersStartFromTheMark() {
        StateSynchronizer<Long, Long> a = counter();
        StateSynchronizer<Long, Long> lagging = counter();
        a.initialize(0L);
        for (int i = 0; i < 10; i++) {
            a.updateState(s -> one());
        }
        lagging.fetchUpdates();
        assertThat(lagging.state()).isEqualTo(10L);
        for (int i = 0; i < 20; i++) {
            a.updateState(s -> one());
        }
        long before = a.revision();
        long mark = a.compact();
        assertThat(mark).isEqualTo(before);
        assertThat(a.revision()).isGreaterThan(before);
        RevisionedSegment raw = log(SEG);
        assertThat(raw.mark()).isEqualTo(mark);
        assertThat(raw.startRevision()).isEqualTo(mark);
        assertThat(store.segmentInfo(SEG).orElseThrow().startOffset()).isEqualTo(mark);
        assertThatThrownBy(() -> raw.readFrom(0)).isInstanceOf(SegmentTruncatedException.class);
        for (int i = 0; i < 5; i++) {
            a.updateState(s -> one());
        }

        StateSynchronizer<Long, Long> fresh = counter();
        fresh.fetchUpdates();
        assertThat(fresh.state()).isEqualTo(35L);
        assertThat(fresh.revision()).isEqualTo(a.revision());

        assertThat(lagging.revision()).isLessThan(mark);
        assertThat(lagging.updateState(s -> one())).isEqualTo(36L);
        a.fetchUpdates();
        assertThat(a.state()).isEqualTo(36L);

        long second = lagging.compact();
        assertThat(second).isGreaterThan(mark);
        assertThat(raw.mark()).isEqualTo(second);
        assertThat(raw.startRevision()).isEqualTo(second);
        StateSynchronizer<Long, Long> third = counter();
        third.fetchUpdates();
        assertThat(third.state()).isEqualTo(36L);
    }

    @Test
    void truncatedLogWithoutAFullStateIsReported() {
        StateSynchronizer<Long, Long> a = counter();
        a.initialize(0L);
        a.updateState(s -> one());
        long r = a.revision();
        a.updateState(s -> one());
        log(SEG).truncateTo(r);   // no mark, no full state after it
        StateSynchronizer<Long, Long> fresh = counter();
        assertThatThrownBy(fresh::fetchUpdates).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no full state");
    }

    @Test
    void droppedConnectionsNeitherDuplicateNorLoseUpdates() throws Exception {
        StateSynchronizer<Long, Long> a = counter();
        StateSynchronizer<Long, Long> b = counter();
        a.initialize(0L);
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
        int increments = 25;
        try (ExecutorService exec = Threads.perTaskExecutor("drop-")) {
            List<Future<?>> done = new ArrayList<>();
            for (StateSynchronizer<Long, Long> s : List.of(a, a, b, b)) {
                done.add(exec.submit(() -> {
                    for (int i = 0; i < increments; i++) {
                        s.updateState(state -> one());
                        dropRequests.add(i);   // races with the next updates
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(50, TimeUnit.SECONDS);
            }
        } finally {
            dropRequests.add(-1);
            dropper.join(Duration.ofSeconds(10));
        }
        StateSynchronizer<Long, Long> fresh = counter();
        fresh.fetchUpdates();
        assertThat(fresh.state()).isEqualTo(4L * increments);
        assertThat(fresh.segment().readFrom(0)).hasSize(4 * increments + 1);
        a.fetchUpdates();
        b.fetchUpdates();
        assertThat(a.state()).isEqualTo(4L * increments);
        assertThat(b.state()).isEqualTo(4L * increments);
    }

    @Test
    void sealedAndMissingSegments() {
        StateSynchronizer<Long, Long> a = counter();
        a.initialize(1L);
        store.sealSegment(SEG);
        assertThatThrownBy(() -> a.updateState(s -> one())).isInstanceOf(SegmentSealedException.class)
                .hasMessageContaining(SEG);
        StateSynchronizer<Long, Long> reader = counter();
        reader.fetchUpdates();
        assertThat(reader.state()).isEqualTo(1L);

        StateSynchronizer<Long, Long> missing = counter("scope/_RGnone/0.#epoch.0");
        assertThatThrownBy(missing::fetchUpdates).isInstanceOf(NoSuchSegmentException.class)
                .hasMessageContaining("scope/_RGnone/0.#epoch.0");
        assertThatThrownBy(() -> missing.initialize(0L)).isInstanceOf(NoSuchSegmentException.class);
    }
}
