package io.sluice.server.controller;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sluice.controller.grpc.v1.GetEpochSegmentsRequest;
import io.sluice.controller.grpc.v1.ScaleRequest;
import io.sluice.controller.grpc.v1.ScaleResponse;
import io.sluice.controller.grpc.v1.ScaleStatusRequest;
import io.sluice.controller.grpc.v1.ScaleStatusResponse;
import io.sluice.controller.grpc.v1.SegmentRange;
import io.sluice.controller.grpc.v1.SuccessorResponse;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;

import static io.sluice.server.controller.ControllerHarness.id;
import static io.sluice.server.controller.ControllerHarness.info;
import static io.sluice.server.controller.ControllerHarness.segmentId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ScalingTest {
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

    private ScaleResponse scale(List<Long> sealed, double... bounds) {
        ScaleRequest.Builder b = ScaleRequest.newBuilder().setStreamInfo(info("sc", "s")).addAllSealedSegments(sealed)
                .setScaleTimestamp(h.clock.millis());
        for (int i = 0; i < bounds.length; i += 2) {
            b.addNewKeyRanges(ScaleRequest.KeyRangeEntry.newBuilder().setStart(bounds[i]).setEnd(bounds[i + 1]));
        }
        return h.stub.scale(b.build());
    }

    private Map<Long, List<Long>> successors(long segment) {
        SuccessorResponse r = h.stub.getSegmentsImmediatelyFollowing(segmentId("sc", "s", segment));
        SuccessorResponse twin = h.stub.getSegmentsImmediatlyFollowing(segmentId("sc", "s", segment));
        assertThat(twin).isEqualTo(r);
        java.util.TreeMap<Long, List<Long>> m = new java.util.TreeMap<>();
        r.getSegmentsList().forEach(e -> m.put(e.getSegment().getSegmentId().getSegmentId(), e.getValueList()));
        return m;
    }

    private ScaleStatusResponse.ScaleStatus checkScale(int epoch) {
        return h.stub.checkScale(ScaleStatusRequest.newBuilder().setStreamInfo(info("sc", "s")).setEpoch(epoch)
                .build()).getStatus();
    }

    @Test
    void splitThenMergeWithSuccessorsPredecessorsAndEpochs() {
        h.createStream("sc", "s", 2);
        assertThat(successors(0)).isEmpty();

        // split segment 0 ([0, 0.5)) in two
        ScaleResponse split = scale(List.of(0L), 0.0, 0.25, 0.25, 0.5);
        assertThat(split.getStatus()).isEqualTo(ScaleResponse.ScaleStreamStatus.STARTED);
        assertThat(split.getEpoch()).isEqualTo(0);
        assertThat(split.getSegmentsList()).extracting(r -> r.getSegmentId().getSegmentId())
                .containsExactly(id(2, 1), id(3, 1));
        assertThat(checkScale(0)).isEqualTo(ScaleStatusResponse.ScaleStatus.SUCCESS);
        assertThat(checkScale(1)).isEqualTo(ScaleStatusResponse.ScaleStatus.IN_PROGRESS);
        assertThat(checkScale(5)).isEqualTo(ScaleStatusResponse.ScaleStatus.INVALID_INPUT);
        assertThat(h.currentSegmentIds("sc", "s")).containsExactly(id(2, 1), id(3, 1), id(1, 0));
        assertThat(h.admin.sealed("sc/s/0.#epoch.0")).isTrue();
        assertThat(h.admin.exists("sc/s/2.#epoch.1")).isTrue();
        assertThat(h.admin.exists("sc/s/3.#epoch.1")).isTrue();
        assertThat(successors(0)).containsExactly(Map.entry(id(2, 1), List.of(0L)), Map.entry(id(3, 1), List.of(0L)));
        assertThat(successors(1)).isEmpty();

        // merge segments 3 and 1 ([0.25, 1.0)) into one
        ScaleResponse merge = scale(List.of(id(3, 1), 1L), 0.25, 1.0);
        assertThat(merge.getStatus()).isEqualTo(ScaleResponse.ScaleStreamStatus.STARTED);
        assertThat(merge.getEpoch()).isEqualTo(1);
        assertThat(merge.getSegmentsList()).extracting(r -> r.getSegmentId().getSegmentId())
                .containsExactly(id(4, 2));
        assertThat(h.currentSegmentIds("sc", "s")).containsExactly(id(2, 1), id(4, 2));
        assertThat(successors(id(3, 1))).containsExactly(Map.entry(id(4, 2), List.of(id(3, 1), 1L)));
        assertThat(successors(1)).containsExactly(Map.entry(id(4, 2), List.of(id(3, 1), 1L)));
        assertThat(successors(id(2, 1))).isEmpty();

        // epochs
        List<SegmentRange> epoch1 = h.stub.getEpochSegments(GetEpochSegmentsRequest.newBuilder()
                .setStreamInfo(info("sc", "s")).setEpoch(1).build()).getSegmentRangesList();
        assertThat(epoch1).extracting(r -> r.getSegmentId().getSegmentId())
                .containsExactly(id(2, 1), id(3, 1), id(1, 0));
        assertThatThrownBy(() -> h.stub.getEpochSegments(GetEpochSegmentsRequest.newBuilder()
                .setStreamInfo(info("sc", "s")).setEpoch(7).build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
        assertThat(h.stub.isSegmentValid(segmentId("sc", "s", id(4, 2))).getResponse()).isTrue();
        assertThat(h.stub.isSegmentValid(segmentId("sc", "s", 1)).getResponse()).isFalse();
    }

    @Test
    void numbersKeepGrowingAfterAnyScale() {
        h.createStream("sc", "s", 1);
        scale(List.of(0L), 0.0, 0.5, 0.5, 1.0);
        scale(List.of(id(1, 1), id(2, 1)), 0.0, 1.0);
        scale(List.of(id(3, 2)), 0.0, 0.1, 0.1, 0.2, 0.2, 1.0);
        assertThat(h.currentSegmentIds("sc", "s")).containsExactly(id(4, 3), id(5, 3), id(6, 3));
        assertThat(successors(id(3, 2))).containsOnlyKeys(id(4, 3), id(5, 3), id(6, 3));
        assertThat(h.stub.getSegments(io.sluice.controller.grpc.v1.GetSegmentsRequest.newBuilder()
                .setStreamInfo(info("sc", "s")).build()).getSegmentsList())
                .extracting(l -> l.getSegmentId().getSegmentId(), l -> l.getOffset())
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0L, 0L));
    }

    @Test
    void invalidScalesAreRefusedLikePravega() {
        h.createStream("sc", "s", 2);
        // a segment that is not active: precondition failed
        assertThat(scale(List.of(id(9, 0)), 0.0, 0.5).getStatus())
                .isEqualTo(ScaleResponse.ScaleStreamStatus.PRECONDITION_FAILED);
        // ranges that do not cover exactly what is sealed: failure (Pravega's InputInvalidException)
        assertThat(scale(List.of(0L), 0.0, 0.4).getStatus()).isEqualTo(ScaleResponse.ScaleStreamStatus.FAILURE);
        assertThat(scale(List.of(0L), 0.0, 0.3, 0.2, 0.5).getStatus())
                .isEqualTo(ScaleResponse.ScaleStreamStatus.FAILURE);
        assertThat(scale(List.of(0L), 0.0, 0.6).getStatus()).isEqualTo(ScaleResponse.ScaleStreamStatus.FAILURE);
        assertThat(scale(List.of(0L), 0.25, 0.0).getStatus()).isEqualTo(ScaleResponse.ScaleStreamStatus.FAILURE);
        // fewer segments than the policy's minimum: precondition failed
        assertThat(scale(List.of(0L, 1L), 0.0, 1.0).getStatus())
                .isEqualTo(ScaleResponse.ScaleStreamStatus.PRECONDITION_FAILED);
        // nothing happened
        assertThat(h.currentSegmentIds("sc", "s")).containsExactly(0L, 1L);
        assertThat(h.admin.calls("seal ")).isEmpty();

        assertThat(h.stub.sealStream(info("sc", "s")).getStatus()).isEqualTo(UpdateStreamStatus.Status.SUCCESS);
        assertThat(scale(List.of(0L), 0.0, 0.5).getStatus()).isEqualTo(ScaleResponse.ScaleStreamStatus.FAILURE);
        assertThat(h.stub.scale(ScaleRequest.newBuilder().setStreamInfo(info("sc", "nope")).build()).getStatus())
                .isEqualTo(ScaleResponse.ScaleStreamStatus.FAILURE);
        assertThat(h.stub.checkScale(ScaleStatusRequest.newBuilder().setStreamInfo(info("sc", "nope")).build())
                .getStatus()).isEqualTo(ScaleStatusResponse.ScaleStatus.INVALID_INPUT);
    }

    @Test
    void sealedStreamHasNoSuccessors() {
        h.createStream("sc", "s", 1);
        assertThat(h.stub.sealStream(info("sc", "s")).getStatus()).isEqualTo(UpdateStreamStatus.Status.SUCCESS);
        assertThat(successors(0)).isEmpty();
    }
}
