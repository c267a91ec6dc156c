package io.sluice.compat.official;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import io.pravega.client.EventStreamClientFactory;
import io.pravega.client.admin.StreamManager;
import io.pravega.client.stream.EventStreamWriter;
import io.pravega.client.stream.EventWriterConfig;

/**
 * Mode {@code bench --batch}: the batch-read workload of Sluice's {@code bench --batch} with the official client,
 * same JSON keys: on a new stream of K fixed segments, one writer writes N events of S bytes over
 * {@value Payload#KEYS} routing keys and flushes (write time: first {@code writeEvent} to the end of the flush);
 * then the official {@code BatchClientFactory} lists the segments from head to tail and reads every range on a
 * thread of its own, all at once (read time: from {@code getSegments} to the end of the last range). Every event's
 * content is checked and every event must come exactly once.
 */
final class BatchBench {
    private BatchBench() {
    }

    static boolean run(Run run, Report report, StreamManager streamManager) throws Exception {
        Options o = run.options;
        String stream = o.stream();
        report.put("batch", true);
        report.put("stream", o.scope() + "/" + stream);
        report.put("events", o.events());
        report.put("size", o.size());
        report.put("segments", o.segments());
        report.put("keys", Payload.KEYS);
        run.phase("bench --batch: creating stream " + stream + " of " + o.segments() + " segment(s)");
        run.createStream(streamManager, stream, o.segments());
        EventsWorkload.WriteResult w;
        try (EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config);
             EventStreamWriter<ByteBuffer> writer = factory.createEventWriter(stream, Payload.SERIALIZER,
                     EventWriterConfig.builder().enableLargeEvents(o.largeEvents()).build())) {
            run.phase("bench --batch: writing " + o.events() + " events of " + o.size() + " bytes");
            w = EventsWorkload.writeWith(writer, 0, o.events(), o.size(), run.deadlineNanos);
        }
        report.put("write", rate(o, w.events(), w.nanos()));

        run.phase("bench --batch: reading every range at once");
        AtomicLongArray seen = new AtomicLongArray((o.events() + 63) / 64);
        AtomicLong corrupt = new AtomicLong();
        AtomicLong duplicates = new AtomicLong();
        long r0 = System.nanoTime();
        List<BatchInteropPart.RangeRead<ByteBuffer>> reads = BatchInteropPart.readAll(run.config, o.scope(), stream,
                Payload.SERIALIZER, e -> {
                    int key = Payload.key(e);
                    if (!Payload.contentOk(e, o.size())) {
                        corrupt.incrementAndGet();
                        return e.remaining();
                    }
                    long n = (long) Payload.seq(e) * Payload.KEYS + key;
                    if (n >= o.events()) {
                        corrupt.incrementAndGet();
                        return e.remaining();
                    }
                    long bit = 1L << (n & 63);
                    if ((seen.getAndAccumulate((int) (n >>> 6), bit, (a, b) -> a | b) & bit) != 0) {
                        duplicates.incrementAndGet();
                    }
                    return e.remaining();
                }, false, run.remainingNanos());
        long readNanos = System.nanoTime() - r0;
        long read = reads.stream().mapToLong(BatchInteropPart.RangeRead::count).sum();
        long distinct = 0;
        for (int i = 0; i < seen.length(); i++) {
            distinct += Long.bitCount(seen.get(i));
        }
        report.put("ranges", reads.size());
        report.put("read", rate(o, read, readNanos));
        boolean ok = w.failed() == 0 && read == o.events() && distinct == o.events() && corrupt.get() == 0
                && duplicates.get() == 0;
        Map<String, Object> verify = new LinkedHashMap<>();
        verify.put("ok", ok);
        verify.put("read", read);
        verify.put("duplicates", duplicates.get());
        verify.put("missing", o.events() - distinct);
        verify.put("failed_writes", w.failed());
        verify.put("corrupt", corrupt.get());
        if (w.firstError() != null) {
            verify.put("error", w.firstError());
        } else if (!ok) {
            verify.put("error", read + " events read (" + distinct + " distinct, " + corrupt.get() + " corrupt), "
                    + o.events() + " written");
        }
        report.put("verify", verify);
        return ok;
    }

    private static Map<String, Object> rate(Options o, long events, long nanos) {
        Map<String, Object> m = new LinkedHashMap<>();
        double seconds = nanos / 1e9;
        m.put("events_per_s", seconds == 0 ? 0 : Math.round(events / seconds));
        m.put("mb_per_s", seconds == 0 ? 0.0 : events * (double) o.size() / 1e6 / seconds);
        m.put("seconds", seconds);
        return m;
    }
}
