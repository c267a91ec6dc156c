package io.sluice.compat.official;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import java.util.zip.CRC32;

import io.pravega.client.BatchClientFactory;
import io.pravega.client.ClientConfig;
import io.pravega.client.batch.SegmentIterator;
import io.pravega.client.batch.SegmentRange;
import io.pravega.client.stream.Serializer;
import io.pravega.client.stream.Stream;
import io.pravega.client.stream.StreamCut;

/**
 * Mode {@code batch-read}: the official {@code BatchClientFactory} reads every event of the EXISTING
 * {@code --scope}/{@code --stream} (nothing created or deleted): {@code getSegments(stream, UNBOUNDED, UNBOUNDED)},
 * then every range read by {@code readSegment} on a thread of its own, all at once. An event of up to
 * {@link #MAX_TEXT_BYTES} bytes is taken as a UTF-8 string, a longer one (a large event, say) as
 * {@code <N bytes, crc32 C>} ({@link #describe}). Reports the number of ranges ({@code ranges}), of events read
 * ({@code read}), every event sorted ({@code events}), each range's events in the order read ({@code by_range}, in
 * the order of the ranges; both lists up to {@link #MAX_LISTED} events), the CRC-32 of the sorted events joined by
 * newlines ({@code crc32}), and checks that each iterator ends at its range's end offset.
 */
final class BatchInteropPart {
    /** Events listed one by one in the report; more are only counted and checksummed. */
    static final int MAX_LISTED = 100_000;
    /** The longest event reported as its text. */
    static final int MAX_TEXT_BYTES = 1024;

    /** Reads an event as its text, or a longer one as its length and CRC-32, so large events cost no memory. */
    private static final Serializer<String> TEXT_OR_SUMMARY = new Serializer<>() {
        @Override
        public ByteBuffer serialize(String value) {
            throw new UnsupportedOperationException("batch-read only reads");
        }

        @Override
        public String deserialize(ByteBuffer event) {
            return describe(event);
        }
    };

    private BatchInteropPart() {
    }

    /** What one range gave. */
    record RangeRead<T>(SegmentRange range, List<T> events, long count, long bytes, long endOffset) {
    }

    static boolean run(Run run, Report report) {
        Options o = run.options;
        Part part = new Part("batch-read");
        report.put("batch-read", part);
        part.start();
        try {
            part.put("stream", o.scope() + "/" + o.stream());
            run.phase("batch-read: the segments of " + o.scope() + "/" + o.stream());
            long t0 = System.nanoTime();
            List<RangeRead<String>> reads = readAll(run.config, o.scope(), o.stream(), TEXT_OR_SUMMARY,
                    String::length, true, run.remainingNanos());
            long nanos = System.nanoTime() - t0;
            List<String> all = new ArrayList<>();
            List<List<String>> byRange = new ArrayList<>();
            for (RangeRead<String> r : reads) {
                all.addAll(r.events());
                byRange.add(r.events());
                part.check(r.endOffset() == r.range().getEndOffset(), "the iterator of segment "
                        + r.range().getSegmentId() + " ended at " + r.endOffset() + ", not at the range's end "
                        + r.range().getEndOffset());
            }
            Collections.sort(all);
            CRC32 crc = new CRC32();
            crc.update(String.join("\n", all).getBytes(StandardCharsets.UTF_8));
            part.put("ranges", reads.size());
            part.put("read", all.size());
            part.put("crc32", crc.getValue());
            part.put("events", all.size() <= MAX_LISTED ? all : List.of());
            part.put("by_range", all.size() <= MAX_LISTED ? byRange : List.of());
            part.put("read_ms", nanos / 1_000_000);
        } catch (Throwable t) {
            part.error(t);
        } finally {
            part.finish();
        }
        return part.ok();
    }

    /**
     * @return the event's bytes as UTF-8 text if it has at most {@link #MAX_TEXT_BYTES}, else
     *     {@code <N bytes, crc32 C>}
     */
    static String describe(ByteBuffer event) {
        if (event.remaining() <= MAX_TEXT_BYTES) {
            return StandardCharsets.UTF_8.decode(event.duplicate()).toString();
        }
        CRC32 crc = new CRC32();
        crc.update(event.duplicate());
        return "<" + event.remaining() + " bytes, crc32 " + crc.getValue() + ">";
    }

    /**
     * Reads every range of the stream, head to tail, each on a thread of its own, all at once.
     *
     * @param keep whether to keep the events (else they are only counted)
     * @param check looks at each event (on the range's thread) and gives its size in bytes, for the byte count
     * @return what each range gave, in the order of the ranges
     */
    static <T> List<RangeRead<T>> readAll(ClientConfig config, String scope, String stream, Serializer<T> serializer,
                                          ToLongFunction<T> check, boolean keep, long timeoutNanos)
            throws Exception {
        long deadline = System.nanoTime() + timeoutNanos;
        try (BatchClientFactory batch = BatchClientFactory.withScope(scope, config)) {
            List<SegmentRange> ranges = new ArrayList<>();
            Iterator<SegmentRange> it = batch.getSegments(Stream.of(scope, stream), StreamCut.UNBOUNDED,
                    StreamCut.UNBOUNDED).getIterator();
            it.forEachRemaining(ranges::add);
            ExecutorService threads = Executors.newFixedThreadPool(Math.max(1, ranges.size()));
            try {
                List<Future<RangeRead<T>>> futures = new ArrayList<>();
                for (SegmentRange range : ranges) {
                    futures.add(threads.submit(() -> {
                        List<T> events = new ArrayList<>();
                        long bytes = 0;
                        long count = 0;
                        try (SegmentIterator<T> segment = batch.readSegment(range, serializer)) {
                            while (segment.hasNext()) {
                                T e = segment.next();
                                bytes += check.applyAsLong(e);
                                count++;
                                if (keep) {
                                    events.add(e);
                                }
                            }
                            return new RangeRead<>(range, events, count, bytes, segment.getOffset());
                        }
                    }));
                }
                List<RangeRead<T>> out = new ArrayList<>();
                for (Future<RangeRead<T>> f : futures) {
                    out.add(f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                }
                return out;
            } finally {
                threads.shutdownNow();
            }
        }
    }
}
