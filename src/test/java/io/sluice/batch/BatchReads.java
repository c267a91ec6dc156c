package io.sluice.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

import io.sluice.client.SluiceClient;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamCut;
import io.sluice.stream.WriterConfig;

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

    /**
     * The events of the large-event tests: small events {@code "small-<i>"} and, at every third place, a large event
     * of {@code largeBytes} whose bytes follow from its place (xorshift64 seeded by it), {@code large} of them.
     *
     * @return the events in the order they are written
     */
    public static List<byte[]> largeAmongSmall(int large, int largeBytes) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; out.size() < 4 * large + 1; i++) {
            if (i % 4 == 2) {
                out.add(largeContent(i, largeBytes));
            } else {
                out.add(("small-" + i).getBytes(StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static byte[] largeContent(int index, int size) {
        byte[] b = new byte[size];
        long x = (index + 1) * 0x9E3779B97F4A7C15L;
        for (int i = 0; i < size; i++) {
            if ((i & 7) == 0) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
            b[i] = (byte) (x >>> (8 * (i & 7)));
        }
        return b;
    }

    /** Writes {@code events} with large events enabled and one routing key (so they stay in order), and flushes. */
    public static void writeLarge(SluiceClient client, ScopedStream stream, List<byte[]> events) {
        try (EventStreamWriter<byte[]> w = client.newWriter(stream.scope(), stream.name(), Serializers.bytes(),
                WriterConfig.DEFAULT.withLargeEvents(true))) {
            for (byte[] e : events) {
                w.write("large", e);
            }
            w.flush();
        }
    }

    /**
     * Reads the one range of {@code stream} (head to tail) through a {@link SegmentIterator} and checks that it gives
     * exactly {@code expected}, whole and in order.
     */
    public static void assertReadsLarge(BatchClient batch, ScopedStream stream, List<byte[]> expected) {
        List<SegmentRange> ranges = batch.segments(stream, StreamCut.UNBOUNDED, StreamCut.UNBOUNDED);
        assertThat(ranges).hasSize(1);
        int i = 0;
        try (SegmentIterator<byte[]> it = batch.readSegment(ranges.get(0), Serializers.bytes())) {
            while (it.hasNext()) {
                byte[] e = it.next();
                assertThat(i).as("events read").isLessThan(expected.size());
                assertThat(e.length).as("length of event %d", i).isEqualTo(expected.get(i).length);
                assertThat(Arrays.equals(e, expected.get(i))).as("bytes of event %d", i).isTrue();
                i++;
            }
            assertThat(it.offset()).isEqualTo(ranges.get(0).endOffset());
        }
        assertThat(i).as("events read").isEqualTo(expected.size());
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
