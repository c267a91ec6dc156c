package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static io.sluice.batch.BatchReads.events;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import io.sluice.batch.BatchClient;
import io.sluice.batch.BatchReads;
import io.sluice.batch.SegmentRange;
import io.sluice.errors.IncompatibleServerException;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.StreamCut;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The batch client against the real Pravega 0.13: the segments between cuts across a scale, every range read in
 * parallel on virtual threads, and {@code nextStreamCut}'s clear error (Pravega 0.13 speaks wire version 16, which
 * has no {@code LocateOffset}).
 */
@CompatTest
@Timeout(180)
class BatchClientCompatTest {
    @RegisterExtension
    static final RealPravegaScope real = new RealPravegaScope("compat-batch");

    private static void write(ScopedStream s, int from, int to) {
        BatchReads.write(real.client, s, from, to);
    }

    private static StreamCut tail(ScopedStream s) {
        return real.client.streamManager().streamInfo(s.scope(), s.name()).tail();
    }

    private static List<String> readParallel(BatchClient batch, List<SegmentRange> ranges) throws Exception {
        return BatchReads.readParallel(batch, ranges, real.threads);
    }

    @Test
    void rangesBetweenCutsAcrossAScaleAreReadInParallel() throws Exception {
        ScopedStream s = real.createStream("scaled", 2);
        BatchClient batch = real.client.batchClient();
        write(s, 0, 100);
        StreamCut first = tail(s);
        write(s, 100, 200);
        List<Segment> old = real.client.streamManager().currentSegments(s.scope(), s.name()).stream()
                .map(r -> r.segment()).toList();
        real.client.streamManager().scaleStream(s.scope(), s.name(), old,
                List.of(new KeyRange(0.0, 0.25), new KeyRange(0.25, 0.5), new KeyRange(0.5, 1.0)));
        write(s, 200, 300);
        StreamCut second = tail(s);
        write(s, 300, 400);

        List<SegmentRange> between = batch.segments(s, first, second);
        assertThat(between).hasSize(5);
        assertThat(readParallel(batch, between)).isEqualTo(events(100, 300));
        assertThat(readParallel(batch, batch.segments(s, StreamCut.UNBOUNDED, first))).isEqualTo(events(0, 100));
        assertThat(readParallel(batch, batch.segments(s, second, StreamCut.UNBOUNDED))).isEqualTo(events(300, 400));
        assertThat(readParallel(batch, batch.segments(s, StreamCut.UNBOUNDED, StreamCut.UNBOUNDED)))
                .isEqualTo(events(0, 400));
    }

    @Test
    void nextStreamCutNamesTheWireVersionOfPravega013() {
        ScopedStream s = real.createStream("cuts", 1);
        write(s, 0, 10);
        StreamCut head = real.client.streamManager().streamInfo(s.scope(), s.name()).head();
        assertThatThrownBy(() -> real.client.batchClient().nextStreamCut(head, 100))
                .isInstanceOf(IncompatibleServerException.class)
                .hasMessageContaining("wire version 16").hasMessageContaining("LocateOffset");
    }
}
