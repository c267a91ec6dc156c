package io.sluice.server.controller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sluice.controller.grpc.v1.CreateKeyValueTableStatus;
import io.sluice.controller.grpc.v1.CreateStreamStatus;
import io.sluice.controller.grpc.v1.CreateTxnRequest;
import io.sluice.controller.grpc.v1.CreateTxnResponse;
import io.sluice.controller.grpc.v1.GetSegmentsRequest;
import io.sluice.controller.grpc.v1.KeyValueTableConfig;
import io.sluice.controller.grpc.v1.KeyValueTableInfo;
import io.sluice.controller.grpc.v1.ListCompletedTxnRequest;
import io.sluice.controller.grpc.v1.ReaderGroupConfiguration;
import io.sluice.controller.grpc.v1.ReaderGroupInfo;
import io.sluice.controller.grpc.v1.ScaleRequest;
import io.sluice.controller.grpc.v1.ScopeInfo;
import io.sluice.controller.grpc.v1.ScopesRequest;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.controller.grpc.v1.StreamCut;
import io.sluice.controller.grpc.v1.StreamsInScopeRequest;
import io.sluice.controller.grpc.v1.SubscriberStreamCut;
import io.sluice.controller.grpc.v1.TimestampFromWriter;
import io.sluice.controller.grpc.v1.TxnRequest;
import io.sluice.controller.grpc.v1.TxnState;
import io.sluice.controller.grpc.v1.TxnStatus;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;
import io.sluice.server.controller.ControllerEvent.KeyRange;

import static io.sluice.server.controller.ControllerHarness.cut;
import static io.sluice.server.controller.ControllerHarness.id;
import static io.sluice.server.controller.ControllerHarness.info;
import static io.sluice.server.controller.ControllerHarness.segmentId;
import static io.sluice.server.controller.ControllerHarness.txnId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PersistenceTest {

    private static UUID uuid(CreateTxnResponse r) {
        return new UUID(r.getTxnId().getHighBits(), r.getTxnId().getLowBits());
    }

    private static TxnRequest txn(String stream, UUID id) {
        return TxnRequest.newBuilder().setStreamInfo(info("sc", stream)).setTxnId(txnId(id)).build();
    }

    /** Everything a client could ask about the state built by {@link #buildState}. */
    private static List<Object> observe(ControllerHarness h, UUID open, UUID committed) {
        List<Object> answers = new ArrayList<>();
        answers.add(h.stub.listScopes(ScopesRequest.getDefaultInstance()));
        answers.add(h.stub.listStreamsInScope(StreamsInScopeRequest.newBuilder()
                .setScope(ScopeInfo.newBuilder().setScope("sc")).build()));
        answers.add(h.stub.getStreamConfiguration(info("sc", "s")));
        answers.add(h.stub.getCurrentSegments(info("sc", "s")));
        answers.add(h.stub.getSegments(GetSegmentsRequest.newBuilder().setStreamInfo(info("sc", "s")).build()));
        answers.add(h.stub.getSegmentsImmediatelyFollowing(segmentId("sc", "s", 0)));
        answers.add(h.stub.checkTransactionState(txn("s", open)));
        answers.add(h.stub.checkTransactionState(txn("s", committed)));
        answers.add(h.stub.listCompletedTransactions(ListCompletedTxnRequest.newBuilder()
                .setStreamInfo(info("sc", "s")).build()));
        answers.add(h.stub.getReaderGroupConfig(ReaderGroupInfo.newBuilder().setScope("sc").setReaderGroup("rg")
                .build()));
        answers.add(h.stub.listSubscribers(info("sc", "s")));
        answers.add(h.stub.getKeyValueTableConfiguration(KeyValueTableInfo.newBuilder().setScope("sc")
                .setKvtName("t").build()));
        answers.add(h.stub.getCurrentSegmentsKeyValueTable(KeyValueTableInfo.newBuilder().setScope("sc")
                .setKvtName("t").build()));
        answers.add(h.stub.getCurrentSegments(info("sc", "sealed")));
        return answers;
    }

    @Test
    void aRestartedControllerAnswersTheSameAndKeepsNumbering() throws InterruptedException {
        ControllerHarness h = new ControllerHarness();
        h.createScope("sc");
        h.createStream("sc", "s", 2);
        h.createStream("sc", "sealed", 1);
        h.stub.sealStream(info("sc", "sealed"));
        h.admin.append("sc/s/0.#epoch.0", 100);
        h.admin.append("sc/s/1.#epoch.0", 100);
        h.stub.scale(ScaleRequest.newBuilder().setStreamInfo(info("sc", "s")).addSealedSegments(0)
                .addNewKeyRanges(ScaleRequest.KeyRangeEntry.newBuilder().setStart(0).setEnd(0.5)).build());
        h.stub.truncateStream(StreamCut.newBuilder().setStreamInfo(info("sc", "s"))
                .putAllCut(cut(0, 50, 1, 60)).build());
        UUID open = uuid(h.stub.createTransaction(CreateTxnRequest.newBuilder().setStreamInfo(info("sc", "s"))
                .setLease(30_000).build()));
        UUID committed = uuid(h.stub.createTransaction(CreateTxnRequest.newBuilder().setStreamInfo(info("sc", "s"))
                .setLease(30_000).build()));
        h.stub.commitTransaction(txn("s", committed));
        ReaderGroupConfiguration rg = h.stub.createReaderGroup(ReaderGroupConfiguration.newBuilder().setScope("sc")
                .setReaderGroupName("rg").setRetentionType(1).setReaderGroupId(new UUID(0, 0).toString())
                .addStartingStreamCuts(StreamCut.newBuilder().setStreamInfo(info("sc", "s"))).build()).getConfig();
        h.stub.updateSubscriberStreamCut(SubscriberStreamCut.newBuilder().setSubscriber("sc/rg")
                .setReaderGroupId(rg.getReaderGroupId()).setStreamCut(StreamCut.newBuilder()
                        .setStreamInfo(info("sc", "s")).putAllCut(cut(id(2, 1), 0, 1, 60))).build());
        h.stub.noteTimestampFromWriter(TimestampFromWriter.newBuilder().setWriter("w").setTimestamp(5)
                .setPosition(StreamCut.newBuilder().setStreamInfo(info("sc", "s")).putAllCut(cut(1, 70))).build());
        h.stub.createKeyValueTable(KeyValueTableConfig.newBuilder().setScope("sc").setKvtName("t")
                .setPartitionCount(2).setPrimaryKeyLength(4).build());
        h.awaitIdle();
        List<Object> before = observe(h, open, committed);
        int segmentCalls = h.admin.calls().size();
        h.close();

        ControllerHarness again = ControllerHarness.restart(h);
        again.awaitIdle();
        assertThat(observe(again, open, committed)).isEqualTo(before);
        assertThat(again.admin.calls()).as("nothing to resume, nothing redone").hasSize(segmentCalls);

        // the writer mark survived: an older time is refused
        assertThat(again.stub.noteTimestampFromWriter(TimestampFromWriter.newBuilder().setWriter("w").setTimestamp(4)
                .setPosition(StreamCut.newBuilder().setStreamInfo(info("sc", "s")).putAllCut(cut(1, 70))).build())
                .getResult()).isEqualTo(io.sluice.controller.grpc.v1.TimestampResponse.Status.INVALID_TIME);
        // the open transaction still works; segment numbers continue after delete and recreate
        assertThat(again.stub.commitTransaction(txn("s", open)).getStatus()).isEqualTo(TxnStatus.Status.SUCCESS);
        again.awaitIdle();
        assertThat(again.stub.checkTransactionState(txn("s", open)).getState()).isEqualTo(TxnState.State.COMMITTED);
        assertThat(again.stub.deleteStream(info("sc", "sealed")).getStatus())
                .isEqualTo(io.sluice.controller.grpc.v1.DeleteStreamStatus.Status.SUCCESS);
        again.close();
        ControllerHarness third = ControllerHarness.restart(again);
        third.createStream("sc", "sealed", 1);
        assertThat(third.currentSegmentIds("sc", "sealed")).containsExactly(1L);
        assertThat(third.stub.createKeyValueTable(KeyValueTableConfig.newBuilder().setScope("sc").setKvtName("t")
                .setPartitionCount(2).setPrimaryKeyLength(4).build()).getStatus())
                .isEqualTo(CreateKeyValueTableStatus.Status.TABLE_EXISTS);
        third.close();
    }

    @Test
    void workBegunBeforeACrashIsFinishedAfterTheRestart() throws InterruptedException {
        ControllerHarness h = new ControllerHarness();
        h.createScope("sc");
        h.createStream("sc", "s", 1);
        h.createStream("sc", "v", 1);
        UUID txn = uuid(h.stub.createTransaction(CreateTxnRequest.newBuilder().setStreamInfo(info("sc", "s"))
                .setLease(30_000).build()));
        h.close();
        // the log shows changes whose segment store work never happened (the process died in between)
        h.store.reopen();
        long t = ControllerHarness.START.toEpochMilli() + 1000;
        StreamConfig config = ControllerHarness.fixed("sc", "u", 2);
        for (ControllerEvent e : List.of(
                new ControllerEvent.ScaleStarted("sc", "s", List.of(0L),
                        List.of(new KeyRange(0, 0.5), new KeyRange(0.5, 1)), t),
                new ControllerEvent.TxnCommitting("sc", "s", txn, "w", Long.MIN_VALUE),
                new ControllerEvent.StreamCreating("sc", "u", config, t, false),
                new ControllerEvent.StreamSealing("sc", "v"))) {
            h.store.append(e);
        }

        ControllerHarness again = ControllerHarness.restart(h);
        again.awaitIdle();
        assertThat(again.currentSegmentIds("sc", "s")).as("scale finished, then the transaction rolled over")
                .containsExactly(id(1, 3), id(2, 3));
        assertThat(again.admin.sealed("sc/s/0.#epoch.0")).isTrue();
        assertThat(again.stub.checkTransactionState(txn("s", txn)).getState()).isEqualTo(TxnState.State.COMMITTED);
        assertThat(again.admin.calls("merge ")).hasSize(1).allMatch(c -> c.endsWith("-> sc/s/0.#epoch.2"));
        assertThat(again.admin.exists("sc/u/0.#epoch.0")).isTrue();
        assertThat(again.admin.exists("sc/u/1.#epoch.0")).isTrue();
        assertThat(again.admin.exists("sc/_MARKu/0.#epoch.0")).as("its watermark stream too").isTrue();
        assertThat(again.stub.createStream(ControllerHarness.fixed("sc", "u", 2)).getStatus())
                .isEqualTo(CreateStreamStatus.Status.STREAM_EXISTS);
        assertThat(again.admin.sealed("sc/v/0.#epoch.0")).isTrue();
        assertThat(again.currentSegments("sc", "v")).isEmpty();
        assertThat(again.stub.sealStream(info("sc", "v")).getStatus()).isEqualTo(UpdateStreamStatus.Status.SUCCESS);
        again.close();
    }

    @Test
    void aStoreFailureStopsFurtherChanges() throws InterruptedException {
        ControllerHarness h = new ControllerHarness();
        h.createScope("sc");
        h.store.close();
        assertThatThrownBy(() -> h.stub.createScope(ScopeInfo.newBuilder().setScope("other").build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
        h.store.reopen();
        assertThatThrownBy(() -> h.stub.createScope(ScopeInfo.newBuilder().setScope("third").build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
        assertThat(h.stub.checkScopeExists(ScopeInfo.newBuilder().setScope("sc").build()).getExists()).isTrue();
        h.close();
    }

    @Test
    void theLeaseTimerAbortsExpiredTransactions() throws InterruptedException {
        ControllerHarness h = ControllerHarness.withLeaseTimer(Duration.ofMillis(5));
        h.createScope("sc");
        h.createStream("sc", "s", 1);
        UUID txn = uuid(h.stub.createTransaction(CreateTxnRequest.newBuilder().setStreamInfo(info("sc", "s"))
                .setLease(10_000).build()));
        CountDownLatch deleted = h.admin.awaitDeletions(1);
        h.clock.advance(Duration.ofSeconds(11));
        assertThat(deleted.await(30, TimeUnit.SECONDS)).isTrue();
        h.awaitIdle();
        assertThat(h.stub.checkTransactionState(txn("s", txn)).getState()).isEqualTo(TxnState.State.ABORTED);
        h.close();
    }

    @Test
    void everyEventTypeRoundTripsThroughTheCodec() {
        UUID id = new UUID(0x0000000100000002L, 0x0000000000000003L);
        StreamConfig config = ControllerHarness.fixed("sc", "s", 3);
        List<ControllerEvent> samples = List.of(
                new ControllerEvent.ScopeCreated("sc"),
                new ControllerEvent.ScopeDeleting("sc"),
                new ControllerEvent.ScopeDeleted("sc"),
                new ControllerEvent.StreamCreating("sc", "s", config, 1, true),
                new ControllerEvent.StreamActivated("sc", "s"),
                new ControllerEvent.StreamUpdated("sc", "s", config),
                new ControllerEvent.ScaleStarted("sc", "s", List.of(1L, id(2, 3)),
                        List.of(new KeyRange(0, 0.25), new KeyRange(0.25, 0.5)), 7),
                new ControllerEvent.ScaleEpochCreated("sc", "s"),
                new ControllerEvent.ScaleCompleted("sc", "s"),
                new ControllerEvent.StreamSealing("sc", "s"),
                new ControllerEvent.StreamSealed("sc", "s"),
                new ControllerEvent.StreamDeleting("sc", "s"),
                new ControllerEvent.StreamDeleted("sc", "s"),
                new ControllerEvent.TruncationStarted("sc", "s", Map.of(1L, 10L, id(2, 1), -1L)),
                new ControllerEvent.TruncationCompleted("sc", "s"),
                new ControllerEvent.TxnCreated("sc", "s", id, 1, 2, 3),
                new ControllerEvent.TxnPinged("sc", "s", id, 4),
                new ControllerEvent.TxnCommitting("sc", "s", id, "writer-é", Long.MIN_VALUE),
                new ControllerEvent.TxnCommitted("sc", "s", id, 5),
                new ControllerEvent.TxnAborting("sc", "s", id),
                new ControllerEvent.TxnAborted("sc", "s", id, 6),
                new ControllerEvent.RollingTxnStarted("sc", "s", 8),
                new ControllerEvent.RollingTxnEpochsCreated("sc", "s"),
                new ControllerEvent.RollingTxnCompleted("sc", "s"),
                new ControllerEvent.ReaderGroupCreated("sc", "rg", ReaderGroupConfiguration.newBuilder()
                        .setScope("sc").setReaderGroupName("rg").setGeneration(2).build(), 9),
                new ControllerEvent.ReaderGroupUpdated("sc", "rg", ReaderGroupConfiguration.getDefaultInstance()),
                new ControllerEvent.ReaderGroupDeleting("sc", "rg"),
                new ControllerEvent.ReaderGroupDeleted("sc", "rg"),
                new ControllerEvent.SubscriberStreamCutUpdated("sc", "s", "sc/rg", 3, Map.of(0L, 1L), 10),
                new ControllerEvent.WriterMarkNoted("sc", "s", "w", 11, Map.of(0L, 2L)),
                new ControllerEvent.WriterRemoved("sc", "s", "w"),
                new ControllerEvent.WriterShutDown("sc", "s", "w"),
                new ControllerEvent.KvtCreating("sc", "t", KeyValueTableConfig.newBuilder().setPartitionCount(2)
                        .build(), id, 12),
                new ControllerEvent.KvtActivated("sc", "t"),
                new ControllerEvent.KvtDeleting("sc", "t"),
                new ControllerEvent.KvtDeleted("sc", "t"));
        Set<Class<?>> covered = new HashSet<>();
        for (ControllerEvent e : samples) {
            byte[] bytes = ControllerEventCodec.encode(e);
            assertThat(ControllerEventCodec.decode(bytes)).isEqualTo(e);
            assertThat(ControllerEventCodec.encode(ControllerEventCodec.decode(bytes))).isEqualTo(bytes);
            covered.add(e.getClass());
            byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length - 1);
            assertThatThrownBy(() -> ControllerEventCodec.decode(truncated))
                    .isInstanceOf(io.sluice.errors.ProtocolException.class);
        }
        assertThat(covered).containsExactlyInAnyOrder(ControllerEvent.class.getPermittedSubclasses());
        assertThatThrownBy(() -> ControllerEventCodec.decode(new byte[] {1, 99}))
                .isInstanceOf(io.sluice.errors.ProtocolException.class).hasMessageContaining("99");
        assertThatThrownBy(() -> ControllerEventCodec.decode(new byte[] {2, 1}))
                .isInstanceOf(io.sluice.errors.ProtocolException.class).hasMessageContaining("version");
    }

    @Test
    void replayingTheLogGivesTheSameEventsToAFreshModel() throws InterruptedException {
        ControllerHarness h = new ControllerHarness();
        h.createScope("sc");
        h.createStream("sc", "s", 2);
        h.close();
        List<ControllerEvent> logged = h.store.events();
        assertThat(logged).extracting(e -> e.getClass().getSimpleName()).containsExactly("ScopeCreated",
                "StreamCreating", "StreamCreating", "StreamActivated", "StreamActivated");
        ControllerModel model = new ControllerModel();
        logged.forEach(model::apply);
        assertThat(model.stream("sc", "s").currentSegments()).extracting(SegmentRecord::id).containsExactly(0L, 1L);
        assertThat(model.stream("sc", "_MARKs").markStream).isTrue();
    }
}
