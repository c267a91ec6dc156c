package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.client.ClientInternals;
import io.sluice.common.Endpoint;
import io.sluice.common.Retry;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.errors.BadKeyVersionException;
import io.sluice.errors.InvalidRequestException;
import io.sluice.errors.NoSuchKeyException;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.TableSegmentNotEmptyException;
import io.sluice.segment.FrameCountingProxy;
import io.sluice.segment.SegmentCalls;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.SegmentMetadataClient;
import io.sluice.segment.TableSegmentChanges;
import io.sluice.segment.TableSegmentClient;
import io.sluice.segment.TableSegmentDeltaReader;
import io.sluice.segment.TableSegmentEntry;
import io.sluice.segment.TableSegmentKey;
import io.sluice.segment.TableSegmentPage;
import io.sluice.stream.Segment;
import io.sluice.wire.WireCommandType;

/**
 * The table-segment client against the REAL Pravega 0.13 segment store: every operation and error reply, iteration
 * (hash-ordered tables with the server's continuation tokens, tables with fixed-length keys paged by key), and delta
 * reads that follow a writer and wait at the table's length with a long-poll read.
 *
 * <p>Table segments are created directly on the segment store, as Pravega's controller creates its own tables and
 * its Rust client creates key-value table segments: the controller is not told. A segment store without auth lets any
 * client do so. The names are Pravega's: {@code scope/_tables/name} for a table with keys of any length (how Pravega
 * names its internal tables) and {@code scope/kvt_kvtable/0.#epoch.0} for one with fixed-length keys (a key-value
 * table's segment). The standalone runs one segment store: the one serving a stream of the test's scope serves them.
 */
@CompatTest
@Timeout(120)
class TableSegmentCompatTest {
    @RegisterExtension
    static final RealPravegaScope real = new RealPravegaScope("compat-tables");
    private static Endpoint segmentStore;
    private static ConnectionPool pool;
    private static SegmentCalls calls;
    private static final AtomicInteger TABLES = new AtomicInteger();

    @BeforeAll
    static void connect() {
        Segment anchor = Segment.of(real.createStream("anchor", 1), 0, 0);
        segmentStore = ClientInternals.controller(real.client).endpointFor(anchor);
        pool = new ConnectionPool(new TcpConnectionFactory());
        calls = new SegmentCalls(pool, SegmentLocator.fixed(segmentStore), new SegmentCalls.Config(
                Retry.withExpBackoff(Duration.ofMillis(1), 2, 5, Duration.ofMillis(100)), Duration.ofSeconds(30)));
    }

    @AfterAll
    static void disconnect() {
        if (pool != null) {
            pool.close();
        }
    }

    private static String name(String what) {
        return real.scope + "/_tables/" + what + "-" + TABLES.incrementAndGet();
    }

    private static TableSegmentClient created(String what) {
        TableSegmentClient t = new TableSegmentClient(calls, name(what), null);
        assertThat(t.create()).isTrue();
        return t;
    }

    private static TableSegmentClient fixed(String kvt) {
        TableSegmentClient t = new TableSegmentClient(calls, real.scope + "/" + kvt + "_kvtable/0.#epoch.0", null);
        assertThat(t.create(4)).isTrue();
        return t;
    }

    static ByteBuffer b(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static String s(ByteBuffer b) {
        return StandardCharsets.UTF_8.decode(b.duplicate()).toString();
    }

    private static ByteBuffer key4(int n) {
        return ByteBuffer.allocate(4).putInt(0, n);
    }

    @Test
    void createInfoAndDelete() {
        TableSegmentClient t = new TableSegmentClient(calls, name("lifecycle"), null);
        assertThat(t.create()).isTrue();
        assertThat(t.create()).isFalse();
        assertThat(t.create(8)).as("the existing table's key length is not compared").isFalse();
        assertThat(t.info().length()).isZero();
        assertThat(t.info().keyLength()).isZero();
        long v = t.put(b("k1"), b("v1"));
        assertThat(v).isZero();
        assertThat(t.info().length()).as("an entry takes a 17-byte header, its key and its value").isEqualTo(21);
        assertThatThrownBy(() -> t.delete(true)).isInstanceOf(TableSegmentNotEmptyException.class);
        t.remove(b("k1"));
        assertThat(t.delete(true)).isTrue();
        assertThat(t.delete(true)).isFalse();
        assertThatThrownBy(t::info).isInstanceOf(NoSuchSegmentException.class);
        assertThatThrownBy(() -> t.get(b("k1"))).isInstanceOf(NoSuchSegmentException.class);
        assertThatThrownBy(() -> t.put(b("k1"), b("v"))).isInstanceOf(NoSuchSegmentException.class);

        TableSegmentClient full = created("full");
        full.put(b("k"), b("v"));
        assertThat(full.delete(false)).isTrue();
    }

    @Test
    void readsWritesConditionsAndRemovals() {
        TableSegmentClient t = created("rw");
        long va = t.put(b("a"), b("a0"));
        long vb = t.insert(b("b"), b("b0"));
        assertThat(vb).isGreaterThan(va);
        assertThat(t.get(b("a")).orElseThrow()).isEqualTo(new TableSegmentEntry(b("a"), b("a0"), va));
        assertThat(t.get(b("missing"))).isEmpty();
        List<Optional<TableSegmentEntry>> many = t.get(List.of(b("b"), b("missing"), b("a")));
        assertThat(many.get(0).orElseThrow().version()).isEqualTo(vb);
        assertThat(many.get(1)).isEmpty();
        assertThat(many.get(2).orElseThrow().version()).isEqualTo(va);

        assertThatThrownBy(() -> t.insert(b("a"), b("again"))).isInstanceOf(BadKeyVersionException.class);
        long va1 = t.put(TableSegmentEntry.versioned(b("a"), b("a1"), va));
        assertThatThrownBy(() -> t.put(TableSegmentEntry.versioned(b("a"), b("stale"), va)))
                .isInstanceOf(BadKeyVersionException.class);
        assertThatThrownBy(() -> t.put(TableSegmentEntry.versioned(b("nokey"), b("x"), va)))
                .isInstanceOf(NoSuchKeyException.class);

        List<TableSegmentEntry> bad = List.of(TableSegmentEntry.unversioned(b("c"), b("c0")),
                TableSegmentEntry.versioned(b("b"), b("b1"), va));
        assertThatThrownBy(() -> t.put(bad)).isInstanceOf(BadKeyVersionException.class);
        assertThat(t.get(b("c"))).as("a failed batch writes nothing").isEmpty();
        List<Long> versions = t.put(List.of(TableSegmentEntry.notExists(b("c"), b("c0")),
                TableSegmentEntry.versioned(b("b"), b("b1"), vb), TableSegmentEntry.versioned(b("a"), b("a2"), va1)));
        assertThat(versions).hasSize(3).isSorted();

        long vc = versions.get(0);
        assertThatThrownBy(() -> t.remove(TableSegmentKey.versioned(b("c"), va))).isInstanceOf(
                BadKeyVersionException.class);
        assertThatThrownBy(() -> t.remove(TableSegmentKey.notExists(b("c")))).isInstanceOf(
                BadKeyVersionException.class);
        assertThatThrownBy(() -> t.remove(TableSegmentKey.versioned(b("nokey"), va))).isInstanceOf(
                NoSuchKeyException.class);
        t.remove(b("nokey"));
        t.remove(TableSegmentKey.notExists(b("nokey")));
        assertThatThrownBy(() -> t.remove(List.of(TableSegmentKey.versioned(b("c"), vc),
                TableSegmentKey.versioned(b("b"), vc)))).isInstanceOf(BadKeyVersionException.class);
        assertThat(t.get(b("c"))).as("a failed removal batch removes nothing").isPresent();
        t.remove(List.of(TableSegmentKey.versioned(b("c"), vc), TableSegmentKey.versioned(b("b"), versions.get(1))));
        assertThat(t.get(List.of(b("b"), b("c")))).containsExactly(Optional.empty(), Optional.empty());

        int longest = TableSegmentClient.MAX_ENTRY_BYTES - TableSegmentClient.ENTRY_HEADER_BYTES;
        assertThat(t.put(ByteBuffer.allocate(TableSegmentClient.MAX_KEY_LENGTH),
                ByteBuffer.allocate(longest - TableSegmentClient.MAX_KEY_LENGTH))).as("the limits are accepted")
                .isPositive();
        assertThat(t.put(b("v"), ByteBuffer.allocate(TableSegmentClient.MAX_VALUE_LENGTH))).isPositive();
        assertThatThrownBy(() -> t.put(ByteBuffer.allocate(0), b("v"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void iterationPagesWithTheSegmentStoresTokens() {
        TableSegmentClient t = created("iterate");
        assertThat(t.keyPages(5, null).hasNext()).isFalse();
        Set<String> all = new HashSet<>();
        List<TableSegmentEntry> batch = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            all.add("k" + i);
            batch.add(TableSegmentEntry.unversioned(b("k" + i), b("v" + i)));
        }
        t.put(batch);
        List<String> seen = new ArrayList<>();
        List<String> afterSecond = new ArrayList<>();
        ByteBuffer token = null;
        Iterator<TableSegmentPage<TableSegmentKey>> pages = t.keyPages(9, null);
        int n = 0;
        while (pages.hasNext()) {
            TableSegmentPage<TableSegmentKey> page = pages.next();
            assertThat(page.items()).isNotEmpty();
            for (TableSegmentKey k : page.items()) {
                seen.add(s(k.key()));
                if (n >= 2) {
                    afterSecond.add(s(k.key()));
                }
            }
            if (++n == 2) {
                token = page.continuationToken();
            }
        }
        assertThat(seen).hasSize(120).doesNotHaveDuplicates();
        assertThat(new HashSet<>(seen)).isEqualTo(all);
        List<String> resumed = new ArrayList<>();
        t.keyPages(50, token).forEachRemaining(p -> p.items().forEach(k -> resumed.add(s(k.key()))));
        assertThat(resumed).isEqualTo(afterSecond);
        List<String> entries = new ArrayList<>();
        t.entries().forEachRemaining(e -> entries.add(s(e.key()) + "=" + s(e.value())));
        assertThat(entries).hasSize(120).contains("k0=v0", "k119=v119");
    }

    @Test
    void tablesWithFixedLengthKeys() {
        TableSegmentClient t = fixed("kvt");
        assertThat(t.info().keyLength()).isEqualTo(4);
        List<TableSegmentEntry> batch = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            batch.add(TableSegmentEntry.unversioned(key4(i * 10), b("v" + i * 10)));
        }
        batch.add(TableSegmentEntry.unversioned(key4(-1), b("last")));
        t.put(batch);
        assertThat(s(t.get(key4(70)).orElseThrow().value())).isEqualTo("v70");
        assertThatThrownBy(() -> t.put(b("toolong"), b("x"))).isInstanceOf(InvalidRequestException.class);

        List<Integer> all = new ArrayList<>();
        t.entryPages(4, null).forEachRemaining(p -> p.items().forEach(e -> all.add(e.key().getInt(0))));
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            expected.add(i * 10);
        }
        expected.add(-1);
        assertThat(all).as("paged by key (a real segment store refuses continuation tokens here)")
                .isEqualTo(expected);

        Iterator<TableSegmentPage<TableSegmentKey>> range = t.keyPages(key4(25), key4(70), 2);
        TableSegmentPage<TableSegmentKey> first = range.next();
        List<Integer> ranged = new ArrayList<>();
        first.items().forEach(k -> ranged.add(k.key().getInt(0)));
        t.keyPages(100, first.continuationToken())
                .forEachRemaining(p -> p.items().forEach(k -> ranged.add(k.key().getInt(0))));
        assertThat(ranged).containsExactly(30, 40, 50, 60, 70);

        try (TableSegmentDeltaReader r = t.deltaReader(0)) {
            assertThatThrownBy(r::hasNext).isInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("fixed-length keys");
        }
    }

    @Test
    void deltaReadsSeeTheNewestValueOfEveryKeyInWriteOrderAndNoRemovals() {
        TableSegmentClient t = created("delta");
        t.put(b("a"), b("a0"));
        t.put(b("b"), b("b0"));
        t.put(b("gone"), b("x"));
        t.remove(b("gone"));
        long va1 = t.put(b("a"), b("a1"));
        try (TableSegmentDeltaReader r = t.deltaReader(0)) {
            TableSegmentChanges c = r.next();
            assertThat(c.entries().stream().map(e -> s(e.key()) + "=" + s(e.value())).toList())
                    .containsExactly("b=b0", "a=a1");
            assertThat(c.entries().getLast().version()).isEqualTo(va1);
            assertThat(c.position()).isEqualTo(t.info().length());
            assertThat(r.poll(Duration.ofMillis(100))).isEmpty();
        }
        try (TableSegmentDeltaReader r = t.deltaReader(0, 1)) {
            TableSegmentChanges first = r.next();
            assertThat(first.entries()).as("one entry per read: the oldest, as it was written")
                    .singleElement().satisfies(e -> assertThat(s(e.value())).isEqualTo("a0"));
            assertThat(first.position()).as("a's 17-byte header, key and value").isEqualTo(20);
        }
        try (TableSegmentDeltaReader r = t.deltaReader(1)) {
            assertThatThrownBy(r::hasNext).as("a position inside an entry").isInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("not where an entry starts");
        }
    }

    @Test
    void aDeltaReaderFollowsAConcurrentWriterInOrder() throws Exception {
        TableSegmentClient t = created("follow");
        int n = 200;
        List<String> seen = new ArrayList<>();
        List<Long> versions = new ArrayList<>();
        try (TableSegmentDeltaReader r = t.deltaReader(t.info().length(), 7)) {
            Future<List<Long>> writer = real.threads.submit(() -> {
                List<Long> written = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    written.add(t.put(b("k" + i), b("v" + i)));
                }
                return written;
            });
            while (seen.size() < n) {
                for (TableSegmentEntry e : r.next().entries()) {
                    seen.add(s(e.key()) + "=" + s(e.value()));
                    versions.add(e.version());
                }
            }
            assertThat(versions).isEqualTo(writer.get(60, TimeUnit.SECONDS));
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            expected.add("k" + i + "=v" + i);
        }
        assertThat(seen).isEqualTo(expected);
    }

    @Test
    void anIdleDeltaReaderWaitsWithALongPollAndWakesOnAChange() throws IOException {
        try (FrameCountingProxy proxy = new FrameCountingProxy(segmentStore);
             ConnectionPool proxied = new ConnectionPool(new TcpConnectionFactory())) {
            SegmentCalls viaProxy = new SegmentCalls(proxied, SegmentLocator.fixed(proxy.endpoint()), calls.config());
            TableSegmentClient t = new TableSegmentClient(viaProxy, name("idle"), null);
            t.create();
            long[] latencies = new long[20];
            long[] afterAck = new long[latencies.length];
            try (TableSegmentDeltaReader r = t.deltaReader(0)) {
                while (proxy.count(WireCommandType.READ_SEGMENT) == 0) {
                    assertThat(r.poll(Duration.ofMillis(10))).isEmpty(); // until the reader sent its wait
                }
                int deltas = proxy.count(WireCommandType.READ_TABLE_ENTRIES_DELTA);
                assertThat(r.poll(Duration.ofMillis(500))).isEmpty();
                assertThat(proxy.count(WireCommandType.READ_TABLE_ENTRIES_DELTA)).as("an idle reader sends no delta"
                        + " reads").isEqualTo(deltas);
                assertThat(proxy.count(WireCommandType.READ_SEGMENT)).as("nor new waits").isEqualTo(1);
                for (int i = 0; i < latencies.length; i++) {
                    // the previous batch came after its delta read: the count is settled
                    int deltasBefore = proxy.count(WireCommandType.READ_TABLE_ENTRIES_DELTA);
                    long start = System.nanoTime();
                    long version = t.put(b("k" + i), b("v"));
                    long acked = System.nanoTime();
                    TableSegmentChanges c = r.next();
                    latencies[i] = System.nanoTime() - start;
                    afterAck[i] = System.nanoTime() - acked;
                    assertThat(c.entries()).singleElement().extracting(TableSegmentEntry::version).isEqualTo(version);
                    assertThat(proxy.count(WireCommandType.READ_TABLE_ENTRIES_DELTA) - deltasBefore)
                            .as("one change, one delta read").isEqualTo(1);
                }
            }
            Arrays.sort(latencies);
            Arrays.sort(afterAck);
            System.out.printf("%s: put to batch median %.2f ms (max %.2f); after the put's ack median %.2f ms"
                    + " (max %.2f)%n", "real Pravega table delta reader", median(latencies),
                    max(latencies), median(afterAck), max(afterAck));
        }
    }

    @Test
    void aSealedTableTakesNoChangesAndEndsItsDeltaReaders() {
        TableSegmentClient t = created("sealed");
        long v = t.put(b("k"), b("v"));
        try (TableSegmentDeltaReader r = t.deltaReader(0)) {
            assertThat(r.next().entries()).hasSize(1);
            assertThat(r.poll(Duration.ofMillis(100))).isEmpty();
            new SegmentMetadataClient(calls, t.segment(), null).seal();
            assertThatThrownBy(r::hasNext).isInstanceOf(SegmentSealedException.class)
                    .hasMessageContaining(t.segment());
        }
        assertThatThrownBy(() -> t.put(b("k"), b("w"))).isInstanceOf(SegmentSealedException.class);
        assertThatThrownBy(() -> t.remove(b("k"))).isInstanceOf(SegmentSealedException.class);
        assertThat(t.get(b("k")).orElseThrow().version()).as("reads still work").isEqualTo(v);
        try (TableSegmentDeltaReader r = t.deltaReader(t.info().length())) {
            assertThatThrownBy(r::hasNext).isInstanceOf(SegmentSealedException.class);
        }
    }

    @Test
    void aDeltaReaderFailsWhenItsTableIsDeleted() {
        TableSegmentClient t = created("deleted");
        t.put(b("k"), b("v"));
        try (TableSegmentDeltaReader r = t.deltaReader(0)) {
            assertThat(r.next().entries()).hasSize(1);
            assertThat(r.poll(Duration.ofMillis(100))).isEmpty();
            assertThat(t.delete(false)).isTrue();
            assertThatThrownBy(r::hasNext).isInstanceOf(NoSuchSegmentException.class);
        }
    }

    /** @return the median of sorted nanoseconds, in milliseconds */
    private static double median(long[] sortedNanos) {
        return sortedNanos[sortedNanos.length / 2] / 1e6;
    }

    /** @return the largest of sorted nanoseconds, in milliseconds */
    private static double max(long[] sortedNanos) {
        return sortedNanos[sortedNanos.length - 1] / 1e6;
    }
}
