package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.client.ClientInternals;
import io.sluice.common.Deadline;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.segment.RevisionedSegment;
import io.sluice.segment.SegmentCalls;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.WatermarkFollower;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.TimeWindow;
import io.sluice.wire.Watermark;

/**
 * Against the real Pravega 0.13 (watermarks every 10 s): the watermarks its controller writes for a Sluice writer's
 * noted times decode with Sluice's codec and re-encode to the same bytes, and Sluice's reader follows them.
 */
@CompatTest
@Timeout(180)
class WatermarkCompatTest {
    @RegisterExtension
    static final RealPravegaScope real = new RealPravegaScope("compat-wm");
    private static ConnectionPool pool;

    @BeforeAll
    static void connect() {
        pool = new ConnectionPool(new TcpConnectionFactory());
    }

    @AfterAll
    static void disconnect() {
        if (pool != null) {
            pool.close();
        }
    }

    private static void read(EventStreamReader<String> r, int n) {
        Deadline deadline = Deadline.after(Duration.ofSeconds(30));
        int read = 0;
        while (read < n) {
            assertThat(deadline.expired()).as("read %s of %s events in time", read, n).isFalse();
            EventRead<String> e = r.readNextEvent(Duration.ofMillis(200));
            if (e.event() != null) {
                read++;
            }
        }
    }

    @Test
    void theRealControllersWatermarksDecodeReencodeAndGiveTheWindow() {
        String scope = real.scope;
        ScopedStream stream = ScopedStream.of(scope, "s");
        real.streams.createStream(scope, "s", StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(2))
                .timestampAggregationTimeout(Duration.ofMinutes(5)).build());
        real.client.readerGroupManager(scope).createReaderGroup("g", ReaderGroupConfig.builder().stream(stream)
                .groupRefreshTimeMillis(100).disableAutomaticCheckpoints().build());
        try (EventStreamWriter<String> w = real.client.newWriter(scope, "s", Serializers.utf8());
             EventStreamReader<String> r = real.client.newReader(scope, "g", "r1", Serializers.utf8())) {
            for (int i = 0; i < 20; i++) {
                w.write("k" + i, "e" + i);
            }
            w.flush();
            w.noteTime(10_000);

            Segment mark = WatermarkFollower.markSegment(stream);
            try (RevisionedSegment log = new RevisionedSegment(mark.qualifiedName(), pool,
                    SegmentLocator.fixed(ClientInternals.controller(real.client).endpointFor(mark)), () -> null,
                    SegmentCalls.Config.DEFAULT)) {
                Deadline deadline = Deadline.after(Duration.ofSeconds(90));
                List<RevisionedSegment.Revisioned> marks = log.readFrom(log.startRevision());
                while (marks.isEmpty()) {
                    assertThat(deadline.expired()).as("the real controller wrote a watermark in time").isFalse();
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
                    marks = log.readFrom(log.startRevision());
                }
                ByteBuffer bytes = marks.getFirst().update();
                Watermark decoded = Watermark.decode(bytes);
                assertThat(decoded.lowerTimeBound()).isEqualTo(10_000);
                assertThat(decoded.upperTimeBound()).isEqualTo(10_000);
                assertThat(decoded.streamCut()).hasSize(2);
                assertThat(decoded.streamCut().values().stream().mapToLong(Long::longValue).sum())
                        .as("the writer's offsets: e0..e9 (8 + 2 bytes each), e10..e19 (8 + 3)")
                        .isEqualTo(10 * 10 + 10 * 11);
                assertThat(decoded.encode()).as("Sluice encodes the real controller's bytes exactly")
                        .isEqualTo(bytes);

                // a second watermark: the controller moves its mark attribute to where that one starts
                w.noteTime(20_000);
                while (marks.size() < 2) {
                    assertThat(deadline.expired()).as("the real controller wrote a second watermark in time")
                            .isFalse();
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
                    marks = log.readFrom(log.startRevision());
                }
                assertThat(Watermark.decode(marks.get(1).update()).lowerTimeBound()).isEqualTo(20_000);
                assertThat(log.mark()).as("RevisionStreamClientMark: the end of the first watermark")
                        .isEqualTo(marks.getFirst().revision());
            }

            assertThat(r.currentTimeWindow()).isEqualTo(new TimeWindow(null, 10_000L));
            read(r, 20);
            assertThat(r.currentTimeWindow()).as("both watermarks are at the end of what was read")
                    .isEqualTo(new TimeWindow(20_000L, null));
        }
    }
}
