package io.sluice.server.controller;

import static io.sluice.server.controller.ControllerHarness.cut;
import static io.sluice.server.controller.ControllerHarness.fixed;
import static io.sluice.server.controller.ControllerHarness.info;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.controller.grpc.v1.CreateStreamStatus;
import io.sluice.controller.grpc.v1.RemoveWriterRequest;
import io.sluice.controller.grpc.v1.StreamCut;
import io.sluice.controller.grpc.v1.TimestampFromWriter;
import io.sluice.controller.grpc.v1.TimestampResponse;
import io.sluice.wire.EventFrames;
import io.sluice.wire.Watermark;
import io.sluice.wire.Watermark.SegmentWithRange;

/** The embedded controller's periodic watermarking, pass by pass (timer off; the test calls each pass). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WatermarksTest {
    private static final String MARK = "sc/_MARKs/0.#epoch.0";
    private static final SegmentWithRange S0 = new SegmentWithRange(0, 0.0, 0.5);
    private static final SegmentWithRange S1 = new SegmentWithRange(1, 0.5, 1.0);
    private ControllerHarness h;

    @BeforeEach
    void start() {
        h = new ControllerHarness();
        h.createScope("sc");
    }

    @AfterEach
    void stop() {
        h.close();
    }

    private void createStream(long aggregationTimeoutMillis) {
        assertThat(h.stub.createStream(fixed("sc", "s", 2).toBuilder()
                .setTimestampAggregationTimeout(aggregationTimeoutMillis).build()).getStatus())
                .isEqualTo(CreateStreamStatus.Status.SUCCESS);
    }

    private TimestampResponse.Status note(String writer, long time, Object... idOffsetPairs) {
        StreamCut position = StreamCut.newBuilder().setStreamInfo(info("sc", "s")).putAllCut(cut(idOffsetPairs))
                .build();
        return h.stub.noteTimestampFromWriter(TimestampFromWriter.newBuilder().setWriter(writer).setTimestamp(time)
                .setPosition(position).build()).getResult();
    }

    /** @return every watermark in the mark segment, decoded */
    private List<Watermark> marks() {
        ByteBuffer all = h.admin.read(MARK, 0, Integer.MAX_VALUE);
        List<Watermark> out = new ArrayList<>();
        int used = EventFrames.forEach(all, e -> out.add(Watermark.decode(e.slice())));
        assertThat(used).as("whole events only").isEqualTo(all.remaining());
        return out;
    }

    @Test
    void marksOfAllActiveWritersGiveOneWatermark() {
        createStream(60_000);
        assertThat(h.service.computeWatermarks()).as("no marks, no watermark").isZero();
        assertThat(note("a", 100, 0, 10, 1, 20)).isEqualTo(TimestampResponse.Status.SUCCESS);
        assertThat(note("b", 150, 0, 30)).isEqualTo(TimestampResponse.Status.SUCCESS);

        assertThat(h.service.computeWatermarks()).isEqualTo(1);
        assertThat(marks()).containsExactly(new Watermark(100, 150, Map.of(S0, 30L, S1, 20L)));

        // "a" is now behind the watermark: until it notes again (or times out) nothing more is written
        assertThat(note("b", 200, 0, 40)).isEqualTo(TimestampResponse.Status.SUCCESS);
        assertThat(h.service.computeWatermarks()).isZero();
        assertThat(note("a", 180, 0, 35, 1, 25)).isEqualTo(TimestampResponse.Status.SUCCESS);
        assertThat(h.service.computeWatermarks()).isEqualTo(1);
        assertThat(marks()).hasSize(2).last().isEqualTo(new Watermark(180, 200, Map.of(S0, 40L, S1, 25L)));
    }

    @Test
    void writersThatFallBehindTimeOutAndShutDownWritersStopCounting() {
        createStream(5_000);
        note("a", 100, 0, 10, 1, 10);
        note("b", 100, 0, 10, 1, 10);
        assertThat(h.service.computeWatermarks()).isEqualTo(1);
        note("b", 300, 0, 50, 1, 60);
        assertThat(h.service.computeWatermarks()).as("a is behind, not yet timed out").isZero();
        h.clock.advance(Duration.ofSeconds(5));
        assertThat(h.service.computeWatermarks()).as("a timed out: b alone").isEqualTo(1);
        assertThat(marks()).last().isEqualTo(new Watermark(300, 300, Map.of(S0, 50L, S1, 60L)));
        // a's mark is gone: its old time is accepted again as a new writer's
        assertThat(note("a", 50, 0, 1, 1, 1)).isEqualTo(TimestampResponse.Status.SUCCESS);

        // a shut-down writer behind the watermark is dropped at once, without waiting for the timeout
        h.stub.removeWriter(RemoveWriterRequest.newBuilder().setWriter("a").setStream(info("sc", "s")).build());
        note("b", 400, 0, 70, 1, 70);
        assertThat(h.service.computeWatermarks()).isEqualTo(1);
        assertThat(marks()).last().isEqualTo(new Watermark(400, 400, Map.of(S0, 70L, S1, 70L)));
    }

    @Test
    void aShutDownWriterStillCountsWhileItIsAheadOfTheWatermark() {
        createStream(0);
        note("a", 100, 0, 10, 1, 10);
        h.stub.removeWriter(RemoveWriterRequest.newBuilder().setWriter("a").setStream(info("sc", "s")).build());
        assertThat(h.service.computeWatermarks()).isEqualTo(1);
        assertThat(marks()).containsExactly(new Watermark(100, 100, Map.of(S0, 10L, S1, 10L)));
        assertThat(h.service.computeWatermarks()).as("then its mark is dropped").isZero();
        assertThat(note("a", 1, 0, 1, 1, 1)).as("a fresh mark").isEqualTo(TimestampResponse.Status.SUCCESS);
    }

    @Test
    void aPositionThatCoversPartOfTheKeySpaceIsCompletedWithTheEpochsSegments() {
        createStream(60_000);
        note("a", 100, 1, 20);
        assertThat(h.service.computeWatermarks()).isEqualTo(1);
        assertThat(marks()).containsExactly(new Watermark(100, 100, Map.of(S1, 20L, S0, 0L)));
    }

    @Test
    void theMarkAttributeIsWhereTheLastWatermarkStartsAsPravegaKeepsIt() {
        createStream(60_000);
        List<Long> starts = new ArrayList<>();
        for (long t = 100; t <= 300; t += 100) {
            starts.add(h.admin.length(MARK));
            note("a", t, 0, t, 1, t);
            assertThat(h.service.computeWatermarks()).isEqualTo(1);
            // set to the oldest revision by the first pass; then the start of the newest watermark
            assertThat(h.admin.attribute(MARK, Watermarks.MARK_ATTRIBUTE)).isEqualTo(t == 100 ? 0 : starts.getLast());
        }
        assertThat(marks()).hasSize(3);
    }

    @Test
    void afterARestartThePreviousWatermarkIsReadBackFromTheSegment() throws InterruptedException {
        createStream(60_000);
        for (long t = 100; t <= 300; t += 100) {
            note("a", t, 0, t, 1, t);
            assertThat(h.service.computeWatermarks()).isEqualTo(1);
        }
        h.close();
        h = ControllerHarness.restart(h);
        // the last watermark (300, read from the mark attribute on) is known: a writer at 300 is behind it
        assertThat(h.service.computeWatermarks()).as("the writer has not advanced past the stored watermark")
                .isZero();
        note("a", 301, 0, 301, 1, 300);
        assertThat(h.service.computeWatermarks()).isEqualTo(1);
        assertThat(marks()).hasSize(4).last().isEqualTo(new Watermark(301, 301, Map.of(S0, 301L, S1, 300L)));
    }
}
