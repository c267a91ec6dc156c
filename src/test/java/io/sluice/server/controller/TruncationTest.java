package io.sluice.server.controller;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sluice.controller.grpc.v1.GetSegmentsRequest;
import io.sluice.controller.grpc.v1.ScaleRequest;
import io.sluice.controller.grpc.v1.SegmentId;
import io.sluice.controller.grpc.v1.StreamCut;
import io.sluice.controller.grpc.v1.StreamCutRange;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;

import static io.sluice.server.controller.ControllerHarness.cut;
import static io.sluice.server.controller.ControllerHarness.id;
import static io.sluice.server.controller.ControllerHarness.info;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TruncationTest {
    private ControllerHarness h;

    @BeforeEach
    void start() {
        h = new ControllerHarness();
        h.createScope("sc");
        // two segments, then segment 0 split into 2 and 3: epochs 0 {0, 1}, 1 {2, 3, 1}
        h.createStream("sc", "s", 2);
        h.admin.append("sc/s/0.#epoch.0", 100);
        h.admin.append("sc/s/1.#epoch.0", 200);
        h.stub.scale(ScaleRequest.newBuilder().setStreamInfo(info("sc", "s")).addSealedSegments(0)
                .addNewKeyRanges(ScaleRequest.KeyRangeEntry.newBuilder().setStart(0).setEnd(0.25))
                .addNewKeyRanges(ScaleRequest.KeyRangeEntry.newBuilder().setStart(0.25).setEnd(0.5)).build());
        h.admin.append("sc/s/2.#epoch.1", 30);
        h.admin.append("sc/s/3.#epoch.1", 40);
    }

    @AfterEach
    void stop() throws InterruptedException {
        h.close();
    }

    private StreamCut streamCut(Map<Long, Long> cut) {
        return StreamCut.newBuilder().setStreamInfo(info("sc", "s")).putAllCut(cut).build();
    }

    private Map<Long, Long> head() {
        Map<Long, Long> m = new TreeMap<>();
        h.stub.getSegments(GetSegmentsRequest.newBuilder().setStreamInfo(info("sc", "s")).setTimestamp(0).build())
                .getSegmentsList().forEach(l -> m.put(l.getSegmentId().getSegmentId(), l.getOffset()));
        return m;
    }

    private List<Long> between(Map<Long, Long> from, Map<Long, Long> to) {
        return h.stub.getSegmentsBetween(StreamCutRange.newBuilder().setStreamInfo(info("sc", "s")).putAllFrom(from)
                .putAllTo(to).build()).getSegmentsList().stream().map(SegmentId::getSegmentId).sorted().toList();
    }

    @Test
    void streamCutValidity() {
        assertThat(h.stub.isStreamCutValid(streamCut(cut(0, 10, 1, 20))).getResponse()).isTrue();
        assertThat(h.stub.isStreamCutValid(streamCut(cut(id(2, 1), 5, id(3, 1), 5, 1, 20))).getResponse()).isTrue();
        // mixes a segment with its successor
        assertThat(h.stub.isStreamCutValid(streamCut(cut(0, 10, id(2, 1), 5, 1, 20))).getResponse()).isFalse();
        // a hole in the key space
        assertThat(h.stub.isStreamCutValid(streamCut(cut(1, 20))).getResponse()).isFalse();
        assertThat(h.stub.isStreamCutValid(streamCut(cut(id(2, 1), 5, 1, 20))).getResponse()).isFalse();
        // unknown segment, empty cut
        assertThat(h.stub.isStreamCutValid(streamCut(cut(0, 10, 9, 20))).getResponse()).isFalse();
        assertThat(h.stub.isStreamCutValid(streamCut(Map.of())).getResponse()).isFalse();
    }

    @Test
    void truncationMovesTheHeadTruncatesCutSegmentsAndDeletesEarlierOnes() {
        assertThat(head()).containsExactly(Map.entry(0L, 0L), Map.entry(1L, 0L));

        assertThat(h.stub.truncateStream(streamCut(cut(0, 60, 1, 50))).getStatus())
                .isEqualTo(UpdateStreamStatus.Status.SUCCESS);
        assertThat(head()).containsExactly(Map.entry(0L, 60L), Map.entry(1L, 50L));
        assertThat(h.admin.startOffset("sc/s/0.#epoch.0")).isEqualTo(60);
        assertThat(h.admin.startOffset("sc/s/1.#epoch.0")).isEqualTo(50);

        Map<Long, Long> later = cut(id(2, 1), 10, id(3, 1), 0, 1, 150);
        assertThat(h.stub.truncateStream(streamCut(later)).getStatus()).isEqualTo(UpdateStreamStatus.Status.SUCCESS);
        assertThat(head()).containsExactlyInAnyOrderEntriesOf(later);
        assertThat(h.admin.exists("sc/s/0.#epoch.0")).as("segment 0 lies entirely before the cut").isFalse();
        assertThat(h.admin.startOffset("sc/s/2.#epoch.1")).isEqualTo(10);
        assertThat(h.admin.startOffset("sc/s/1.#epoch.0")).isEqualTo(150);
        assertThat(h.admin.calls("truncate sc/s/3.")).as("offset 0 needs no truncation").isEmpty();

        // behind the current truncation point, invalid, and beyond a segment's end: failure, nothing changes
        assertThat(h.stub.truncateStream(streamCut(cut(id(2, 1), 10, id(3, 1), 0, 1, 100))).getStatus())
                .isEqualTo(UpdateStreamStatus.Status.FAILURE);
        assertThat(h.stub.truncateStream(streamCut(cut(1, 160))).getStatus())
                .isEqualTo(UpdateStreamStatus.Status.FAILURE);
        assertThat(h.stub.truncateStream(streamCut(cut(id(2, 1), 10, id(3, 1), 999, 1, 160))).getStatus())
                .isEqualTo(UpdateStreamStatus.Status.FAILURE);
        assertThat(head()).containsExactlyInAnyOrderEntriesOf(later);

        assertThat(h.stub.sealStream(info("sc", "s")).getStatus()).isEqualTo(UpdateStreamStatus.Status.SUCCESS);
        assertThat(h.stub.truncateStream(streamCut(later)).getStatus())
                .isEqualTo(UpdateStreamStatus.Status.STREAM_SEALED);
        assertThat(h.stub.truncateStream(StreamCut.newBuilder().setStreamInfo(info("sc", "nope")).build())
                .getStatus()).isEqualTo(UpdateStreamStatus.Status.STREAM_NOT_FOUND);
    }

    @Test
    void segmentsBetweenStreamCuts() {
        assertThat(between(cut(0, 0, 1, 0), Map.of())).containsExactly(0L, 1L, id(2, 1), id(3, 1));
        assertThat(between(Map.of(), cut(0, 50, 1, 50))).containsExactly(0L, 1L);
        assertThat(between(cut(id(2, 1), 0, id(3, 1), 0, 1, 0), Map.of())).containsExactly(1L, id(2, 1), id(3, 1));
        assertThat(between(cut(0, 10, 1, 10), cut(id(2, 1), 0, id(3, 1), 0, 1, 10)))
                .containsExactly(0L, 1L, id(2, 1), id(3, 1));
        assertThatThrownBy(() -> between(Map.of(), Map.of())).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        assertThatThrownBy(() -> between(cut(id(2, 1), 0, id(3, 1), 0, 1, 10), cut(0, 10, 1, 10)))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    }
}
