package io.sluice.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

import io.sluice.common.Retry;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.errors.BadKeyVersionException;
import io.sluice.errors.InvalidRequestException;
import io.sluice.errors.NoSuchKeyException;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.TableSegmentNotEmptyException;
import io.sluice.server.EmbeddedServer;
import io.sluice.wire.WireCommandType;

/**
 * The table-segment client against the embedded server: every operation and every error reply, iteration with
 * continuation tokens (also over key ranges of tables with fixed-length keys), and delta reads that follow a writer
 * and wait for changes without polling.
 */
@Timeout(60)
class TableSegmentClientTest {
    private static EmbeddedServer server;
    private static ConnectionPool pool;
    private static SegmentCalls calls;
    private static final AtomicInteger TABLES = new AtomicInteger();

    @BeforeAll
    static void start() {
        server = EmbeddedServer.builder().inMemory().build();
        pool = new ConnectionPool(new TcpConnectionFactory());
        calls = new SegmentCalls(pool, SegmentLocator.fixed(server.segmentStoreEndpoint()), new SegmentCalls.Config(
                Retry.withExpBackoff(Duration.ofMillis(1), 2, 5, Duration.ofMillis(50)), Duration.ofSeconds(10)));
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

    static ByteBuffer b(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static String s(ByteBuffer b) {
        return StandardCharsets.UTF_8.decode(b.duplicate()).toString();
    }

    /** A client of a table segment no other test uses (not created). */
    private static TableSegmentClient table(TestInfo test) {
        String name = "tables/" + test.getTestMethod().orElseThrow().getName() + "_" + TABLES.incrementAndGet()
                + "/_tables/t";
        return new TableSegmentClient(calls, name, null);
    }

    private static TableSegmentClient created(TestInfo test) {
        TableSegmentClient t = table(test);
        assertThat(t.create()).isTrue();
        return t;
    }

    private static ByteBuffer key4(int n) {
        return ByteBuffer.allocate(4).putInt(0, n);
    }

    // ---------------------------------------------------------------- the segment

    @Test
    void createInfoAndDelete(TestInfo test) {
        TableSegmentClient t = table(test);
        assertThat(t.create()).isTrue();
        assertThat(t.create()).as("a second create finds it").isFalse();
        assertThat(t.create(8)).as("the existing table's key length is not compared").isFalse();
        TableSegmentInfo info = t.info();
        assertThat(info).isEqualTo(new TableSegmentInfo(t.segment(), 0, 0, 0, 0));

        t.put(b("k"), b("v"));
        info = t.info();
        assertThat(info.entryCount()).isEqualTo(1);
        assertThat(info.length()).as("the table grew by the entry").isGreaterThan(0);

        assertThatThrownBy(() -> t.delete(true)).isInstanceOf(TableSegmentNotEmptyException.class)
                .hasMessageContaining(t.segment());
        assertThat(t.info().entryCount()).as("still there").isEqualTo(1);
        t.remove(b("k"));
        assertThat(t.delete(true)).isTrue();
        assertThat(t.delete(true)).as("no such segment any more").isFalse();
        assertThatThrownBy(t::info).isInstanceOf(NoSuchSegmentException.class);

        TableSegmentClient full = created(test);
        full.put(b("k"), b("v"));
        assertThat(full.delete(false)).as("without mustBeEmpty keys do not matter").isTrue();
    }

    @Test
    void fixedKeyLengthTables(TestInfo test) {
        TableSegmentClient t = table(test);
        assertThat(t.create(4)).isTrue();
        assertThat(t.info().keyLength()).isEqualTo(4);
        long v = t.put(key4(7), b("seven"));
        assertThat(t.get(key4(7)).orElseThrow().version()).isEqualTo(v);
        assertThatThrownBy(() -> t.put(b("toolong"), b("x"))).isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("4 bytes");
        assertThatThrownBy(() -> t.get(b("ab"))).isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> t.create(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
        assertThatThrownBy(() -> t.create(TableSegmentClient.MAX_FIXED_KEY_LENGTH + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("257");
    }

    @Test
    void everyOperationOnAMissingTableSaysSo(TestInfo test) {
        TableSegmentClient t = table(test);
        assertThatThrownBy(() -> t.get(b("k"))).isInstanceOf(NoSuchSegmentException.class)
                .hasMessageContaining(t.segment());
        assertThatThrownBy(() -> t.put(b("k"), b("v"))).isInstanceOf(NoSuchSegmentException.class);
        assertThatThrownBy(() -> t.insert(b("k"), b("v"))).isInstanceOf(NoSuchSegmentException.class);
        assertThatThrownBy(() -> t.remove(b("k"))).isInstanceOf(NoSuchSegmentException.class);
        assertThatThrownBy(() -> t.keys().hasNext()).isInstanceOf(NoSuchSegmentException.class);
        assertThatThrownBy(() -> t.entryPages(10, null)).isInstanceOf(NoSuchSegmentException.class);
        assertThat(t.delete(false)).isFalse();
        try (TableSegmentDeltaReader r = t.deltaReader(0)) {
            assertThatThrownBy(r::hasNext).isInstanceOf(NoSuchSegmentException.class);
        }
    }

    // ---------------------------------------------------------------- reads and writes

    @Test
    void putAndGet(TestInfo test) {
        TableSegmentClient t = created(test);
        long v1 = t.put(b("a"), b("1"));
        long v2 = t.put(b("b"), b("2"));
        assertThat(v2).as("versions are offsets: they grow").isGreaterThan(v1);
        TableSegmentEntry a = t.get(b("a")).orElseThrow();
        assertThat(s(a.key())).isEqualTo("a");
        assertThat(s(a.value())).isEqualTo("1");
        assertThat(a.version()).isEqualTo(v1);
        assertThat(t.get(b("missing"))).as("a missing key is absent, not an error").isEmpty();

        long v3 = t.put(b("a"), b("one"));
        assertThat(v3).isGreaterThan(v2);
        assertThat(t.get(b("a")).orElseThrow()).isEqualTo(new TableSegmentEntry(b("a"), b("one"), v3));

        List<Optional<TableSegmentEntry>> many = t.get(List.of(b("b"), b("nope"), b("a")));
        assertThat(many).hasSize(3);
        assertThat(s(many.get(0).orElseThrow().value())).isEqualTo("2");
        assertThat(many.get(1)).isEmpty();
        assertThat(many.get(2).orElseThrow().version()).isEqualTo(v3);
        assertThat(t.get(List.of())).isEmpty();

        assertThat(t.put(b("empty"), ByteBuffer.allocate(0))).isGreaterThan(v3);
        assertThat(t.get(b("empty")).orElseThrow().value().remaining()).as("an empty value is a value").isZero();
    }

    @Test
    void aLongReadIsSplitAndKeepsItsOrder(TestInfo test) {
        TableSegmentClient t = created(test);
        List<ByteBuffer> keys = new ArrayList<>();
        List<TableSegmentEntry> batch = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            keys.add(b("k" + i));
            if (i % 3 != 0) {
                batch.add(TableSegmentEntry.unversioned(b("k" + i), b("v" + i)));
            }
        }
        t.put(batch);
        assertThat(TableSegmentClient.MAX_KEYS_PER_READ).as("Pravega's client reads 15 keys at a time").isEqualTo(15);
        List<Optional<TableSegmentEntry>> got = t.get(keys);
        assertThat(got).hasSize(100);
        for (int i = 0; i < 100; i++) {
            if (i % 3 == 0) {
                assertThat(got.get(i)).as("key %d", i).isEmpty();
            } else {
                assertThat(s(got.get(i).orElseThrow().value())).isEqualTo("v" + i);
            }
        }
    }

    @Test
    void conditionalPutsAndInserts(TestInfo test) {
        TableSegmentClient t = created(test);
        long v1 = t.insert(b("k"), b("first"));
        assertThatThrownBy(() -> t.insert(b("k"), b("second"))).isInstanceOf(BadKeyVersionException.class)
                .hasMessageContaining(t.segment()).hasMessageContaining("NOT_EXISTS");
        long v2 = t.put(TableSegmentEntry.versioned(b("k"), b("second"), v1));
        assertThat(v2).isGreaterThan(v1);
        assertThatThrownBy(() -> t.put(TableSegmentEntry.versioned(b("k"), b("stale"), v1)))
                .isInstanceOf(BadKeyVersionException.class).hasMessageContaining("version " + v1);
        assertThatThrownBy(() -> t.put(TableSegmentEntry.versioned(b("absent"), b("x"), v1)))
                .isInstanceOf(NoSuchKeyException.class).hasMessageContaining("does not exist");
        assertThat(t.get(b("k")).orElseThrow()).isEqualTo(new TableSegmentEntry(b("k"), b("second"), v2));
        assertThat(t.get(b("absent"))).isEmpty();
    }

    @Test
    void aBatchIsAllOrNothing(TestInfo test) {
        TableSegmentClient t = created(test);
        long va = t.put(b("a"), b("a0"));
        long vb = t.put(b("b"), b("b0"));
        List<TableSegmentEntry> bad = List.of(TableSegmentEntry.versioned(b("a"), b("a1"), va),
                TableSegmentEntry.unversioned(b("c"), b("c1")),
                TableSegmentEntry.versioned(b("b"), b("b1"), va)); // b is at vb
        assertThatThrownBy(() -> t.put(bad)).isInstanceOf(BadKeyVersionException.class)
                .hasMessageContaining("one of 3 keys").hasMessageContaining("nothing was changed");
        assertThat(s(t.get(b("a")).orElseThrow().value())).isEqualTo("a0");
        assertThat(t.get(b("c"))).as("the unconditional part of a failed batch is not written either").isEmpty();

        List<TableSegmentEntry> missing = List.of(TableSegmentEntry.unversioned(b("d"), b("d1")),
                TableSegmentEntry.versioned(b("gone"), b("x"), vb));
        assertThatThrownBy(() -> t.put(missing)).isInstanceOf(NoSuchKeyException.class);
        assertThat(t.get(b("d"))).isEmpty();

        List<Long> versions = t.put(List.of(TableSegmentEntry.versioned(b("a"), b("a1"), va),
                TableSegmentEntry.notExists(b("c"), b("c1")), TableSegmentEntry.versioned(b("b"), b("b1"), vb)));
        assertThat(versions).hasSize(3);
        assertThat(versions).isSorted().doesNotHaveDuplicates();
        assertThat(t.get(List.of(b("a"), b("c"), b("b"))).stream().map(e -> e.orElseThrow().version()).toList())
                .isEqualTo(versions);
        assertThat(t.put(List.of())).isEmpty();
    }

    @Test
    void removals(TestInfo test) {
        TableSegmentClient t = created(test);
        long va = t.put(b("a"), b("1"));
        t.remove(b("a"));
        assertThat(t.get(b("a"))).isEmpty();
        t.remove(b("a")); // a missing key: nothing to do, no error
        t.remove(TableSegmentKey.notExists(b("a")));

        long vb = t.put(b("b"), b("1"));
        assertThatThrownBy(() -> t.remove(TableSegmentKey.versioned(b("b"), va)))
                .isInstanceOf(BadKeyVersionException.class).hasMessageContaining("removal");
        assertThatThrownBy(() -> t.remove(TableSegmentKey.notExists(b("b"))))
                .isInstanceOf(BadKeyVersionException.class);
        assertThatThrownBy(() -> t.remove(TableSegmentKey.versioned(b("a"), va)))
                .isInstanceOf(NoSuchKeyException.class);
        assertThat(t.get(b("b")).orElseThrow().version()).isEqualTo(vb);

        long vc = t.put(b("c"), b("1"));
        assertThatThrownBy(() -> t.remove(List.of(TableSegmentKey.versioned(b("c"), vc),
                TableSegmentKey.versioned(b("b"), vc)))).isInstanceOf(BadKeyVersionException.class);
        assertThat(t.get(b("c"))).as("a failed removal batch removes nothing").isPresent();
        t.remove(List.of(TableSegmentKey.versioned(b("c"), vc), TableSegmentKey.versioned(b("b"), vb)));
        assertThat(t.get(List.of(b("b"), b("c")))).containsExactly(Optional.empty(), Optional.empty());
        t.remove(List.of());
    }

    @Test
    void badArgumentsAreRefusedBeforeAnythingIsSent(TestInfo test) {
        TableSegmentClient t = created(test);
        ByteBuffer longKey = ByteBuffer.allocate(TableSegmentClient.MAX_KEY_LENGTH + 1);
        ByteBuffer longValue = ByteBuffer.allocate(TableSegmentClient.MAX_VALUE_LENGTH + 1);
        assertThatThrownBy(() -> t.put(ByteBuffer.allocate(0), b("v"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> t.get(ByteBuffer.allocate(0))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> t.put(longKey, b("v"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("8193 bytes").hasMessageContaining("8192");
        assertThatThrownBy(() -> t.remove(longKey)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> t.put(b("k"), longValue)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1040385 bytes");
        assertThatThrownBy(() -> t.put(ByteBuffer.allocate(TableSegmentClient.MAX_KEY_LENGTH),
                ByteBuffer.allocate(TableSegmentClient.MAX_VALUE_LENGTH))).as("the longest key with the longest value")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 1048576");
        int longest = TableSegmentClient.MAX_ENTRY_BYTES - TableSegmentClient.ENTRY_HEADER_BYTES;
        assertThat(t.put(ByteBuffer.allocate(TableSegmentClient.MAX_KEY_LENGTH),
                ByteBuffer.allocate(longest - TableSegmentClient.MAX_KEY_LENGTH))).as("the limits themselves are fine")
                .isNotNegative();
        assertThat(t.put(b("v"), ByteBuffer.allocate(TableSegmentClient.MAX_VALUE_LENGTH))).isNotNegative();

        List<TableSegmentEntry> tooMany = new ArrayList<>();
        for (int i = 0; i <= TableSegmentClient.MAX_BATCH_SIZE; i++) {
            tooMany.add(TableSegmentEntry.unversioned(b("k" + i), b("v")));
        }
        assertThatThrownBy(() -> t.put(tooMany)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("257 keys");
        assertThatThrownBy(() -> t.get(tooMany.stream().map(TableSegmentEntry::key).toList()))
                .isInstanceOf(IllegalArgumentException.class);
        ByteBuffer big = ByteBuffer.allocate(TableSegmentClient.MAX_VALUE_LENGTH);
        List<TableSegmentEntry> tooBig = new ArrayList<>();
        for (int i = 0; i < 17; i++) {
            tooBig.add(TableSegmentEntry.unversioned(b("big" + i), big));
        }
        assertThatThrownBy(() -> t.put(tooBig)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bytes: at most " + TableSegmentClient.MAX_BATCH_BYTES);
        assertThatThrownBy(() -> t.put(List.of(TableSegmentEntry.unversioned(b("d"), b("1")),
                TableSegmentEntry.unversioned(b("d"), b("2"))))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> t.remove(List.of(TableSegmentKey.unversioned(b("d")),
                TableSegmentKey.unversioned(b("d"))))).isInstanceOf(IllegalArgumentException.class);
        assertThat(t.get(List.of(b("big0"), b("d")))).as("nothing of the refused batches was written")
                .containsExactly(Optional.empty(), Optional.empty());

        assertThatThrownBy(() -> TableSegmentKey.versioned(b("k"), -5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-5");
        assertThatThrownBy(() -> t.keyPages(0, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> t.keyPages(10, b("garbage"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a continuation token");
        assertThatThrownBy(() -> t.keyPages(key4(1), key4(2), 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fixed-length keys");
        assertThatThrownBy(() -> t.deltaReader(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> t.deltaReader(0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TableSegmentClient(calls, "", null)).isInstanceOf(IllegalArgumentException.class);
    }

    // ---------------------------------------------------------------- iteration

    @Test
    void iterationPagesThroughEveryKeyAndResumesFromAToken(TestInfo test) {
        TableSegmentClient t = created(test);
        assertThat(t.keyPages(5, null).hasNext()).as("an empty table has no pages").isFalse();
        Set<String> all = new HashSet<>();
        List<TableSegmentEntry> batch = new ArrayList<>();
        for (int i = 0; i < 250; i++) {
            all.add("k" + i);
            batch.add(TableSegmentEntry.unversioned(b("k" + i), b("v" + i)));
            if (batch.size() == 100) {
                t.put(batch);
                batch.clear();
            }
        }
        t.put(batch);

        List<String> seen = new ArrayList<>();
        Iterator<TableSegmentPage<TableSegmentKey>> pages = t.keyPages(7, null);
        ByteBuffer resumeAfterThird = null;
        List<String> afterThird = new ArrayList<>();
        int n = 0;
        while (pages.hasNext()) {
            TableSegmentPage<TableSegmentKey> page = pages.next();
            assertThat(page.items()).hasSizeBetween(1, 7);
            for (TableSegmentKey k : page.items()) {
                seen.add(s(k.key()));
                assertThat(k.version()).isNotNegative();
                if (n >= 3) {
                    afterThird.add(s(k.key()));
                }
            }
            n++;
            if (n == 3) {
                resumeAfterThird = page.continuationToken();
            }
        }
        assertThat(seen).hasSize(250).doesNotHaveDuplicates();
        assertThat(new HashSet<>(seen)).isEqualTo(all);

        List<String> resumed = new ArrayList<>();
        t.keyPages(50, resumeAfterThird).forEachRemaining(p -> p.items().forEach(k -> resumed.add(s(k.key()))));
        assertThat(resumed).isEqualTo(afterThird);

        List<String> values = new ArrayList<>();
        t.entries().forEachRemaining(e -> values.add(s(e.key()) + "=" + s(e.value())));
        assertThat(values).hasSize(250).contains("k0=v0", "k249=v249");
        List<String> keys = new ArrayList<>();
        t.keys().forEachRemaining(k -> keys.add(s(k.key())));
        assertThat(keys).isEqualTo(seen);
    }

    @Test
    void tablesWithFixedLengthKeysArePagedByKeyAndIterateOverRanges(TestInfo test) {
        TableSegmentClient t = table(test);
        t.create(4);
        List<TableSegmentEntry> batch = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            batch.add(TableSegmentEntry.unversioned(key4(i * 10), b("v" + i * 10)));
        }
        batch.add(TableSegmentEntry.unversioned(key4(-1), b("last"))); // 0xFFFFFFFF: no key after it
        t.put(batch);

        List<Integer> all = new ArrayList<>();
        Iterator<TableSegmentPage<TableSegmentEntry>> pages = t.entryPages(4, null);
        while (pages.hasNext()) {
            pages.next().items().forEach(e -> all.add(e.key().getInt(0)));
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            expected.add(i * 10);
        }
        expected.add(-1);
        assertThat(all).as("in unsigned key order").isEqualTo(expected);

        List<Integer> range = new ArrayList<>();
        Iterator<TableSegmentPage<TableSegmentKey>> ranged = t.keyPages(key4(25), key4(70), 2);
        TableSegmentPage<TableSegmentKey> first = ranged.next();
        first.items().forEach(k -> range.add(k.key().getInt(0)));
        assertThat(range).containsExactly(30, 40);
        List<Integer> rest = new ArrayList<>();
        t.keyPages(100, first.continuationToken())
                .forEachRemaining(p -> p.items().forEach(k -> rest.add(k.key().getInt(0))));
        assertThat(rest).as("resumed within the range").containsExactly(50, 60, 70);

        Iterator<TableSegmentPage<TableSegmentKey>> top = t.keyPages(key4(-2), key4(-1), 10);
        TableSegmentPage<TableSegmentKey> last = top.next();
        assertThat(last.items()).hasSize(1);
        assertThat(top.hasNext()).as("nothing comes after the highest key").isFalse();
        assertThat(t.keyPages(10, last.continuationToken()).hasNext()).isFalse();

        assertThatThrownBy(() -> t.keyPages(key4(70), key4(25), 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("starts after its end");
        assertThatThrownBy(() -> t.keyPages(b("ab"), key4(25), 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("4 bytes long");
    }

    // ---------------------------------------------------------------- delta reads

    @Test
    void aDeltaReadFromZeroSeesTheNewestValueOfEveryKeyInWriteOrderAndNoRemovals(TestInfo test) {
        TableSegmentClient t = created(test);
        long va = t.put(b("a"), b("a0"));
        t.put(b("b"), b("b0"));
        t.put(b("gone"), b("x"));
        t.remove(b("gone"));
        long va1 = t.put(b("a"), b("a1"));
        try (TableSegmentDeltaReader r = t.deltaReader(0)) {
            TableSegmentChanges c = r.next();
            assertThat(c.reset()).isFalse();
            assertThat(c.entries().stream().map(e -> s(e.key()) + "=" + s(e.value())).toList())
                    .containsExactly("b=b0", "a=a1");
            assertThat(c.entries().getLast().version()).isEqualTo(va1).isGreaterThan(va);
            assertThat(c.position()).isEqualTo(t.info().length());
            assertThat(r.position()).isEqualTo(c.position());
            assertThat(r.poll(Duration.ofMillis(50))).as("nothing more").isEmpty();
        }
    }

    @Test
    void deltaReadsComeInBatchesAndResumeFromAPosition(TestInfo test) {
        TableSegmentClient t = created(test);
        for (int i = 0; i < 10; i++) {
            t.put(b("k" + i), b("v" + i));
        }
        List<String> seen = new ArrayList<>();
        long resumeAt;
        try (TableSegmentDeltaReader r = t.deltaReader(0, 3)) {
            TableSegmentChanges first = r.next();
            assertThat(first.entries()).hasSize(3);
            first.entries().forEach(e -> seen.add(s(e.key())));
            resumeAt = first.position();
            while (seen.size() < 10) {
                TableSegmentChanges c = r.next();
                assertThat(c.entries()).hasSizeBetween(1, 3);
                assertThat(c.position()).isGreaterThan(resumeAt);
                c.entries().forEach(e -> seen.add(s(e.key())));
            }
        }
        assertThat(seen).containsExactly("k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9");
        try (TableSegmentDeltaReader r = t.deltaReader(resumeAt)) {
            assertThat(r.next().entries().stream().map(e -> s(e.key())).toList())
                    .containsExactly("k3", "k4", "k5", "k6", "k7", "k8", "k9");
        }
        try (TableSegmentDeltaReader r = t.deltaReader(t.info().length())) {
            assertThat(r.poll(Duration.ofMillis(50))).as("from the end only later changes come").isEmpty();
            t.put(b("later"), b("x"));
            assertThat(s(r.next().entries().getFirst().key())).isEqualTo("later");
        }
    }

    @Test
    void aDeltaReaderFollowsAConcurrentWriterInOrder(TestInfo test) throws Exception {
        TableSegmentClient t = created(test);
        int n = 300;
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        List<Long> versions = new ArrayList<>();
        try (TableSegmentDeltaReader r = t.deltaReader(t.info().length(), 7);
             ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<List<Long>> writer = threads.submit(() -> {
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
            assertThat(versions).isEqualTo(writer.get(30, TimeUnit.SECONDS));
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            expected.add("k" + i + "=v" + i);
        }
        assertThat(seen).isEqualTo(expected);
    }

    @Test
    void anIdleDeltaReaderWaitsWithoutPollingAndWakesOnAChange(TestInfo test) throws IOException {
        try (FrameCountingProxy proxy = new FrameCountingProxy(server.segmentStoreEndpoint());
             ConnectionPool proxied = new ConnectionPool(new TcpConnectionFactory())) {
            SegmentCalls viaProxy = new SegmentCalls(proxied, SegmentLocator.fixed(proxy.endpoint()), calls.config());
            TableSegmentClient t = new TableSegmentClient(viaProxy, table(test).segment(), null);
            t.create();
            long[] latencies = new long[20];
            long[] afterAck = new long[latencies.length];
            try (TableSegmentDeltaReader r = t.deltaReader(0)) {
                while (proxy.count(WireCommandType.READ_SEGMENT) == 0) {
                    assertThat(r.poll(Duration.ofMillis(10))).isEmpty(); // until the reader sent its wait
                }
                int deltas = proxy.count(WireCommandType.READ_TABLE_ENTRIES_DELTA);
                assertThat(r.poll(Duration.ofMillis(300))).isEmpty();
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
                    + " (max %.2f)%n", "table delta reader", median(latencies),
                    max(latencies), median(afterAck), max(afterAck));
        }
    }

    @Test
    void closeWakesABlockedCaller(TestInfo test) throws Exception {
        TableSegmentClient t = created(test);
        TableSegmentDeltaReader r = t.deltaReader(0);
        AtomicInteger answer = new AtomicInteger(-1);
        Thread caller = Thread.ofVirtual().start(() -> answer.set(r.hasNext() ? 1 : 0));
        while (caller.getState() != Thread.State.WAITING) {
            Thread.onSpinWait(); // until the caller blocks in hasNext() (the class timeout bounds this)
        }
        r.close();
        caller.join();
        assertThat(answer.get()).as("hasNext() answers false once closed").isZero();
        assertThat(r.hasNext()).isFalse();
        assertThat(r.poll(Duration.ofSeconds(1))).isEmpty();
        assertThatThrownBy(r::next).isInstanceOf(NoSuchElementException.class);
        r.close();
    }

    @Test
    void aSealedTableTakesNoChangesAndEndsItsDeltaReaders(TestInfo test) {
        TableSegmentClient t = created(test);
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
    void aDeltaReaderFailsWhenItsTableIsDeleted(TestInfo test) {
        TableSegmentClient t = created(test);
        t.put(b("k"), b("v"));
        try (TableSegmentDeltaReader r = t.deltaReader(0)) {
            assertThat(r.next().entries()).hasSize(1);
            assertThat(r.poll(Duration.ofMillis(50))).isEmpty();
            t.delete(false);
            assertThatThrownBy(r::hasNext).isInstanceOf(NoSuchSegmentException.class)
                    .hasMessageContaining(t.segment());
        }
    }

    @Test
    void tablesWithFixedLengthKeysHaveNoDeltaReads(TestInfo test) {
        TableSegmentClient t = table(test);
        t.create(4);
        try (TableSegmentDeltaReader r = t.deltaReader(0)) {
            assertThatThrownBy(r::hasNext).isInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("fixed-length keys");
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
