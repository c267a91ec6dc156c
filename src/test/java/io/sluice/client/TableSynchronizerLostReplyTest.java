package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.common.Await;
import io.sluice.common.Retry;
import io.sluice.common.Threads;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.LoopbackProxy;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.segment.SegmentCalls;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.TableSegmentClient;
import io.sluice.segment.TableSegmentEntry;
import io.sluice.server.EmbeddedServer;
import io.sluice.state.SynchronizerConfig;
import io.sluice.stream.Serializers;
import io.sluice.table.TableSynchronizer;
import io.sluice.table.TableSynchronizerScenarios;

/**
 * A table synchronizer whose write reaches the segment store but whose reply is lost with the connection: the call
 * layer sends the write again, which then fails its conditions; the synchronizer's marker key shows the first attempt
 * was applied, so the update is neither lost nor applied twice.
 */
@Timeout(60)
class TableSynchronizerLostReplyTest {
    private static final String SEGMENT = "lost/_SYNCcounters/0.#epoch.0";
    private static EmbeddedServer server;
    private static ConnectionPool pool;

    @BeforeAll
    static void start() {
        server = EmbeddedServer.builder().inMemory().build();
        pool = new ConnectionPool(new TcpConnectionFactory());
    }

    @AfterAll
    static void stop() {
        if (pool != null) {
            pool.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static SegmentCalls calls(SegmentLocator locator) {
        return new SegmentCalls(pool, locator, new SegmentCalls.Config(
                Retry.withExpBackoff(Duration.ofMillis(1), 2, 5, Duration.ofMillis(50)), Duration.ofSeconds(10)));
    }

    private static TableSynchronizer<String, Long> sync(SegmentCalls calls) {
        return new TableSynchronizerImpl<>("lost", "counters", new TableSegmentClient(calls, SEGMENT, null),
                Serializers.utf8(), TableSynchronizerScenarios.LONGS, SynchronizerConfig.DEFAULT);
    }

    /** @return the value of user key {@code key} as stored (prefix byte, then 8 bytes), read past the proxy */
    private static long stored(TableSegmentClient direct, String key) {
        ByteBuffer k = ByteBuffer.allocate(1 + key.length()).put((byte) 1).put(key.getBytes()).flip();
        return direct.get(k).map(TableSegmentEntry::value).map(v -> v.getLong(v.position() + 1)).orElse(-1L);
    }

    @Test
    void anUpdateWhoseReplyWasLostIsAppliedOnce() throws Exception {
        TableSegmentClient direct = new TableSegmentClient(calls(SegmentLocator.fixed(server.segmentStoreEndpoint())),
                SEGMENT, null);
        assertThat(direct.create()).isTrue();
        try (LoopbackProxy proxy = new LoopbackProxy(server.segmentStoreEndpoint())) {
            TableSynchronizer<String, Long> sync = sync(calls(SegmentLocator.fixed(proxy.endpoint())));
            sync.update(m -> Map.of("n", 1L));
            AtomicInteger calls = new AtomicInteger();
            CompletableFuture<Map<String, Long>> after = new CompletableFuture<>();
            Threads.startVirtual("test-update", () -> {
                try {
                    after.complete(sync.update(m -> {
                        if (calls.incrementAndGet() == 1) {
                            proxy.holdReplies(); // the fetch is done: hold back the reply to the write
                        }
                        return Map.of("n", m.get("n") + 1);
                    }));
                } catch (RuntimeException e) {
                    after.completeExceptionally(e);
                }
            });
            Await.until("the write is applied", () -> stored(direct, "n") == 2);
            assertThat(proxy.dropAll()).as("connections cut with the reply held back").isPositive();
            proxy.release();
            assertThat(after.get(30, TimeUnit.SECONDS)).isEqualTo(Map.of("n", 2L));
            assertThat(calls.get()).as("the function ran once: the marker showed the write was in").isEqualTo(1);
            assertThat(stored(direct, "n")).isEqualTo(2);
        }
        TableSynchronizer<String, Long> fresh = sync(calls(SegmentLocator.fixed(server.segmentStoreEndpoint())));
        fresh.fetchUpdates();
        assertThat(fresh.snapshot()).isEqualTo(Map.of("n", 2L));
    }
}
