package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Future;

import io.sluice.batch.BatchClient;
import io.sluice.batch.SegmentIterator;
import io.sluice.batch.SegmentRange;
import io.sluice.errors.IncompatibleServerException;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.Serializers;
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

    private static String event(int i) {
        return String.format("e-%05d", i);
    }

    private static void write(ScopedStream s, int from, int to) {
        try (EventStreamWriter<String> w = real.client.newWriter(s.scope(), s.name(), Serializers.utf8())) {
            for (int i = from; i < to; i++) {
                w.write("key-" + (i % 7), event(i));
            }
            w.flush();
        }
    }

    private static StreamCut tail(ScopedStream s) {
        return real.client.streamManager().streamInfo(s.scope(), s.name()).tail();
    }

    private static List<String> readParallel(BatchClient batch, List<SegmentRange> ranges) throws Exception {
        List<Future<List<String>>> futures = new ArrayList<>();
        for (SegmentRange r : ranges) {
            futures.add(real.threads.submit(() -> {
                List<String> out = new ArrayList<>();
                try (SegmentIterator<String> it = batch.readSegment(r, Serializers.utf8())) {
                    while (it.hasNext()) {
                        out.add(it.next());
                    }
                    assertThat(it.offset()).isEqualTo(r.endOffset());
                }
                return out;
            }));
        }
        List<String> all = new ArrayList<>();
        for (Future<List<String>> f : futures) {
            all.addAll(f.get());
        }
        Collections.sort(all);
        return all;
    }

    private static List<String> events(int from, int to) {
        List<String> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(event(i));
        }
        return out;
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
