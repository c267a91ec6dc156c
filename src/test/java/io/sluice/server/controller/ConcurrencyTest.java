package io.sluice.server.controller;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.common.Threads;
import io.sluice.controller.grpc.v1.CreateStreamStatus;
import io.sluice.controller.grpc.v1.CreateTxnRequest;
import io.sluice.controller.grpc.v1.CreateTxnResponse;
import io.sluice.controller.grpc.v1.ScaleRequest;
import io.sluice.controller.grpc.v1.ScaleResponse;
import io.sluice.controller.grpc.v1.TxnRequest;
import io.sluice.controller.grpc.v1.TxnState;
import io.sluice.controller.grpc.v1.TxnStatus;

import static io.sluice.server.controller.ControllerHarness.fixed;
import static io.sluice.server.controller.ControllerHarness.info;
import static io.sluice.server.controller.ControllerHarness.txnId;
import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConcurrencyTest {
    private static final int THREADS = 8;
    private ControllerHarness h;
    private ExecutorService pool;

    @BeforeEach
    void start() {
        h = new ControllerHarness();
        h.createScope("sc");
        pool = Threads.perTaskExecutor("concurrency-test-");
    }

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        h.close();
    }

    @Test
    void racingCreatesOfOneStreamMakeItOnce() throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<CreateStreamStatus.Status>> results = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            results.add(pool.submit(() -> {
                go.await();
                return h.stub.createStream(fixed("sc", "s", 3)).getStatus();
            }));
        }
        go.countDown();
        List<CreateStreamStatus.Status> statuses = new ArrayList<>();
        for (Future<CreateStreamStatus.Status> f : results) {
            statuses.add(f.get(30, TimeUnit.SECONDS));
        }
        assertThat(statuses).containsOnlyOnce(CreateStreamStatus.Status.SUCCESS)
                .filteredOn(s -> s != CreateStreamStatus.Status.SUCCESS)
                .containsOnly(CreateStreamStatus.Status.STREAM_EXISTS);
        assertThat(h.admin.calls("create sc/s/")).hasSize(3);
    }

    @Test
    void transactionsCommittedFromManyThreadsWhileTheStreamScalesAllLand() throws Exception {
        h.createStream("sc", "s", 2);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<List<UUID>>> writers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            writers.add(pool.submit(() -> {
                go.await();
                List<UUID> ids = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    CreateTxnResponse created = h.stub.createTransaction(CreateTxnRequest.newBuilder()
                            .setStreamInfo(info("sc", "s")).setLease(30_000).build());
                    UUID id = new UUID(created.getTxnId().getHighBits(), created.getTxnId().getLowBits());
                    TxnStatus.Status status = h.stub.commitTransaction(TxnRequest.newBuilder()
                            .setStreamInfo(info("sc", "s")).setTxnId(txnId(id)).build()).getStatus();
                    assertThat(status).isEqualTo(TxnStatus.Status.SUCCESS);
                    ids.add(id);
                }
                return ids;
            }));
        }
        Future<Integer> scaler = pool.submit(() -> {
            go.await();
            int scales = 0;
            int refused = 0;
            while (scales < 5) {
                // a rolling transaction may replace the active segments between the read and the scale: then
                // the scale is refused (precondition failed) and is tried again on the new segments
                var first = h.currentSegments("sc", "s").getFirst();
                ScaleResponse r = h.stub.scale(ScaleRequest.newBuilder().setStreamInfo(info("sc", "s"))
                        .addSealedSegments(first.getSegmentId().getSegmentId())
                        .addNewKeyRanges(ScaleRequest.KeyRangeEntry.newBuilder().setStart(first.getMinKey())
                                .setEnd(first.getMaxKey())).build());
                if (r.getStatus() == ScaleResponse.ScaleStreamStatus.STARTED) {
                    scales++;
                } else {
                    assertThat(r.getStatus()).isEqualTo(ScaleResponse.ScaleStreamStatus.PRECONDITION_FAILED);
                    assertThat(++refused).isLessThan(1000);
                }
            }
            return scales;
        });
        go.countDown();
        List<UUID> all = new ArrayList<>();
        for (Future<List<UUID>> w : writers) {
            all.addAll(w.get(30, TimeUnit.SECONDS));
        }
        assertThat(scaler.get(30, TimeUnit.SECONDS)).isEqualTo(5);
        h.awaitIdle();
        for (UUID id : all) {
            assertThat(h.stub.checkTransactionState(TxnRequest.newBuilder().setStreamInfo(info("sc", "s"))
                    .setTxnId(txnId(id)).build()).getState()).isEqualTo(TxnState.State.COMMITTED);
        }
        assertThat(all).hasSize(THREADS * 10).doesNotHaveDuplicates();
        // every transaction segment was merged (none left over), and nothing was merged twice
        assertThat(h.admin.segmentsStartingWith("sc/s/").stream().filter(n -> n.contains("#transaction."))).isEmpty();
        List<String> merges = h.admin.calls("merge ");
        assertThat(merges).doesNotHaveDuplicates().hasSizeGreaterThanOrEqualTo(THREADS * 10);
    }
}
