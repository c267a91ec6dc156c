package io.sluice.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.common.Deadline;
import io.sluice.common.Retry;
import io.sluice.common.Threads;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.server.EmbeddedServer;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentIsTruncated;
import io.sluice.wire.WrongHost;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Range reads, events by pointer and the long-poll wait, against the embedded server. */
@Timeout(60)
class SegmentFetcherTest {
    private static final SegmentCalls.Config FAST = new SegmentCalls.Config(
            Retry.withExpBackoff(Duration.ofMillis(1), 2, 10, Duration.ofMillis(20)), Duration.ofSeconds(10));
    private static final AtomicInteger NAMES = new AtomicInteger();

    private static EmbeddedServer server;
    private static ConnectionPool pool;
    private static SegmentCalls calls;
    private final List<RevisionedSegment> writers = new ArrayList<>();
    private final ExecutorService waiters = Threads.perTaskExecutor("fetcher-test-");

    @BeforeAll
    static void start() {
        server = EmbeddedServer.builder().inMemory().build();
        pool = new ConnectionPool(new TcpConnectionFactory());
        calls = new SegmentCalls(pool, SegmentLocator.fixed(server.segmentStoreEndpoint()), FAST);
    }

    @AfterAll
    static void stop() {
        pool.close();
        server.close();
    }

    @AfterEach
    void closeWriters() {
        waiters.shutdownNow();
        writers.forEach(RevisionedSegment::close);
    }

    private record Fixture(SegmentFetcher fetcher, SegmentMetadataClient metadata, RevisionedSegment writer) {
        /** Appends one event; @return the offset after it */
        long append(String payload) {
            return writer.writeUnconditionally(ByteBuffer.wrap(payload.getBytes(StandardCharsets.UTF_8)));
        }
    }

    /** A new segment with a fetcher, a metadata client and a writer of events. */
    private Fixture segment() {
        String name = "fetch/s" + NAMES.incrementAndGet() + "/0.#epoch.0";
        SegmentMetadataClient metadata = new SegmentMetadataClient(calls, name, null);
        assertThat(metadata.create()).isTrue();
        RevisionedSegment writer = new RevisionedSegment(name, pool,
                SegmentLocator.fixed(server.segmentStoreEndpoint()), () -> null, new SegmentCalls.Config(FAST.retry(), Duration.ofSeconds(10)));
        writers.add(writer);
        return new Fixture(new SegmentFetcher(calls, name, null), metadata, writer);
    }

    private static String text(ByteBuffer b) {
        return StandardCharsets.UTF_8.decode(b).toString();
    }

    @Test
    void fetchReadsExactlyTheRange() {
        Fixture f = segment();
        f.append("hello"); // 0..13
        f.append("world!"); // 13..27
        ByteBuffer all = f.fetcher().fetch(0, 27);
        assertThat(all.remaining()).isEqualTo(27);
        assertThat(all.getInt(0)).as("event type").isZero();
        assertThat(all.getInt(4)).as("event length").isEqualTo(5);
        assertThat(text(f.fetcher().fetch(8, 5))).isEqualTo("hello");
        assertThat(text(f.fetcher().fetch(21, 6))).isEqualTo("world!");
        assertThat(f.fetcher().fetch(27, 0).remaining()).isZero();
    }

    @Test
    void fetchRefusesRangesBeyondTheEndBeforeTheStartOrNegative() {
        Fixture f = segment();
        f.append("abc"); // 0..11
        f.append("def"); // 11..22
        assertThatThrownBy(() -> f.fetcher().fetch(20, 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("22 bytes long");
        assertThatThrownBy(() -> f.fetcher().fetch(-1, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> f.fetcher().fetch(0, -3)).isInstanceOf(IllegalArgumentException.class);
        f.metadata().truncate(11);
        assertThatThrownBy(() -> f.fetcher().fetch(0, 11)).isInstanceOf(SegmentTruncatedException.class)
                .hasMessageContaining("starts at offset 11");
        assertThat(text(f.fetcher().fetch(19, 3))).isEqualTo("def");
    }

    @Test
    void fetchOfAMissingSegmentSaysSo() {
        SegmentFetcher fetcher = new SegmentFetcher(calls, "fetch/missing/0.#epoch.0", null);
        assertThatThrownBy(() -> fetcher.fetch(0, 1)).isInstanceOf(NoSuchSegmentException.class);
    }

    @Test
    void fetchEventReturnsThePayloadOfTheEventAtThePointer() {
        Fixture f = segment();
        long second = f.append("first");
        long end = f.append("second");
        ByteBuffer event = f.fetcher().fetchEvent(second, (int) (end - second));
        assertThat(event.isReadOnly()).isTrue();
        assertThat(text(event)).isEqualTo("second");
        assertThat(text(f.fetcher().fetchEvent(0, (int) second))).isEqualTo("first");
    }

    @Test
    void fetchEventRefusesAPointerThatIsNotAnEvent() {
        Fixture f = segment();
        long second = f.append("first"); // 13
        f.append("second"); // 13..27
        assertThatThrownBy(() -> f.fetcher().fetchEvent(0, 12)).as("wrong size")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("there is no event at offset 0")
                .hasMessageContaining("not an event of 4 bytes");
        assertThatThrownBy(() -> f.fetcher().fetchEvent(second + 1, 10)).as("not at an event")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("there is no event");
        assertThatThrownBy(() -> f.fetcher().fetchEvent(second, 100)).as("beyond the end")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> f.fetcher().fetchEvent(0, 7)).as("shorter than a header")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 8 bytes");
    }

    @Test
    void fetchEventOfATruncatedEventSaysSo() {
        Fixture f = segment();
        long second = f.append("first");
        f.append("second");
        f.metadata().truncate(second);
        assertThatThrownBy(() -> f.fetcher().fetchEvent(0, (int) second))
                .isInstanceOf(SegmentTruncatedException.class);
        assertThat(text(f.fetcher().fetchEvent(second, 14))).isEqualTo("second");
    }

    @Test
    void awaitDataAnswersAtOnceWhereThereIsData() {
        Fixture f = segment();
        f.append("x");
        assertThat(f.fetcher().awaitData(0, Deadline.after(Duration.ofSeconds(10))))
                .isEqualTo(SegmentFetcher.Wait.CHANGED);
    }

    @Test
    void awaitDataTimesOutAtTheTail() {
        Fixture f = segment();
        long end = f.append("x");
        long start = System.nanoTime();
        assertThat(f.fetcher().awaitData(end, Deadline.afterMillis(300))).isEqualTo(SegmentFetcher.Wait.TIMED_OUT);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250))
                .isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void awaitDataWakesOnAnAppend() throws Exception {
        Fixture f = segment();
        long end = f.append("x");
        Future<SegmentFetcher.Wait> wait = waiters.submit(() -> f.fetcher().awaitData(end,
                Deadline.after(Duration.ofSeconds(30))));
        f.append("y");
        assertThat(wait.get(10, TimeUnit.SECONDS)).isEqualTo(SegmentFetcher.Wait.CHANGED);
    }

    @Test
    void awaitDataAtTheEndOfASealedSegmentSaysSealed() {
        Fixture f = segment();
        long end = f.append("x");
        f.metadata().seal();
        assertThat(f.fetcher().awaitData(end, Deadline.after(Duration.ofSeconds(10))))
                .isEqualTo(SegmentFetcher.Wait.SEALED);
        assertThat(f.fetcher().awaitData(0, Deadline.after(Duration.ofSeconds(10))))
                .as("data before the end").isEqualTo(SegmentFetcher.Wait.CHANGED);
    }

    @Test
    void aWaitUnderWaySaysSealedWhenTheSegmentIsSealed() throws Exception {
        Fixture f = segment();
        long end = f.append("x");
        Future<SegmentFetcher.Wait> wait = waiters.submit(() -> f.fetcher().awaitData(end,
                Deadline.after(Duration.ofSeconds(30))));
        // the seal may come before or after the read is parked at the tail: both must end the wait as SEALED
        f.metadata().seal();
        assertThat(wait.get(10, TimeUnit.SECONDS)).isEqualTo(SegmentFetcher.Wait.SEALED);
    }

    // ------------------------------------------------------------------ how a wait ends, scripted

    private static final String SEG = "fetch/scripted/0.#epoch.0";

    @Test
    void aWaitParkedAtTheTailThatTheStoreEndsAsSealedSaysSealed() throws Exception {
        // Sluice's segment store answers a read parked at the tail with SegmentIsSealed when the segment is sealed
        try (ScriptedSegmentStore store = new ScriptedSegmentStore((conn, request, peer) -> {
            if (request instanceof ReadSegment r) {
                peer.send(new SegmentIsSealed(r.requestId(), SEG, "", r.offset()));
            }
        })) {
            SegmentFetcher fetcher = new SegmentFetcher(new SegmentCalls(pool,
                    SegmentLocator.fixed(store.endpoint()), FAST), SEG, null);
            assertThat(fetcher.awaitData(5, Deadline.after(Duration.ofSeconds(10))))
                    .isEqualTo(SegmentFetcher.Wait.SEALED);
        }
    }

    @Test
    void aWaitCutShortByAMoveALostConnectionOrATruncationSaysChanged() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        try (ScriptedSegmentStore store = new ScriptedSegmentStore((conn, request, peer) -> {
            if (request instanceof ReadSegment r) {
                switch (reads.incrementAndGet()) {
                    case 1 -> peer.send(new WrongHost(r.requestId(), SEG, "", ""));
                    case 2 -> peer.hangUp();
                    default -> peer.send(new SegmentIsTruncated(r.requestId(), SEG, 100, "", r.offset()));
                }
            }
        })) {
            SegmentCallsTest.CountingLocator locator = new SegmentCallsTest.CountingLocator(store.endpoint());
            SegmentFetcher fetcher = new SegmentFetcher(new SegmentCalls(pool, locator, FAST), SEG, null);
            for (int i = 0; i < 3; i++) {
                assertThat(fetcher.awaitData(5, Deadline.after(Duration.ofSeconds(10))))
                        .as("wait %d", i + 1).isEqualTo(SegmentFetcher.Wait.CHANGED);
            }
            assertThat(locator.invalidated()).containsExactly(SEG);
            assertThat(reads.get()).as("each wait is one read: the caller loops").isEqualTo(3);
        }
    }

    @Test
    void aWaitRefusedForAnotherReasonThrows() throws Exception {
        try (ScriptedSegmentStore store = new ScriptedSegmentStore((conn, request, peer) -> {
            if (request instanceof ReadSegment r) {
                peer.send(new NoSuchSegment(r.requestId(), SEG, "", r.offset()));
            }
        })) {
            SegmentFetcher fetcher = new SegmentFetcher(new SegmentCalls(pool,
                    SegmentLocator.fixed(store.endpoint()), FAST), SEG, null);
            assertThatThrownBy(() -> fetcher.awaitData(5, Deadline.after(Duration.ofSeconds(10))))
                    .isInstanceOf(NoSuchSegmentException.class);
        }
    }
}
