package io.sluice.server.controller;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.google.common.util.concurrent.ListenableFuture;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sluice.controller.grpc.v1.ControllerServiceGrpc;
import io.sluice.controller.grpc.v1.CreateTxnRequest;
import io.sluice.controller.grpc.v1.CreateTxnResponse;
import io.sluice.controller.grpc.v1.ListCompletedTxnRequest;
import io.sluice.controller.grpc.v1.PingTxnRequest;
import io.sluice.controller.grpc.v1.PingTxnStatus;
import io.sluice.controller.grpc.v1.ScaleRequest;
import io.sluice.controller.grpc.v1.TxnRequest;
import io.sluice.controller.grpc.v1.TxnResponse;
import io.sluice.controller.grpc.v1.TxnState;
import io.sluice.controller.grpc.v1.TxnStatus;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;

import static io.sluice.server.controller.ControllerHarness.id;
import static io.sluice.server.controller.ControllerHarness.info;
import static io.sluice.server.controller.ControllerHarness.segmentId;
import static io.sluice.server.controller.ControllerHarness.txnId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransactionTest {
    private static final long LEASE = 10_000;
    private ControllerHarness h;

    @BeforeEach
    void start() {
        h = new ControllerHarness();
        h.createScope("sc");
    }

    @AfterEach
    void stop() throws InterruptedException {
        h.close();
    }

    private CreateTxnResponse create(long lease) {
        return h.stub.createTransaction(CreateTxnRequest.newBuilder().setStreamInfo(info("sc", "s")).setLease(lease)
                .build());
    }

    private static UUID uuid(CreateTxnResponse r) {
        return new UUID(r.getTxnId().getHighBits(), r.getTxnId().getLowBits());
    }

    private static TxnRequest request(UUID txn) {
        return TxnRequest.newBuilder().setStreamInfo(info("sc", "s")).setTxnId(txnId(txn)).setWriterId("w1")
                .setTimestamp(Long.MIN_VALUE).build();
    }

    private TxnStatus.Status commit(UUID txn) {
        return h.stub.commitTransaction(request(txn)).getStatus();
    }

    private TxnStatus.Status abort(UUID txn) {
        return h.stub.abortTransaction(request(txn)).getStatus();
    }

    private TxnState.State state(UUID txn) {
        return h.stub.checkTransactionState(request(txn)).getState();
    }

    private PingTxnStatus.Status ping(UUID txn, long lease) {
        return h.stub.pingTransaction(PingTxnRequest.newBuilder().setStreamInfo(info("sc", "s"))
                .setTxnId(txnId(txn)).setLease(lease).build()).getStatus();
    }

    private static String txnSegment(int number, int epoch, UUID txn) {
        return "sc/s/" + number + ".#epoch." + epoch + "#transaction."
                + String.format("%016x%016x", txn.getMostSignificantBits(), txn.getLeastSignificantBits());
    }

    @Test
    void creationMakesATransactionSegmentPerActiveSegment() {
        h.createStream("sc", "s", 2);
        CreateTxnResponse r = create(LEASE);
        UUID txn = uuid(r);
        assertThat(txn.getMostSignificantBits() >> 32).as("epoch in the high bits").isEqualTo(0);
        assertThat(r.getActiveSegmentsList()).extracting(s -> s.getSegmentId().getSegmentId()).containsExactly(0L, 1L);
        assertThat(r.getActiveSegments(1).getMinKey()).isEqualTo(0.5);
        assertThat(r.getDelegationToken()).isEmpty();
        assertThat(h.admin.exists(txnSegment(0, 0, txn))).isTrue();
        assertThat(h.admin.exists(txnSegment(1, 0, txn))).isTrue();
        assertThat(state(txn)).isEqualTo(TxnState.State.OPEN);
        assertThat(state(UUID.randomUUID())).isEqualTo(TxnState.State.UNKNOWN);
        assertThat(h.stub.checkTransactionState(request(txn).toBuilder().setStreamInfo(info("sc", "nope")).build())
                .getState()).isEqualTo(TxnState.State.UNKNOWN);

        assertThatThrownBy(() -> create(9_999)).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        assertThatThrownBy(() -> create(600_001)).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        assertThatThrownBy(() -> h.stub.createTransaction(CreateTxnRequest.newBuilder()
                .setStreamInfo(info("sc", "nope")).setLease(LEASE).build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
    }

    @Test
    void transactionsAfterAScaleCarryTheNewEpochAndItsSegmentNumbers() {
        h.createStream("sc", "s", 2);
        h.stub.scale(ScaleRequest.newBuilder().setStreamInfo(info("sc", "s")).addSealedSegments(0)
                .addNewKeyRanges(ScaleRequest.KeyRangeEntry.newBuilder().setStart(0).setEnd(0.5)).build());
        CreateTxnResponse r = create(LEASE);
        UUID txn = uuid(r);
        assertThat(txn.getMostSignificantBits() >> 32).isEqualTo(1);
        assertThat(r.getActiveSegmentsList()).extracting(s -> s.getSegmentId().getSegmentId())
                .containsExactly(id(2, 1), id(1, 1));
        assertThat(h.admin.exists(txnSegment(2, 1, txn))).isTrue();
        assertThat(h.admin.exists(txnSegment(1, 1, txn))).as("named with the transaction's epoch").isTrue();

        assertThat(commit(txn)).isEqualTo(TxnStatus.Status.SUCCESS);
        awaitIdle();
        assertThat(h.admin.calls("merge ")).containsExactlyInAnyOrder(
                "merge " + txnSegment(2, 1, txn) + " -> sc/s/2.#epoch.1",
                "merge " + txnSegment(1, 1, txn) + " -> sc/s/1.#epoch.0");
    }

    @Test
    void commitSealsAndMergesInCommitOrderAndNeverOvertakes() throws InterruptedException {
        h.createStream("sc", "s", 1);
        UUID a = uuid(create(LEASE));
        UUID b = uuid(create(LEASE));
        h.admin.append(txnSegment(0, 0, a), 10);
        h.admin.append(txnSegment(0, 0, b), 20);

        CountDownLatch mergeStarted = h.admin.holdMerges();
        assertThat(commit(b)).isEqualTo(TxnStatus.Status.SUCCESS);
        assertThat(mergeStarted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(commit(a)).isEqualTo(TxnStatus.Status.SUCCESS);
        assertThat(state(b)).isEqualTo(TxnState.State.COMMITTING);
        assertThat(state(a)).isEqualTo(TxnState.State.COMMITTING);
        assertThat(commit(b)).as("commit is idempotent").isEqualTo(TxnStatus.Status.SUCCESS);
        assertThat(abort(a)).as("a committing transaction cannot be aborted").isEqualTo(TxnStatus.Status.FAILURE);
        assertThat(ping(a, LEASE)).isEqualTo(PingTxnStatus.Status.COMMITTED);
        h.admin.openMerges();
        awaitIdle();

        assertThat(h.admin.calls()).containsSubsequence(
                "seal " + txnSegment(0, 0, b), "merge " + txnSegment(0, 0, b) + " -> sc/s/0.#epoch.0",
                "seal " + txnSegment(0, 0, a), "merge " + txnSegment(0, 0, a) + " -> sc/s/0.#epoch.0");
        assertThat(h.admin.length("sc/s/0.#epoch.0")).isEqualTo(30);
        assertThat(state(a)).isEqualTo(TxnState.State.COMMITTED);
        assertThat(state(b)).isEqualTo(TxnState.State.COMMITTED);
        assertThat(ping(a, LEASE)).isEqualTo(PingTxnStatus.Status.COMMITTED);
        assertThat(h.stub.listCompletedTransactions(ListCompletedTxnRequest.newBuilder()
                .setStreamInfo(info("sc", "s")).build()).getResponseList())
                .extracting(TxnResponse::getTxnId, TxnResponse::getStatus)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(txnId(b), TxnResponse.Status.COMMITTED),
                        org.assertj.core.groups.Tuple.tuple(txnId(a), TxnResponse.Status.COMMITTED));
    }

    @Test
    void aFailedMergeIsRetriedLater() {
        h.createStream("sc", "s", 1);
        UUID txn = uuid(create(LEASE));
        h.admin.failMerges(1);
        assertThat(commit(txn)).isEqualTo(TxnStatus.Status.SUCCESS);
        awaitIdle();
        assertThat(state(txn)).isEqualTo(TxnState.State.COMMITTING);
        assertThat(h.service.retryFailedWork()).isEqualTo(1);
        awaitIdle();
        assertThat(state(txn)).isEqualTo(TxnState.State.COMMITTED);
        assertThat(h.service.retryFailedWork()).isZero();
    }

    @Test
    void abortDeletesTheTransactionSegments() {
        h.createStream("sc", "s", 2);
        UUID txn = uuid(create(LEASE));
        assertThat(abort(txn)).isEqualTo(TxnStatus.Status.SUCCESS);
        awaitIdle();
        assertThat(state(txn)).isEqualTo(TxnState.State.ABORTED);
        assertThat(h.admin.exists(txnSegment(0, 0, txn))).isFalse();
        assertThat(h.admin.exists(txnSegment(1, 0, txn))).isFalse();
        assertThat(abort(txn)).isEqualTo(TxnStatus.Status.SUCCESS);
        assertThat(commit(txn)).isEqualTo(TxnStatus.Status.FAILURE);
        assertThat(ping(txn, LEASE)).isEqualTo(PingTxnStatus.Status.ABORTED);
        assertThat(commit(UUID.randomUUID())).isEqualTo(TxnStatus.Status.FAILURE);
        assertThat(abort(UUID.randomUUID())).isEqualTo(TxnStatus.Status.FAILURE);

        UUID committed = uuid(create(LEASE));
        assertThat(commit(committed)).isEqualTo(TxnStatus.Status.SUCCESS);
        awaitIdle();
        assertThat(abort(committed)).isEqualTo(TxnStatus.Status.FAILURE);
    }

    @Test
    void pingRenewsTheLeaseWithinBounds() {
        h.createStream("sc", "s", 1);
        UUID txn = uuid(create(LEASE));
        assertThat(ping(txn, 600_001)).isEqualTo(PingTxnStatus.Status.LEASE_TOO_LARGE);
        assertThat(ping(UUID.randomUUID(), LEASE)).isEqualTo(PingTxnStatus.Status.UNKNOWN);

        h.clock.advance(Duration.ofMillis(8_000));
        assertThat(ping(txn, LEASE)).isEqualTo(PingTxnStatus.Status.OK);
        h.clock.advance(Duration.ofMillis(8_000));
        assertThat(h.service.expireLeases()).as("the ping moved the expiry").isZero();
        assertThat(state(txn)).isEqualTo(TxnState.State.OPEN);

        // a 10 s lease allows 1000 leases (10 000 s) of lifetime in all
        h.clock.advance(Duration.ofSeconds(10_000 - 16 - 5));
        assertThat(ping(txn, LEASE)).isEqualTo(PingTxnStatus.Status.MAX_EXECUTION_TIME_EXCEEDED);
    }

    @Test
    void expiredLeasesAreAbortedByTheTimer() {
        h.createStream("sc", "s", 1);
        UUID expiring = uuid(create(LEASE));
        UUID kept = uuid(create(LEASE));
        h.clock.advance(Duration.ofMillis(5_000));
        assertThat(ping(kept, 20_000)).isEqualTo(PingTxnStatus.Status.OK);
        h.clock.advance(Duration.ofMillis(4_999));
        assertThat(h.service.expireLeases()).isZero();
        h.clock.advance(Duration.ofMillis(1));
        assertThat(h.service.expireLeases()).isEqualTo(1);
        awaitIdle();
        assertThat(state(expiring)).isEqualTo(TxnState.State.ABORTED);
        assertThat(h.admin.exists(txnSegment(0, 0, expiring))).isFalse();
        assertThat(state(kept)).isEqualTo(TxnState.State.OPEN);
        assertThat(commit(expiring)).isEqualTo(TxnStatus.Status.FAILURE);
    }

    @Test
    void sealingAbortsOpenTransactionsAndFinishesCommittingOnes() throws Exception {
        h.createStream("sc", "s", 1);
        UUID open = uuid(create(LEASE));
        UUID committing = uuid(create(LEASE));
        CountDownLatch mergeStarted = h.admin.holdMerges();
        assertThat(commit(committing)).isEqualTo(TxnStatus.Status.SUCCESS);
        assertThat(mergeStarted.await(10, TimeUnit.SECONDS)).isTrue();
        ListenableFuture<io.sluice.controller.grpc.v1.UpdateStreamStatus> seal =
                ControllerServiceGrpc.newFutureStub(h.channel()).sealStream(info("sc", "s"));
        h.admin.openMerges();
        assertThat(seal.get(30, TimeUnit.SECONDS).getStatus()).isEqualTo(UpdateStreamStatus.Status.SUCCESS);
        awaitIdle();
        assertThat(state(committing)).isEqualTo(TxnState.State.COMMITTED);
        assertThat(state(open)).isEqualTo(TxnState.State.ABORTED);
        assertThat(h.admin.calls()).containsSubsequence("merge " + txnSegment(0, 0, committing) + " -> sc/s/0.#epoch.0",
                "seal sc/s/0.#epoch.0");
        assertThat(h.admin.exists(txnSegment(0, 0, open))).isFalse();
        assertThatThrownBy(() -> create(LEASE)).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
    }

    @Test
    void transactionOfASealedEpochRollsOverIntoCopies() {
        h.createStream("sc", "s", 1);
        UUID old = uuid(create(LEASE));
        h.admin.append(txnSegment(0, 0, old), 7);
        h.stub.scale(ScaleRequest.newBuilder().setStreamInfo(info("sc", "s")).addSealedSegments(0)
                .addNewKeyRanges(ScaleRequest.KeyRangeEntry.newBuilder().setStart(0).setEnd(0.5))
                .addNewKeyRanges(ScaleRequest.KeyRangeEntry.newBuilder().setStart(0.5).setEnd(1)).build());
        assertThat(commit(old)).isEqualTo(TxnStatus.Status.SUCCESS);
        awaitIdle();

        assertThat(state(old)).isEqualTo(TxnState.State.COMMITTED);
        // epoch 2 copies epoch 0 and receives the transaction; epoch 3 copies epoch 1 and is active
        assertThat(h.admin.calls("merge ")).containsExactly("merge " + txnSegment(0, 0, old) + " -> sc/s/0.#epoch.2");
        assertThat(h.admin.length("sc/s/0.#epoch.2")).isEqualTo(7);
        assertThat(h.admin.sealed("sc/s/0.#epoch.2")).isTrue();
        assertThat(h.admin.sealed("sc/s/1.#epoch.1")).isTrue();
        assertThat(h.admin.sealed("sc/s/2.#epoch.1")).isTrue();
        assertThat(h.currentSegmentIds("sc", "s")).containsExactly(id(1, 3), id(2, 3));
        Map<Long, List<Long>> afterActive = successors(id(1, 1));
        assertThat(afterActive).containsExactly(Map.entry(id(0, 2), List.of(id(1, 1), id(2, 1))));
        assertThat(successors(id(0, 2))).containsExactly(Map.entry(id(1, 3), List.of(id(0, 2))),
                Map.entry(id(2, 3), List.of(id(0, 2))));

        // a new transaction refers to epoch 1, which epoch 3 copies, and commits straight into epoch 3
        UUID fresh = uuid(create(LEASE));
        assertThat(fresh.getMostSignificantBits() >> 32).isEqualTo(1);
        assertThat(commit(fresh)).isEqualTo(TxnStatus.Status.SUCCESS);
        awaitIdle();
        assertThat(h.admin.calls("merge ")).contains("merge " + txnSegment(1, 1, fresh) + " -> sc/s/1.#epoch.3",
                "merge " + txnSegment(2, 1, fresh) + " -> sc/s/2.#epoch.3");
        assertThat(h.currentSegmentIds("sc", "s")).containsExactly(id(1, 3), id(2, 3));
    }

    private Map<Long, List<Long>> successors(long segment) {
        java.util.TreeMap<Long, List<Long>> m = new java.util.TreeMap<>();
        h.stub.getSegmentsImmediatelyFollowing(segmentId("sc", "s", segment)).getSegmentsList()
                .forEach(e -> m.put(e.getSegment().getSegmentId().getSegmentId(), e.getValueList()));
        return m;
    }

    private void awaitIdle() {
        try {
            h.awaitIdle();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
