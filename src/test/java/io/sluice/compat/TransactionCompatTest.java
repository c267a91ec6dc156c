package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.client.TransactionScenarios;
import io.sluice.common.Deadline;
import io.sluice.errors.TransactionFailedException;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
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

/**
 * Against the real Pravega 0.13: a committed transaction is read whole and an aborted one never, an ended
 * transaction refuses writes, getTxn finds one by id, and the stream manager lists completed transactions.
 */
@CompatTest
@Timeout(180)
class TransactionCompatTest {
    @RegisterExtension
    static final RealPravegaScope real = new RealPravegaScope("compat-txn");

    @Test
    void transactionsCommitWholeAbortNeverAndEndedOnesSayWhy() {
        String scope = real.scope;
        real.streams.createStream(scope, "s", StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(2)).build());
        List<String> expected = new ArrayList<>();
        UUID committedId;
        UUID abortedId;
        try (TransactionalEventStreamWriter<String> tx = real.client.newTransactionalWriter(scope, "s", Serializers.utf8());
             TransactionalEventStreamWriter<String> other = real.client.newTransactionalWriter(scope, "s",
                     Serializers.utf8())) {
            Transaction<String> aborted = tx.beginTxn();
            Transaction<String> committed = tx.beginTxn();
            for (int i = 0; i < 10; i++) {
                for (int k = 0; k < 3; k++) {
                    committed.write("k" + k, "k" + k + ":" + i);
                    expected.add("k" + k + ":" + i);
                    aborted.write("k" + k, "gone:" + i);
                }
            }
            committed.writeAll("k0", List.of("k0:all-1", "k0:all-2"));
            expected.add("k0:all-1");
            expected.add("k0:all-2");
            aborted.flush();
            aborted.abort();
            assertThat(aborted.status()).isEqualTo(TxnState.ABORTED);
            Transaction<String> found = other.getTxn(committed.id());
            assertThat(found.status()).isEqualTo(TxnState.OPEN);
            committed.commit();
            assertThat(found.status()).isEqualTo(TxnState.COMMITTED);
            assertThatThrownBy(() -> committed.write("k0", "late")).isInstanceOf(TransactionFailedException.class)
                    .hasMessageContaining("committed");
            assertThatThrownBy(committed::commit).isInstanceOf(TransactionFailedException.class)
                    .hasMessageContaining("COMMITTED");
            committedId = committed.id();
            abortedId = aborted.id();
        }

        real.client.readerGroupManager(scope).createReaderGroup("g", ReaderGroupConfig.builder()
                .stream(ScopedStream.of(scope, "s")).groupRefreshTimeMillis(100).disableAutomaticCheckpoints().build())
                .close();
        List<String> read = new ArrayList<>();
        try (EventStreamReader<String> reader = real.client.newReader(scope, "g", "a", Serializers.utf8())) {
            Deadline deadline = Deadline.after(Duration.ofSeconds(60));
            while (read.size() < expected.size()) {
                assertThat(deadline.expired()).as("read %s of %s in time", read.size(), expected.size()).isFalse();
                EventRead<String> e = reader.readNextEvent(Duration.ofMillis(500));
                if (e.event() != null) {
                    read.add(e.event());
                }
            }
            assertThat(reader.readNextEvent(Duration.ofSeconds(1)).event()).isNull();
        }
        assertThat(read).containsExactlyInAnyOrderElementsOf(expected);
        List<String> k0 = read.stream().filter(e -> e.startsWith("k0:")).toList();
        assertThat(k0.subList(k0.size() - 2, k0.size())).containsExactly("k0:all-1", "k0:all-2");

        // Pravega 0.13's controller lists only its first batch of completed transactions (batch 0), so on a cluster
        // that has run a while the list may lack ours: what it lists of them must have the right state
        ScopedStream stream = ScopedStream.of(scope, "s");
        List<TransactionInfo> done = real.streams.listCompletedTransactions(scope, "s");
        assertThat(done).allMatch(t -> t.stream().equals(stream))
                .isSubsetOf(new TransactionInfo(stream, committedId, TxnState.COMMITTED),
                        new TransactionInfo(stream, abortedId, TxnState.ABORTED));
    }

    @Test
    void thePingerKeepsTheLeaseAndATransactionAbortedElsewhereEnds() {
        String scope = real.scope;
        real.streams.createStream(scope, "lease", StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(1)).build());
        WriterConfig config = WriterConfig.DEFAULT.withTransactionLease(Duration.ofSeconds(10));
        try (TransactionalEventStreamWriter<String> tx = real.client.newTransactionalWriter(scope, "lease", Serializers.utf8(),
                config);
             TransactionalEventStreamWriter<String> other = real.client.newTransactionalWriter(scope, "lease",
                     Serializers.utf8())) {
            Transaction<String> kept = tx.beginTxn();
            Transaction<String> victim = tx.beginTxn();
            victim.write("a", "a:1");
            victim.flush();
            // the controller times a transaction out 10 s after its last ping: open after 13 s means it was pinged
            Deadline beyondLease = Deadline.after(Duration.ofSeconds(13));
            while (!beyondLease.expired()) {
                assertThat(kept.status()).as("pinged, so still open").isEqualTo(TxnState.OPEN);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            }
            kept.commit();

            other.getTxn(victim.id()).abort();
            TransactionFailedException failed = null;
            Deadline deadline = Deadline.after(Duration.ofSeconds(60));
            while (failed == null) {
                assertThat(deadline.expired()).as("the transaction aborted elsewhere ended here in time").isFalse();
                try {
                    victim.write("a", "a:late");
                    victim.flush();
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                } catch (TransactionFailedException e) {
                    failed = e;
                }
            }
            assertThat(failed).hasMessageContaining(victim.id().toString());
            assertThatThrownBy(victim::commit).isInstanceOf(TransactionFailedException.class)
                    .hasMessageContaining("ABORT");
        }
    }

    @Test
    void aCommitRacingAScaleIsReadWholeFromTheRollingTransactionsSegments() {
        TransactionScenarios.commitRacingAScale(real.client, real.scope, "scaled");
    }

    @Test
    void commitsRacingAConcurrentScaleAreReadWholeInCommitOrder() throws Exception {
        TransactionScenarios.commitsRacingAConcurrentScale(real.client, real.scope, "racing");
    }

    @Test
    void writesSurviveCutConnectionsExactlyOnce() throws Exception {
        TransactionScenarios.writesSurviveCutConnections(real.client, real.scope, "cut");
    }

    @Test
    void commitsOfOneWriterAreReadInCommitOrder() {
        TransactionScenarios.commitsOfOneWriterAppearInCommitOrder(real.client, real.scope, "ordered");
    }

    @Test
    void aLeaseThatRunsOutEndsTheTransaction() {
        // Pravega's controller accepts no lease below 10 s (controller.transaction.lease.count.min)
        TransactionScenarios.aTransactionWhoseLeaseRunsOutEnds(real.client, real.scope, "expiring",
                Duration.ofSeconds(10));
    }
}
