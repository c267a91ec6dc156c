package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.sluice.admin.ReaderGroup;
import io.sluice.common.Deadline;
import io.sluice.errors.TransactionFailedException;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.Transaction;
import io.sluice.stream.TransactionalEventStreamWriter;
import io.sluice.stream.TxnState;
import io.sluice.stream.WriterConfig;

/**
 * Transaction scenarios that run unchanged against the embedded server ({@code TransactionTest}) and the real Pravega
 * 0.13 ({@code TransactionCompatTest}), so that both servers are held to the same expectations: a commit racing a
 * scale (rolling transactions, down to the segment each event is read from), the commit order of one writer, and a
 * lease that runs out. Events are {@code <source>:<key>:<index>}.
 */
public final class TransactionScenarios {
    private static final Duration POLL = Duration.ofMillis(200);

    private TransactionScenarios() {
    }

    /**
     * Stops the pinger of a transaction this client opened, as if its process had stopped, so that its lease runs
     * out (a test hook for other packages).
     */
    public static void stopPinging(Transaction<?> txn) {
        ((TransactionImpl<?>) txn).stopPinging();
    }

    /** One event read, and the segment it was read from. */
    public record Read(String event, Segment segment) {
        /** @return the event's source, its text before the first ':' */
        String source() {
            return event.substring(0, event.indexOf(':'));
        }

        /** @return the event's key, between the first and the second ':' */
        String key() {
            return event.substring(event.indexOf(':') + 1, event.lastIndexOf(':'));
        }
    }

    /**
     * Reads {@code count} events with one reader of a new group over {@code stream}, then checks that nothing more
     * comes within a second.
     */
    public static List<Read> readAll(SluiceClient client, ScopedStream stream, String group, int count) {
        ReaderGroupConfig config = ReaderGroupConfig.builder().stream(stream).groupRefreshTimeMillis(100)
                .disableAutomaticCheckpoints().build();
        List<Read> read = new ArrayList<>();
        try (ReaderGroup g = client.readerGroupManager(stream.scope()).createReaderGroup(group, config);
             EventStreamReader<String> reader = client.newReader(stream.scope(), group, "r1", Serializers.utf8())) {
            Deadline deadline = Deadline.after(Duration.ofSeconds(60));
            while (read.size() < count) {
                assertThat(deadline.expired()).as("read %s of %s events in time", read.size(), count).isFalse();
                EventRead<String> e = reader.readNextEvent(POLL);
                if (e.event() != null) {
                    read.add(new Read(e.event(), e.pointer().segment()));
                }
            }
            for (int i = 0; i < 5; i++) {
                EventRead<String> e = reader.readNextEvent(POLL);
                assertThat(e.event()).as("no event beyond the %s expected", count).isNull();
            }
        }
        return read;
    }

    private static List<String> events(String source, int keys, int from, int to) {
        List<String> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            for (int k = 0; k < keys; k++) {
                out.add(source + ":k" + k + ":" + i);
            }
        }
        return out;
    }

    private static String keyOf(String event) {
        return event.substring(event.indexOf(':') + 1, event.lastIndexOf(':'));
    }

    private static void writeAll(Transaction<String> txn, List<String> events) {
        for (String e : events) {
            txn.write(keyOf(e), e);
        }
    }

    /** @return per key, the events read in order */
    private static Map<String, List<String>> byKey(List<Read> read) {
        Map<String, List<String>> out = new TreeMap<>();
        for (Read r : read) {
            out.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.event());
        }
        return out;
    }

    /** @return per key, what {@code expected} holds of it, in order */
    private static Map<String, List<String>> byKeyOf(List<String> expected) {
        Map<String, List<String>> out = new TreeMap<>();
        for (String e : expected) {
            out.computeIfAbsent(keyOf(e), k -> new ArrayList<>()).add(e);
        }
        return out;
    }

    /**
     * A transaction that spans a scale: {@code t1} begins on a stream of two segments (epoch 0) and gets half its
     * events; segment 1 is split in two (epoch 1: segments 0, 2 and 3); a plain writer writes to the new epoch,
     * {@code t1} gets the rest of its events (still to its epoch-0 transaction segments) and {@code t2} begins in
     * epoch 1; {@code t1} then {@code t2} commit. Every event is read exactly once, per key in the order plain, t1,
     * t2, and from the segments a rolling transaction makes: {@code t1}'s from copies of epoch 0's segments (epoch 2:
     * {@code 0.#epoch.2}, {@code 1.#epoch.2}), {@code t2}'s from copies of epoch 1's (epoch 3), which are then the
     * stream's segments.
     */
    public static void commitRacingAScale(SluiceClient client, String scope, String name) {
        ScopedStream stream = ScopedStream.of(scope, name);
        int keys = 16;
        assertThat(client.streamManager().createStream(scope, name, StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(2)).build())).isTrue();
        List<String> t1Events = events("t1", keys, 0, 20);
        List<String> plainEvents = events("plain", keys, 0, 5);
        List<String> t2Events = events("t2", keys, 0, 5);
        try (TransactionalEventStreamWriter<String> tx = client.newTransactionalWriter(scope, name,
                Serializers.utf8());
             EventStreamWriter<String> plain = client.newWriter(scope, name, Serializers.utf8())) {
            Transaction<String> t1 = tx.beginTxn();
            assertThat(t1.id().getMostSignificantBits() >> 32).as("t1's id names epoch 0").isZero();
            writeAll(t1, t1Events.subList(0, t1Events.size() / 2));
            t1.flush();

            List<SegmentWithRange> before = client.streamManager().currentSegments(scope, name);
            Segment upper = before.stream().filter(r -> r.high() == 1.0).findFirst().orElseThrow().segment();
            assertThat(upper.number()).isEqualTo(1);
            List<SegmentWithRange> added = client.streamManager().scaleStream(scope, name, List.of(upper),
                    List.of(new KeyRange(0.5, 0.75), new KeyRange(0.75, 1.0)));
            assertThat(added).extracting(r -> r.segment().qualifiedName())
                    .containsExactlyInAnyOrder(scope + "/" + name + "/2.#epoch.1", scope + "/" + name + "/3.#epoch.1");

            for (String e : plainEvents) {
                plain.write(keyOf(e), e);
            }
            plain.flush();
            writeAll(t1, t1Events.subList(t1Events.size() / 2, t1Events.size()));
            t1.flush();
            Transaction<String> t2 = tx.beginTxn();
            assertThat(t2.id().getMostSignificantBits() >> 32).as("t2's id names epoch 1").isEqualTo(1);
            // the parents createTransaction names for a transaction of epoch 1: every segment with epoch 1 in its
            // id, also segment 0, which epoch 0 created (the transaction segments are named after these)
            io.sluice.controller.TxnSegments probe = client.controller().createTransaction(stream,
                    Duration.ofSeconds(30));
            assertThat(probe.segments().ranges()).extracting(r -> r.segment().qualifiedName()
                    .substring((scope + "/" + name + "/").length()))
                    .containsExactlyInAnyOrder("0.#epoch.1", "2.#epoch.1", "3.#epoch.1");
            client.controller().abortTransaction(stream, probe.txnId());
            writeAll(t2, t2Events);
            assertThat(t1.status()).isEqualTo(TxnState.OPEN);
            t1.commit();
            t2.commit();
            assertThat(t1.status()).isEqualTo(TxnState.COMMITTED);
            assertThat(t2.status()).isEqualTo(TxnState.COMMITTED);
        }

        List<Read> read = readAll(client, stream, "scale-race", t1Events.size() + plainEvents.size()
                + t2Events.size());
        List<String> expected = new ArrayList<>(plainEvents);
        expected.addAll(t1Events);
        expected.addAll(t2Events);
        assertThat(read).extracting(Read::event).as("every event exactly once")
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(byKey(read)).as("per key: plain, then t1, then t2, each in order")
                .isEqualTo(byKeyOf(expected));

        Map<String, TreeSet<String>> segmentsBySource = new LinkedHashMap<>();
        for (Read r : read) {
            String segment = r.segment().qualifiedName().substring((scope + "/" + name + "/").length());
            segmentsBySource.computeIfAbsent(r.source(), s -> new TreeSet<>()).add(segment);
        }
        assertThat(segmentsBySource.get("plain")).as("plain events: epoch 1's segments")
                .containsExactlyInAnyOrder("0.#epoch.0", "2.#epoch.1", "3.#epoch.1");
        assertThat(segmentsBySource.get("t1")).as("t1 (epoch 0): the copies of epoch 0's segments")
                .containsExactlyInAnyOrder("0.#epoch.2", "1.#epoch.2");
        assertThat(segmentsBySource.get("t2")).as("t2 (epoch 1): the copies of epoch 1's segments")
                .containsExactlyInAnyOrder("0.#epoch.3", "2.#epoch.3", "3.#epoch.3");
        assertThat(client.streamManager().currentSegments(scope, name))
                .extracting(r -> r.segment().qualifiedName().substring((scope + "/" + name + "/").length()))
                .as("the stream's segments after the rolling transaction")
                .containsExactlyInAnyOrder("0.#epoch.3", "2.#epoch.3", "3.#epoch.3");
    }

    /**
     * Commits racing a scale: three transactions begin on a stream of two segments and get events over 16 keys; a
     * virtual thread splits both segments while the transactions commit one after the other from this thread (each
     * commit before, during or after the scale, as the race goes). Every event is read exactly once, and per key the
     * transactions in commit order, whichever epoch each was merged into.
     */
    public static void commitsRacingAConcurrentScale(SluiceClient client, String scope, String name)
            throws Exception {
        ScopedStream stream = ScopedStream.of(scope, name);
        int keys = 16;
        assertThat(client.streamManager().createStream(scope, name, StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(2)).build())).isTrue();
        List<String> expected = new ArrayList<>();
        try (TransactionalEventStreamWriter<String> tx = client.newTransactionalWriter(scope, name,
                Serializers.utf8())) {
            List<Transaction<String>> txns = new ArrayList<>();
            for (int j = 0; j < 3; j++) {
                Transaction<String> txn = tx.beginTxn();
                writeAll(txn, events("r" + j, keys, 0, 10));
                txn.flush();
                txns.add(txn);
            }
            List<Segment> sealed = client.streamManager().currentSegments(scope, name).stream()
                    .map(SegmentWithRange::segment).toList();
            java.util.concurrent.CompletableFuture<List<SegmentWithRange>> scaled = new java.util.concurrent
                    .CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    scaled.complete(client.streamManager().scaleStream(scope, name, sealed, List.of(
                            new KeyRange(0.0, 0.25), new KeyRange(0.25, 0.5), new KeyRange(0.5, 0.75),
                            new KeyRange(0.75, 1.0))));
                } catch (RuntimeException e) {
                    scaled.completeExceptionally(e);
                }
            });
            for (int j = 0; j < txns.size(); j++) {
                txns.get(j).commit();
                expected.addAll(events("r" + j, keys, 0, 10));
            }
            assertThat(scaled.get(60, TimeUnit.SECONDS)).hasSize(4);
        }
        assertThat(client.streamManager().currentSegments(scope, name)).hasSize(4);
        List<Read> read = readAll(client, stream, "concurrent-scale", expected.size());
        assertThat(read).extracting(Read::event).as("every event exactly once")
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(byKey(read)).as("per key, whole transactions in commit order").isEqualTo(byKeyOf(expected));
    }

    /**
     * A transaction's writes through a proxy that cuts every connection to the segment store eight times while they
     * are written (each time once a segment writer had connected again): after each cut its segment writers
     * reconnect and resend what the server lacks, so the committed transaction is read exactly once, per key in
     * order.
     */
    public static void writesSurviveCutConnections(SluiceClient client, String scope, String name)
            throws java.io.IOException {
        ScopedStream stream = ScopedStream.of(scope, name);
        int keys = 16;
        assertThat(client.streamManager().createStream(scope, name, StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(3)).build())).isTrue();
        io.sluice.common.Endpoint store = client.controller().endpointFor(
                client.streamManager().currentSegments(scope, name).getFirst().segment());
        List<String> expected = events("cut", keys, 0, 200);
        int cuts = 0;
        try (io.sluice.connection.LoopbackProxy proxy = new io.sluice.connection.LoopbackProxy(store);
             io.sluice.connection.ConnectionPool pool = new io.sluice.connection.ConnectionPool(
                     new io.sluice.connection.TcpConnectionFactory());
             TransactionalEventStreamWriterImpl<String> tx = new TransactionalEventStreamWriterImpl<>(stream,
                     Serializers.utf8(), WriterConfig.DEFAULT, client.controller(),
                     io.sluice.segment.SegmentStores.over(pool,
                             io.sluice.segment.SegmentLocator.fixed(proxy.endpoint())))) {
            Transaction<String> txn = tx.beginTxn();
            int rounds = 8;
            int perRound = expected.size() / rounds;
            // the transaction's segment writers connect in the background from beginTxn on, so connections counted
            // now may be theirs: the first round only needs one connection to cut, whenever it was made
            int seen = 0;
            for (int r = 0; r < rounds; r++) {
                for (String e : expected.subList(r * perRound, (r + 1) * perRound)) {
                    txn.write(keyOf(e), e);
                }
                // cut once a segment writer (re)connected since the last cut, so that every cut hits a live one
                Deadline connected = Deadline.after(Duration.ofSeconds(30));
                while (proxy.connections() == seen) {
                    assertThat(connected.expired()).as("a segment writer connected in round %s", r).isFalse();
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
                seen = proxy.connections();
                cuts += proxy.dropAll();
            }
            txn.flush();
            assertThat(cuts).as("connections cut while the transaction was written (ended on their own: %s)",
                    proxy.endings()).isGreaterThanOrEqualTo(rounds);
            assertThat(proxy.connections()).as("the segment writers reconnected").isGreaterThan(rounds);
            txn.commit();
        }
        List<Read> read = readAll(client, stream, "cut", expected.size());
        assertThat(read).extracting(Read::event).as("every event exactly once")
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(byKey(read)).as("per key in order").isEqualTo(byKeyOf(expected));
    }

    /**
     * Five transactions of one writer, all open at once and written to over the same keys, committed in an order
     * other than their beginning: a reader sees them per key in commit order.
     */
    public static void commitsOfOneWriterAppearInCommitOrder(SluiceClient client, String scope, String name) {
        ScopedStream stream = ScopedStream.of(scope, name);
        int keys = 8;
        int perTxn = 10;
        assertThat(client.streamManager().createStream(scope, name, StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(3)).build())).isTrue();
        List<Integer> commitOrder = List.of(3, 0, 4, 1, 2);
        List<String> expected = new ArrayList<>();
        try (TransactionalEventStreamWriter<String> tx = client.newTransactionalWriter(scope, name,
                Serializers.utf8())) {
            List<Transaction<String>> txns = new ArrayList<>();
            for (int j = 0; j < commitOrder.size(); j++) {
                txns.add(tx.beginTxn());
            }
            // interleaved: every transaction gets its i-th events before any gets its (i+1)-th
            for (int i = 0; i < perTxn; i++) {
                for (int j = 0; j < txns.size(); j++) {
                    writeAll(txns.get(j), events("t" + j, keys, i, i + 1));
                }
            }
            for (int j : commitOrder) {
                txns.get(j).commit();
                expected.addAll(events("t" + j, keys, 0, perTxn));
            }
        }
        List<Read> read = readAll(client, stream, "commit-order", expected.size());
        assertThat(read).extracting(Read::event).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(byKey(read)).as("per key, whole transactions in commit order %s", commitOrder)
                .isEqualTo(byKeyOf(expected));
    }

    /**
     * A transaction whose application stopped pinging (as if frozen): the controller aborts it once its lease ran
     * out; the next write, flush and commit throw {@link TransactionFailedException} saying so and naming the state;
     * abort returns (it is aborted); nothing of it is ever read, while a transaction pinged meanwhile commits.
     *
     * @param lease the lease to use (the server's minimum keeps the test short)
     */
    public static void aTransactionWhoseLeaseRunsOutEnds(SluiceClient client, String scope, String name,
                                                         Duration lease) {
        ScopedStream stream = ScopedStream.of(scope, name);
        assertThat(client.streamManager().createStream(scope, name, StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(2)).build())).isTrue();
        WriterConfig config = WriterConfig.DEFAULT.withTransactionLease(lease);
        try (TransactionalEventStreamWriter<String> tx = client.newTransactionalWriter(scope, name,
                Serializers.utf8(), config)) {
            Transaction<String> kept = tx.beginTxn();
            Transaction<String> frozen = tx.beginTxn();
            writeAll(frozen, events("frozen", 4, 0, 5));
            frozen.flush();
            kept.write("k0", "kept:k0:0");
            ((TransactionImpl<String>) frozen).stopPinging();

            Deadline deadline = Deadline.after(lease.multipliedBy(3).plusSeconds(60));
            TxnState state = frozen.status();
            while (state != TxnState.ABORTED) {
                assertThat(deadline.expired()).as("the controller aborted the unpinged transaction in time (%s)",
                        state).isFalse();
                assertThat(state).as("the unpinged transaction never commits").isIn(TxnState.OPEN, TxnState.ABORTING);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                state = frozen.status();
            }
            assertThat(kept.status()).as("the pinged transaction outlived the lease").isEqualTo(TxnState.OPEN);

            assertThatThrownBy(() -> frozen.write("k0", "frozen:k0:late"))
                    .isInstanceOf(TransactionFailedException.class)
                    .hasMessageContaining(frozen.id().toString()).hasMessageContaining("lease");
            assertThatThrownBy(frozen::flush).isInstanceOf(TransactionFailedException.class)
                    .hasMessageContaining("lease");
            assertThatThrownBy(frozen::commit).isInstanceOf(TransactionFailedException.class)
                    .hasMessageContaining("lease").hasMessageContaining("ABORTED");
            frozen.abort();
            assertThat(frozen.status()).isEqualTo(TxnState.ABORTED);

            kept.write("k1", "kept:k1:0");
            kept.commit();
        }
        assertThat(readAll(client, stream, "lease", 2)).extracting(Read::event)
                .containsExactlyInAnyOrder("kept:k0:0", "kept:k1:0");
    }
}
