package io.sluice.server.controller;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.controller.grpc.v1.CreateScopeStatus;
import io.sluice.controller.grpc.v1.CreateStreamStatus;
import io.sluice.controller.grpc.v1.ScaleResponse;
import io.sluice.controller.grpc.v1.SegmentRange;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;
import io.sluice.server.controller.ControllerEvent.KeyRange;

import static io.sluice.server.controller.ControllerHarness.fixed;
import static io.sluice.server.controller.ControllerHarness.id;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The parts of {@link ControllerCore} used directly, without the gRPC service, as new server code (an auto-scaler,
 * a retention task) does: what a part changes is what the facade answers, and the journal gets the same events in
 * the same order.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ControllerPartsTest {
    private final FakeSegmentAdmin admin = new FakeSegmentAdmin();
    private final InMemoryControllerStore store = new InMemoryControllerStore();
    private final SerialExecutors executors = new SerialExecutors();
    private ControllerCore core;

    @BeforeEach
    void start() {
        Journal journal = new Journal(store);
        assertThat(journal.recover()).isZero();
        ControllerSettings settings = ControllerSettings.defaults(ControllerHarness.SEGMENT_STORE,
                ControllerHarness.CONTROLLER);
        core = new ControllerCore(journal, executors, admin,
                new ControllerHarness.MutableClock(ControllerHarness.START), settings);
        assertThat(core.scopes().createScope("sc")).isEqualTo(CreateScopeStatus.Status.SUCCESS);
        assertThat(core.streams().createStream("sc", "s", fixed("sc", "s", 1)))
                .isEqualTo(CreateStreamStatus.Status.SUCCESS);
    }

    @AfterEach
    void stop() {
        assertThat(executors.close(Duration.ofSeconds(10))).isTrue();
    }

    @Test
    void scalingThroughThePartLogsTheScaleStepsInOrder() {
        int before = store.events().size();
        ScaleResponse response = core.scaling().scale("sc", "s", List.of(0L),
                List.of(new KeyRange(0.0, 0.5), new KeyRange(0.5, 1.0)), 1L);

        assertThat(response.getStatus()).isEqualTo(ScaleResponse.ScaleStreamStatus.STARTED);
        assertThat(core.currentSegments("sc", "s")).extracting(r -> r.getSegmentId().getSegmentId())
                .containsExactly(id(1, 1), id(2, 1));
        assertThat(admin.sealed(Names.segmentName("sc", "s", 0))).isTrue();
        List<ControllerEvent> logged = store.events();
        assertThat(logged.subList(before, logged.size())).extracting(e -> e.getClass().getSimpleName())
                .containsExactly("ScaleStarted", "ScaleEpochCreated", "ScaleCompleted");
        assertThat(core.successors("sc", "s", 0).keySet()).extracting(SegmentRange::getSegmentId)
                .extracting(i -> i.getSegmentId()).containsExactlyInAnyOrder(id(1, 1), id(2, 1));
    }

    @Test
    void truncationThroughThePartMovesTheHeadTheFacadeReports() {
        admin.append(Names.segmentName("sc", "s", 0), 100);

        assertThat(core.truncation().truncateStream("sc", "s", Map.of(0L, 40L)))
                .isEqualTo(UpdateStreamStatus.Status.SUCCESS);

        assertThat(core.head("sc", "s")).containsExactly(Map.entry(0L, 40L));
        assertThat(admin.startOffset(Names.segmentName("sc", "s", 0))).isEqualTo(40);
        assertThat(core.truncation().truncateStream("sc", "s", Map.of(0L, 400L)))
                .as("an offset beyond the segment").isEqualTo(UpdateStreamStatus.Status.FAILURE);
        assertThat(core.truncation().head("sc", "s")).containsExactly(Map.entry(0L, 40L));
    }
}
