package io.sluice.server.controller;

import static io.sluice.server.controller.ControllerHarness.id;
import static io.sluice.server.controller.ControllerHarness.info;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.controller.grpc.v1.CreateStreamStatus;
import io.sluice.controller.grpc.v1.ScalingPolicy;
import io.sluice.controller.grpc.v1.SegmentRange;
import io.sluice.controller.grpc.v1.StreamConfig;

/** The controller's side of auto-scaling: how scale requests become scales (Pravega's AutoScaleTask). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AutoScalerTest {
    private static final Duration WINDOW = Duration.ofSeconds(10);

    private ControllerHarness h;
    private AutoScaler scaler;

    @BeforeEach
    void start() {
        h = new ControllerHarness();
        h.createScope("sc");
        scaler = (AutoScaler) h.service.autoScaler(WINDOW, h.clock::millis);
    }

    @AfterEach
    void stop() {
        scaler.close();
        h.close();
    }

    private void createStream(String stream, ScalingPolicy.ScalingPolicyType type, int factor, int min) {
        StreamConfig config = StreamConfig.newBuilder().setStreamInfo(info("sc", stream))
                .setScalingPolicy(ScalingPolicy.newBuilder().setScaleType(type).setTargetRate(10)
                        .setScaleFactor(factor).setMinNumSegments(min))
                .build();
        assertThat(h.stub.createStream(config).getStatus()).isEqualTo(CreateStreamStatus.Status.SUCCESS);
    }

    private List<String> ranges(String stream) {
        return h.currentSegments("sc", stream).stream()
                .map(r -> r.getSegmentId().getSegmentId() + "[" + r.getMinKey() + "," + r.getMaxKey() + ")").toList();
    }

    private void up(String stream, long segment, int splits) {
        scaler.handle(new AutoScaler.Request(Names.segmentName("sc", stream, segment), true, splits, false,
                h.clock.millis()));
    }

    private void down(String stream, long segment, boolean silent) {
        scaler.handle(new AutoScaler.Request(Names.segmentName("sc", stream, segment), false, 0, silent,
                h.clock.millis()));
    }

    @Test
    void aHotSegmentIsSplitIntoAsManyAsItsTrafficAsksForUpToTheScaleFactor() {
        createStream("s", ScalingPolicy.ScalingPolicyType.BY_RATE_IN_EVENTS_PER_SEC, 3, 1);
        up("s", 0, 7);
        assertThat(h.currentSegments("sc", "s")).hasSize(3);
        List<SegmentRange> after = h.currentSegments("sc", "s");
        assertThat(after.get(0).getMinKey()).isEqualTo(0.0);
        assertThat(after.get(2).getMaxKey()).isEqualTo(1.0);
        assertThat(after.get(0).getMaxKey()).isEqualTo(after.get(1).getMinKey());
        assertThat(after.get(1).getMaxKey()).isEqualTo(after.get(2).getMinKey());
        // a request for a segment no longer active (already split) does nothing
        up("s", 0, 7);
        assertThat(h.currentSegments("sc", "s")).hasSize(3);
        // fewer than two splits asked for: two
        up("s", after.get(1).getSegmentId().getSegmentId(), 1);
        assertThat(h.currentSegments("sc", "s")).hasSize(4);
    }

    @Test
    void aColdSegmentMergesOnlyWithAColdNeighbourAndNeverBelowTheMinimum() {
        createStream("s", ScalingPolicy.ScalingPolicyType.BY_RATE_IN_KBYTES_PER_SEC, 2, 1);
        up("s", 0, 2);
        up("s", id(1, 1), 2);
        // [0, 0.25) [0.25, 0.5) [0.5, 1)
        assertThat(ranges("s")).containsExactly(id(3, 2) + "[0.0,0.25)", id(4, 2) + "[0.25,0.5)",
                id(2, 1) + "[0.5,1.0)");
        down("s", id(3, 2), false);
        assertThat(h.currentSegments("sc", "s")).as("no cold neighbour yet").hasSize(3);
        // not a neighbour of [0, 0.25): no merge
        down("s", id(2, 1), false);
        assertThat(h.currentSegments("sc", "s")).hasSize(3);
        // the middle one is cold too: all three are cold neighbours of it and two may go
        down("s", id(4, 2), false);
        assertThat(ranges("s")).containsExactly(id(5, 3) + "[0.0,1.0)");
        // at the minimum: marked, nothing merged
        down("s", id(5, 3), true);
        assertThat(h.currentSegments("sc", "s")).hasSize(1);
    }

    @Test
    void whenTheStreamMayLoseOnlyOneSegmentTwoOfThreeColdNeighboursMerge() {
        createStream("s", ScalingPolicy.ScalingPolicyType.BY_RATE_IN_EVENTS_PER_SEC, 2, 3);
        up("s", 0, 2);
        List<Long> ids = h.currentSegmentIds("sc", "s");
        // sorted by key: [0, 1/6) [1/6, 1/3) [1/3, 2/3) [2/3, 1)
        assertThat(ids).hasSize(4);
        down("s", ids.get(0), true);
        down("s", ids.get(2), true);
        down("s", ids.get(1), false);
        // 4 segments, minimum 3: of the three cold neighbours only the first two merge
        List<SegmentRange> after = h.currentSegments("sc", "s");
        assertThat(after).hasSize(3);
        assertThat(after.get(0).getMinKey()).isEqualTo(0.0);
        assertThat(after.get(0).getMaxKey()).isEqualTo(1.0 / 3);
        assertThat(after.get(1).getSegmentId().getSegmentId()).isEqualTo(ids.get(2));
    }

    @Test
    void coldMarksExpireAfterTheWindowUnlessSilent() {
        createStream("s", ScalingPolicy.ScalingPolicyType.BY_RATE_IN_EVENTS_PER_SEC, 2, 1);
        up("s", 0, 2);
        down("s", id(1, 1), false);
        h.clock.advance(WINDOW.plusMillis(1));
        down("s", id(2, 1), false);
        assertThat(h.currentSegments("sc", "s")).as("the first mark expired").hasSize(2);
        h.clock.advance(WINDOW.plusMillis(1));
        down("s", id(1, 1), true);
        assertThat(h.currentSegments("sc", "s")).as("the second mark expired").hasSize(2);
        h.clock.advance(WINDOW.multipliedBy(100));
        down("s", id(2, 1), false);
        assertThat(h.currentSegments("sc", "s")).as("a silent mark does not expire").hasSize(1);
    }

    @Test
    void expiredRequestsAndFixedStreamsAreIgnored() {
        createStream("s", ScalingPolicy.ScalingPolicyType.BY_RATE_IN_EVENTS_PER_SEC, 2, 1);
        long old = h.clock.millis();
        h.clock.advance(WINDOW);
        scaler.handle(new AutoScaler.Request(Names.segmentName("sc", "s", 0), true, 2, false, old));
        assertThat(h.currentSegments("sc", "s")).as("expired").hasSize(1);
        h.createStream("sc", "f", 1);
        up("f", 0, 2);
        assertThat(h.currentSegments("sc", "f")).as("fixed").hasSize(1);
        assertThat(AutoScaler.SegmentName.parse("sc/s/0.#epoch.0#transaction.00")).isNull();
        assertThat(AutoScaler.SegmentName.parse("sc/s/3.#epoch.2")).isEqualTo(new AutoScaler.SegmentName("sc", "s",
                id(3, 2)));
    }

    @Test
    void requestsFromTheSegmentStoreAreCarriedOutInTheBackground() {
        createStream("s", ScalingPolicy.ScalingPolicyType.BY_RATE_IN_EVENTS_PER_SEC, 2, 1);
        scaler.scaleUp(Names.segmentName("sc", "s", 0), 4, h.clock.millis());
        io.sluice.common.Await.until("the split", () -> h.currentSegments("sc", "s").size() == 2);
        scaler.scaleDown(Names.segmentName("sc", "s", id(1, 1)), true, h.clock.millis());
        scaler.scaleDown(Names.segmentName("sc", "s", id(2, 1)), true, h.clock.millis());
        io.sluice.common.Await.until("the merge", () -> h.currentSegments("sc", "s").size() == 1);
    }
}
