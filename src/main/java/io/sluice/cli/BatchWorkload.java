package io.sluice.cli;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;

import io.sluice.admin.StreamManager;
import io.sluice.batch.BatchClient;
import io.sluice.batch.SegmentIterator;
import io.sluice.batch.SegmentRange;
import io.sluice.client.SluiceClient;
import io.sluice.common.Threads;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamCut;
import io.sluice.stream.StreamConfiguration;

/**
 * The batch-read workload of {@code bench --batch}, as the official-client driver's {@code bench --batch} runs it,
 * with the same JSON keys: on a new stream of K fixed segments, one writer writes N events of S bytes over
 * {@value Workload#KEYS} routing keys without waiting and flushes (write time: first write to the flush's return,
 * as {@link Workload}); then the batch client lists the segments from head to tail and reads every range on a
 * virtual thread of its own, all at once (read time: from asking for the segments to the end of the last range).
 * Every event is checked by {@link Workload.Verifier} (one check per range: a key lives in one segment, so its events
 * come in order). At the end the run deletes its stream and scope, best effort.
 */
final class BatchWorkload {
    private BatchWorkload() {
    }

    /** What the run did. */
    record Report(ScopedStream stream, Workload.Settings settings, int ranges, long writeNanos, long readNanos,
                  Workload.Verdict verdict, String cleanupError, long totalNanos) {
        boolean ok() {
            return verdict.ok();
        }

        Map<String, Object> json(Map<String, Object> context) {
            Map<String, Object> json = Workload.jsonHead(ok(), context, stream, settings);
            json.put("batch", true);
            json.put("ranges", ranges);
            json.put("write", Workload.rate(settings.size(), settings.events(), writeNanos));
            json.put("read", Workload.rate(settings.size(), verdict.read(), readNanos));
            json.put("verify", verdict.json());
            if (cleanupError != null) {
                json.put("cleanup_error", cleanupError);
            }
            json.put("total_ms", totalNanos / 1_000_000);
            return json;
        }

        List<String> lines() {
            List<String> lines = new ArrayList<>();
            lines.add(String.format(Locale.ROOT, "stream    %s: %d segment%s, %,d events of %,d bytes over %d "
                    + "routing keys, read back by the batch client in %d parallel range%s", stream,
                    settings.segments(), settings.segments() == 1 ? "" : "s", settings.events(), settings.size(),
                    Workload.KEYS, ranges, ranges == 1 ? "" : "s"));
            lines.add(Workload.rateLine(settings.size(), "write", settings.events(), writeNanos));
            lines.add(Workload.rateLine(settings.size(), "read", verdict.read(), readNanos));
            lines.add(verdict.ok() ? "verify    ok: every event read exactly once, intact, in order per key"
                    : "verify    FAILED: " + verdict.reason());
            if (cleanupError != null) {
                lines.add("cleanup   incomplete: " + cleanupError);
            }
            return lines;
        }
    }

    /**
     * Runs the workload. Blocks until done.
     *
     * @param stream the stream to create (it must not exist)
     * @throws RuntimeException if the run could not go on (creating the stream or writing failed); a verification
     *     failure is not thrown: the report says it
     */
    static Report run(SluiceClient client, ScopedStream stream, Workload.Settings s) {
        long t0 = System.nanoTime();
        StreamManager streams = client.streamManager();
        boolean createdScope = streams.createScope(stream.scope());
        if (!streams.createStream(stream.scope(), stream.name(), StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(s.segments())).build())) {
            throw new AlreadyExistsException("stream '" + stream + "' already exists");
        }
        long writeNanos;
        long readNanos;
        int ranges;
        Workload.Verifier verifier = new Workload.Verifier(s.events(), s.size());
        String cleanupError = null;
        try {
            try (EventStreamWriter<ByteBuffer> writer = client.newWriter(stream.scope(), stream.name(),
                    Serializers.byteBuffer(), ControllerOptions.writerConfig(s.idleTimeout())
                            .withLargeEvents(s.largeEvents()))) {
                long w0 = System.nanoTime();
                for (int i = 0; i < s.events(); i++) {
                    int key = i % Workload.KEYS;
                    writer.write(Workload.routingKey(key), Workload.event(key, i / Workload.KEYS, s.size()));
                }
                writer.flush();
                writeNanos = System.nanoTime() - w0;
            }
            BatchClient batch = client.batchClient();
            long r0 = System.nanoTime();
            List<SegmentRange> all = batch.segments(stream, StreamCut.UNBOUNDED, StreamCut.UNBOUNDED);
            ranges = all.size();
            try (ExecutorService threads = Threads.perTaskExecutor("sluice-batch-bench-")) {
                for (SegmentRange range : all) {
                    threads.execute(() -> readRange(batch, range, verifier));
                }
            }
            readNanos = System.nanoTime() - r0;
        } finally {
            try {
                streams.sealStream(stream.scope(), stream.name());
                streams.deleteStream(stream.scope(), stream.name());
                if (createdScope) {
                    streams.deleteScope(stream.scope());
                }
            } catch (RuntimeException e) {
                cleanupError = "cannot delete " + stream + ": " + e.getMessage();
            }
        }
        return new Report(stream, s, ranges, writeNanos, readNanos, verifier.verdict(), cleanupError,
                System.nanoTime() - t0);
    }

    private static void readRange(BatchClient batch, SegmentRange range, Workload.Verifier verifier) {
        Workload.Verifier.ReaderCheck check = verifier.reader("range " + range.segment());
        try (SegmentIterator<ByteBuffer> it = batch.readSegment(range, Serializers.byteBuffer())) {
            while (it.hasNext()) {
                check.accept(it.next());
            }
        } catch (RuntimeException e) {
            verifier.fail("reading " + range + " failed: " + e.getMessage());
        }
    }
}
