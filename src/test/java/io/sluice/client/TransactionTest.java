package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.sluice.admin.ReaderGroup;
import io.sluice.common.Deadline;
import io.sluice.controller.ControllerClient;
import io.sluice.errors.TransactionFailedException;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.Transaction;
import io.sluice.stream.TransactionInfo;
import io.sluice.stream.TransactionalEventStreamWriter;
import io.sluice.stream.TxnState;
import io.sluice.stream.WriterConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Transactions against the embedded server: commit, abort, the ended transaction's errors, getTxn, listing. */
@Timeout(90)
class TransactionTest {
    private static final ScopedStream STREAM = ScopedStream.of("shop", "orders");
    private static final Duration POLL = Duration.ofMillis(100);

    private EmbeddedServer server;
    private SluiceClient client;
    private ControllerClient controller;

    @BeforeEach
    void start() {
        server = EmbeddedServer.builder().inMemory().build();
        client = SluiceClient.connect(server.controllerUri());
        controller = client.controller();
        controller.createScope(STREAM.scope());
        controller.createStream(STREAM, StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(3)).build());
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    private TransactionalEventStreamWriter<String> writer() {
        return client.newTransactionalWriter(STREAM.scope(), STREAM.name(), Serializers.utf8());
    }

    /** Reads {@code count} events with one reader of a new group, then checks nothing more comes. */
    private List<String> readAll(String group, int count) {
        ReaderGroupConfig config = ReaderGroupConfig.builder().stream(STREAM).groupRefreshTimeMillis(100)
                .disableAutomaticCheckpoints().build();
        List<String> read = new ArrayList<>();
        try (ReaderGroup g = client.readerGroupManager(STREAM.scope()).createReaderGroup(group, config);
             EventStreamReader<String> reader = client.newReader(STREAM.scope(), group, "r1", Serializers.utf8())) {
            Deadline deadline = Deadline.after(Duration.ofSeconds(30));
            while (read.size() < count) {
                assertThat(deadline.expired()).as("read %s of %s events in time", read.size(), count).isFalse();
                EventRead<String> e = reader.readNextEvent(POLL);
                if (e.event() != null) {
                    read.add(e.event());
                }
            }
            for (int i = 0; i < 5; i++) {
                assertThat(reader.readNextEvent(POLL).event()).as("no event beyond the %s expected", count).isNull();
            }
        }
        return read;
    }

    /** The events of each key, in the order read. */
    private static Map<String, List<String>> byKey(List<String> events) {
        Map<String, List<String>> out = new HashMap<>();
        for (String e : events) {
            out.computeIfAbsent(e.substring(0, e.indexOf(':')), k -> new ArrayList<>()).add(e);
        }
        return out;
    }

    @Test
    void committedTransactionIsReadWholeAndAbortedNever() {
        try (TransactionalEventStreamWriter<String> tx = writer()) {
            Transaction<String> aborted = tx.beginTxn();
            Transaction<String> committed = tx.beginTxn();
            assertThat(aborted.id()).isNotEqualTo(committed.id());
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                for (int k = 0; k < 4; k++) {
                    committed.write("k" + k, "k" + k + ":" + i);
                    expected.add("k" + k + ":" + i);
                    aborted.write("k" + k, "gone" + k + ":" + i);
                }
            }
            committed.writeAll("k0", List.of("k0:all-1", "k0:all-2"));
            expected.add("k0:all-1");
            expected.add("k0:all-2");
            committed.flush();
            aborted.flush();
            aborted.abort();
            assertThat(aborted.status()).isEqualTo(TxnState.ABORTED);
            committed.commit();
            assertThat(committed.status()).isEqualTo(TxnState.COMMITTED);

            List<String> read = readAll("g", expected.size());
            assertThat(read).containsExactlyInAnyOrderElementsOf(expected).noneMatch(e -> e.startsWith("gone"));
            Map<String, List<String>> keys = byKey(read);
            for (int k = 0; k < 4; k++) {
                List<String> want = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    want.add("k" + k + ":" + i);
                }
                if (k == 0) {
                    want.add("k0:all-1");
                    want.add("k0:all-2");
                }
                assertThat(keys.get("k" + k)).as("key k%s in order", k).containsExactlyElementsOf(want);
            }
        }
    }

    @Test
    void nothingIsReadBeforeTheCommit() {
        try (TransactionalEventStreamWriter<String> tx = writer();
             EventStreamWriter<String> plain = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            Transaction<String> txn = tx.beginTxn();
            txn.write("a", "a:txn");
            txn.flush();
            plain.write("b", "b:plain");
            plain.flush();
            assertThat(readAll("before", 1)).containsExactly("b:plain");
            txn.commit();
            assertThat(readAll("after", 2)).containsExactlyInAnyOrder("b:plain", "a:txn");
        }
    }

    @Test
    void anEndedTransactionRefusesWritesAndSaysWhy() {
        try (TransactionalEventStreamWriter<String> tx = writer()) {
            Transaction<String> txn = tx.beginTxn();
            txn.write("a", "a:1");
            txn.commit();
            assertThatThrownBy(() -> txn.write("a", "a:2")).isInstanceOf(TransactionFailedException.class)
                    .hasMessageContaining(txn.id().toString()).hasMessageContaining("committed");
            assertThatThrownBy(() -> txn.writeAll("a", List.of("a:3"))).isInstanceOf(TransactionFailedException.class);
            assertThatThrownBy(txn::flush).isInstanceOf(TransactionFailedException.class);
            assertThatThrownBy(txn::commit).isInstanceOf(TransactionFailedException.class)
                    .hasMessageContaining("COMMITTED");
            assertThatThrownBy(txn::abort).isInstanceOf(TransactionFailedException.class)
                    .hasMessageContaining("cannot abort").hasMessageContaining("COMMITTED");

            Transaction<String> gone = tx.beginTxn();
            gone.abort();
            gone.abort(); // already aborted: returns
            assertThatThrownBy(() -> gone.write("a", "x")).isInstanceOf(TransactionFailedException.class)
                    .hasMessageContaining("aborted");
            assertThatThrownBy(gone::commit).isInstanceOf(TransactionFailedException.class)
                    .hasMessageContaining("ABORTED");
        }
        assertThat(readAll("g", 1)).containsExactly("a:1");
    }

    @Test
    void getTxnFindsATransactionByIdAndCanCommitIt() {
        UUID id;
        try (TransactionalEventStreamWriter<String> first = writer();
             TransactionalEventStreamWriter<String> second = writer()) {
            Transaction<String> txn = first.beginTxn();
            id = txn.id();
            txn.write("a", "a:1");
            txn.flush();
            Transaction<String> again = second.getTxn(id);
            assertThat(again.id()).isEqualTo(id);
            assertThat(again.status()).isEqualTo(TxnState.OPEN);
            again.write("b", "b:1");
            again.commit();
            assertThat(txn.status()).isEqualTo(TxnState.COMMITTED);
            Transaction<String> done = first.getTxn(id);
            assertThat(done.status()).isEqualTo(TxnState.COMMITTED);
            assertThatThrownBy(() -> done.write("c", "c:1")).isInstanceOf(TransactionFailedException.class)
                    .hasMessageContaining("COMMITTED");
        }
        assertThat(readAll("g", 2)).containsExactlyInAnyOrder("a:1", "b:1");
        assertThatThrownBy(() -> writer().getTxn(UUID.randomUUID())).isInstanceOf(TransactionFailedException.class);
    }

    @Test
    void streamManagerListsCompletedTransactions() {
        UUID committed;
        UUID aborted;
        try (TransactionalEventStreamWriter<String> tx = writer()) {
            Transaction<String> c = tx.beginTxn();
            c.write("a", "a:1");
            c.commit();
            committed = c.id();
            Transaction<String> a = tx.beginTxn();
            a.write("a", "a:2");
            a.abort();
            aborted = a.id();
        }
        List<TransactionInfo> done = client.streamManager().listCompletedTransactions(STREAM.scope(), STREAM.name());
        assertThat(done).contains(new TransactionInfo(STREAM, committed, TxnState.COMMITTED),
                new TransactionInfo(STREAM, aborted, TxnState.ABORTED));
    }

    @Test
    void thePingerKeepsTheLeaseAndATransactionAbortedElsewhereEnds() {
        WriterConfig config = WriterConfig.DEFAULT.withTransactionLease(Duration.ofSeconds(10));
        try (TransactionalEventStreamWriter<String> tx = client.newTransactionalWriter(STREAM.scope(), STREAM.name(),
                Serializers.utf8(), config)) {
            assertThat(tx.config()).isEqualTo(config);
            Transaction<String> kept = tx.beginTxn();
            Transaction<String> victim = tx.beginTxn();
            victim.write("a", "a:1");
            victim.flush();
            // the controller aborts a transaction 10 s after its last ping: open after 13 s means it was pinged
            Deadline beyondLease = Deadline.after(Duration.ofSeconds(13));
            while (!beyondLease.expired()) {
                assertThat(kept.status()).as("pinged, so still open").isEqualTo(TxnState.OPEN);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            }
            kept.write("b", "b:1");
            kept.commit();

            controller.abortTransaction(STREAM, victim.id());
            TransactionFailedException failed = null;
            Deadline deadline = Deadline.after(Duration.ofSeconds(30));
            while (failed == null) {
                assertThat(deadline.expired()).as("the transaction aborted elsewhere ended here in time").isFalse();
                try {
                    victim.write("a", "a:late");
                    victim.flush();
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                } catch (TransactionFailedException e) {
                    failed = e;
                }
            }
            assertThat(failed).hasMessageContaining(victim.id().toString());
            assertThatThrownBy(victim::commit).isInstanceOf(TransactionFailedException.class)
                    .hasMessageContaining("ABORTED");
        }
        assertThat(readAll("g", 1)).containsExactly("b:1");
    }

    @Test
    void aCommitRacingAScaleIsReadWholeFromTheRollingTransactionsSegments() {
        TransactionScenarios.commitRacingAScale(client, STREAM.scope(), "scaled");
    }

    @Test
    void commitsRacingAConcurrentScaleAreReadWholeInCommitOrder() throws Exception {
        TransactionScenarios.commitsRacingAConcurrentScale(client, STREAM.scope(), "racing");
    }

    @Test
    void writesSurviveCutConnectionsExactlyOnce() throws Exception {
        TransactionScenarios.writesSurviveCutConnections(client, STREAM.scope(), "cut");
    }

    @Test
    void commitsOfOneWriterAreReadInCommitOrder() {
        TransactionScenarios.commitsOfOneWriterAppearInCommitOrder(client, STREAM.scope(), "ordered");
    }

    @Test
    void aLeaseThatRunsOutEndsTheTransaction() {
        try (EmbeddedServer fast = EmbeddedServer.builder().inMemory()
                .transactionLeases(Duration.ofMillis(500), Duration.ofMillis(100)).build();
             SluiceClient fastClient = SluiceClient.connect(fast.controllerUri())) {
            fastClient.streamManager().createScope("leases");
            TransactionScenarios.aTransactionWhoseLeaseRunsOutEnds(fastClient, "leases", "s", Duration.ofSeconds(1));
        }
    }

    @Test
    void theServersLeaseBoundsAreChecked() {
        assertThatThrownBy(() -> EmbeddedServer.builder().transactionLeases(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("minLease");
        assertThatThrownBy(() -> EmbeddedServer.builder().transactionLeases(Duration.ofSeconds(1), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("checkInterval");
        // the default server refuses a lease below Pravega's 10 s minimum
        WriterConfig shortLease = WriterConfig.DEFAULT.withTransactionLease(Duration.ofSeconds(1));
        try (TransactionalEventStreamWriter<String> tx = client.newTransactionalWriter(STREAM.scope(), STREAM.name(),
                Serializers.utf8(), shortLease)) {
            assertThatThrownBy(tx::beginTxn).hasMessageContaining("lease");
        }
    }
}
