package io.sluice.compat.official;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.pravega.client.EventStreamClientFactory;
import io.pravega.client.admin.StreamManager;
import io.pravega.client.stream.EventStreamWriter;
import io.pravega.client.stream.EventWriterConfig;

/**
 * Mode {@code bench}: the workload of Sluice's {@code bench} command with the official client, so the two can be
 * compared on the same server in the same sitting.
 *
 * <ol>
 *   <li>optional warm-up: W events written and read on a separate stream (reported apart);</li>
 *   <li>write: one writer, N events of S bytes over 64 routing keys, {@code writeEvent} without waiting, then
 *       {@code flush}; time from the first {@code writeEvent} to the end of {@code flush};</li>
 *   <li>read: a new reader group of R readers from the head; time from the first {@code readNextEvent} to the
 *       return of the N-th event; count and per-key order checked (content not, to keep the reader hot loop
 *       comparable);</li>
 *   <li>latency: L sequential awaited writes ({@code writeEvent(...).get()}) on the same writer; p50 and p99.</li>
 * </ol>
 * With {@code --transactions T} the run is {@link TxnBench}'s transaction workload instead; with
 * {@code --writers W} over 1, {@link ScaleBench}'s many-writer workload.
 */
final class Bench {
    private Bench() {
    }

    static boolean run(Run run, Report report, StreamManager streamManager) throws Exception {
        Options o = run.options;
        if (o.transactions() > 0) {
            return TxnBench.run(run, report, streamManager);
        }
        if (o.kvt()) {
            return KvtBenchPart.run(run, report);
        }
        if (o.batch()) {
            return BatchBench.run(run, report, streamManager);
        }
        if (o.byteStream()) {
            return ByteStreamBench.run(run, report, streamManager);
        }
        if (o.writers() > 1) {
            return ScaleBench.run(run, report, streamManager);
        }
        String stream = o.stream();
        report.put("stream", o.scope() + "/" + stream);
        report.put("events", o.events());
        report.put("size", o.size());
        report.put("segments", o.segments());
        report.put("readers", o.readers());
        report.put("keys", Payload.KEYS);
        if (o.largeEvents()) {
            report.put("large_events", true);
        }

        if (o.warmupEvents() > 0) {
            run.phase("bench: warm-up with " + o.warmupEvents() + " events");
            String warm = run.name("-warmup");
            run.createStream(streamManager, warm, o.segments());
            EventsWorkload.WriteResult w;
            try (EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config);
                 EventStreamWriter<ByteBuffer> warmWriter = factory.createEventWriter(warm, Payload.SERIALIZER,
                         EventWriterConfig.builder().enableLargeEvents(o.largeEvents()).build())) {
                w = EventsWorkload.writeWith(warmWriter, 0, o.warmupEvents(), o.size(), run.deadlineNanos);
            }
            EventsWorkload.ReadResult r = EventsWorkload.read(run.config, o.scope(), warm, run.name("-warmup-rg"),
                    o.readers(), o.warmupEvents(), o.size(), false, 0, run.deadlineNanos);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("events", o.warmupEvents());
            m.put("write_events_per_s", Math.round(w.eventsPerSecond()));
            m.put("read_events_per_s", Math.round(r.eventsPerSecond()));
            m.put("ok", w.failed() == 0 && r.ok(o.warmupEvents()));
            report.put("warmup", m);
        }

        run.createStream(streamManager, stream, o.segments());
        try (EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config);
             EventStreamWriter<ByteBuffer> writer = factory.createEventWriter(stream, Payload.SERIALIZER,
                     EventWriterConfig.builder().enableLargeEvents(o.largeEvents()).build())) {
            run.phase("bench: writing " + o.events() + " events of " + o.size() + " bytes to " + o.segments()
                    + " segment(s)");
            EventsWorkload.WriteResult w = EventsWorkload.writeWith(writer, 0, o.events(), o.size(),
                    run.deadlineNanos);
            report.put("write", rate(w.events(), w.nanos(), o.size(), w.failed()));
            Driver.LOG.info("bench: write {} events/s", Math.round(w.eventsPerSecond()));

            run.phase("bench: reading with " + o.readers() + " reader(s)");
            EventsWorkload.ReadResult r = EventsWorkload.read(run.config, o.scope(), stream, run.name("-rg"),
                    o.readers(), o.events(), o.size(), false, 0, run.deadlineNanos);
            report.put("read", rate(r.events(), r.nanos(), o.size(), -1));
            Driver.LOG.info("bench: read {} events/s", Math.round(r.eventsPerSecond()));

            run.phase("bench: " + o.latencySamples() + " awaited single writes");
            long[] micros = new long[o.latencySamples()];
            AwaitedWrites awaited = new AwaitedWrites(micros);
            if (o.virtualLatencyThread()) {
                onVirtualThread(() -> awaited.run(writer, run, o));
            } else {
                awaited.run(writer, run, o);
            }
            long failed = awaited.failed;
            String firstError = awaited.firstError;
            Map<String, Object> latency = latency(micros, failed, firstError);
            latency.put("thread", o.virtualLatencyThread() ? "virtual" : "platform");
            report.put("latency", latency);

            Map<String, Object> verify = new LinkedHashMap<>();
            boolean ok = w.failed() == 0 && r.ok(o.events()) && failed == 0;
            verify.put("ok", ok);
            verify.put("read", r.events());
            verify.put("duplicates", r.duplicates());
            verify.put("out_of_order", r.gaps());
            verify.put("missing", r.missing());
            verify.put("failed_writes", w.failed() + failed);
            if (r.timedOut()) {
                verify.put("timed_out", true);
            }
            if (w.firstError() != null || firstError != null || r.firstError() != null) {
                verify.put("error", w.firstError() != null ? w.firstError()
                        : r.firstError() != null ? r.firstError() : firstError);
            }
            report.put("verify", verify);
            return ok;
        }
    }

    /**
     * A phase's rate as the JSON reports it: {@code events_per_s}, {@code mb_per_s}, {@code seconds}, and
     * {@code failed} unless {@code failed} is negative.
     */
    static Map<String, Object> rate(long events, long nanos, int size, long failed) {
        Map<String, Object> m = new LinkedHashMap<>();
        double seconds = nanos / 1e9;
        m.put("events_per_s", seconds == 0 ? 0 : Math.round(events / seconds));
        m.put("mb_per_s", seconds == 0 ? 0 : events * (double) size / 1e6 / seconds);
        m.put("seconds", seconds);
        if (failed >= 0) {
            m.put("failed", failed);
        }
        return m;
    }

    /** The awaited single writes of the latency phase, one after the other; confined to the thread that runs them. */
    private static final class AwaitedWrites {
        private final long[] micros;
        long failed;
        String firstError;

        AwaitedWrites(long[] micros) {
            this.micros = micros;
        }

        void run(EventStreamWriter<ByteBuffer> writer, Run run, Options o) throws InterruptedException {
            for (int i = 0; i < micros.length; i++) {
                long n = (long) o.events() + i;
                int key = Payload.keyOf(n);
                ByteBuffer payload = Payload.encode(key, Payload.seqOf(n), o.size());
                long t0 = System.nanoTime();
                try {
                    writer.writeEvent(Payload.routingKey(key), payload)
                            .get(run.remainingNanos(), TimeUnit.NANOSECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    failed++;
                    if (firstError == null) {
                        firstError = Part.describe(e instanceof ExecutionException ? e.getCause() : e);
                    }
                    if (e instanceof TimeoutException) {
                        break;
                    }
                }
                micros[i] = (System.nanoTime() - t0) / 1000;
            }
        }
    }

    /** What {@link #onVirtualThread} runs. */
    private interface Task {
        void run() throws Exception;
    }

    /**
     * Runs {@code task} on a new virtual thread and waits for it; what it throws, this throws. The driver is built
     * for Java 17, so the thread is made through reflection; {@link Options} has checked that this JDK has them.
     */
    private static void onVirtualThread(Task task) throws Exception {
        Exception[] failed = new Exception[1];
        Runnable body = () -> {
            try {
                task.run();
            } catch (Exception e) {
                failed[0] = e;
            }
        };
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Thread thread = (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class)
                .invoke(builder, body);
        thread.join();
        if (failed[0] != null) {
            throw failed[0];
        }
    }

    /**
     * Awaited-write latencies as the JSON reports them: nearest-rank p50, p99, p99.9, max, mean and the number of
     * samples, plus {@code failed} and {@code error} when some writes failed.
     */
    static Map<String, Object> latency(long[] micros, long failed, String firstError) {
        Map<String, Object> m = new LinkedHashMap<>();
        long[] sorted = micros.clone();
        Arrays.sort(sorted);
        m.put("p50_us", percentile(sorted, 0.50));
        m.put("p99_us", percentile(sorted, 0.99));
        m.put("p999_us", percentile(sorted, 0.999));
        m.put("max_us", sorted.length == 0 ? 0 : sorted[sorted.length - 1]);
        m.put("mean_us", sorted.length == 0 ? 0 : Arrays.stream(sorted).average().orElse(0));
        m.put("samples", sorted.length);
        if (failed > 0) {
            m.put("failed", failed);
            m.put("error", firstError);
        }
        return m;
    }

    /** Nearest-rank percentile of sorted values: the smallest value with at least {@code p} of them at or below. */
    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
