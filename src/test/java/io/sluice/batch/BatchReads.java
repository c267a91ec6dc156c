package io.sluice.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

import io.sluice.client.SluiceClient;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;

/** Test helpers for batch reads, shared by the embedded and the compat tests: numbered events, parallel reads. */
public final class BatchReads {
    /** {@code e-00000}: 7 bytes, 15 framed. */
    public static final int FRAMED = 15;

    private BatchReads() {
    }

    /** @return event number {@code i} */
    public static String event(int i) {
        return String.format("e-%05d", i);
    }

    /** @return events {@code from} (inclusive) to {@code to} (exclusive), sorted */
    public static List<String> events(int from, int to) {
        List<String> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(event(i));
        }
        return out;
    }

    /** Writes events {@code from..to} over seven routing keys and flushes. */
    public static void write(SluiceClient client, ScopedStream stream, int from, int to) {
        try (EventStreamWriter<String> w = client.newWriter(stream.scope(), stream.name(), Serializers.utf8())) {
            for (int i = from; i < to; i++) {
                w.write("key-" + (i % 7), event(i));
            }
            w.flush();
        }
    }

    /** Reads one range to its end and checks that the iterator stands exactly there. */
    public static List<String> readAll(BatchClient batch, SegmentRange range) {
        List<String> out = new ArrayList<>();
        try (SegmentIterator<String> it = batch.readSegment(range, Serializers.utf8())) {
            while (it.hasNext()) {
                out.add(it.next());
            }
            assertThat(it.offset()).as("offset at the end of " + range).isEqualTo(range.endOffset());
        }
        return out;
    }

    /** Reads every range on a thread of {@code threads} of its own; @return all events, sorted */
    public static List<String> readParallel(BatchClient batch, List<SegmentRange> ranges, ExecutorService threads)
            throws Exception {
        List<Future<List<String>>> futures = new ArrayList<>();
        for (SegmentRange r : ranges) {
            futures.add(threads.submit(() -> readAll(batch, r)));
        }
        List<String> all = new ArrayList<>();
        for (Future<List<String>> f : futures) {
            all.addAll(f.get());
        }
        Collections.sort(all);
        return all;
    }
}
