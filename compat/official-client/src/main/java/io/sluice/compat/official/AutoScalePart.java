package io.sluice.compat.official;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.pravega.client.EventStreamClientFactory;
import io.pravega.client.admin.StreamManager;
import io.pravega.client.stream.EventStreamWriter;
import io.pravega.client.stream.EventWriterConfig;
import io.pravega.client.stream.impl.UTF8StringSerializer;

/**
 * Mode {@code autoscale}: the official client writes rounds of one event per key, {@code "official:k<k>:<round>"} for
 * 16 keys, to the EXISTING --scope/--stream (which should scale by event rate, with a target far below ~1600 events
 * a second) until the server has split it (the tail stream cut has more segments than at the start), then
 * {@code --events} more rounds into the new segments, and flushes. Reports the segments before and after, the rounds
 * written and how long the split took. Creates and deletes nothing; fails if no split comes within the timeout.
 */
final class AutoScalePart {
    static final int KEYS = 16;

    private AutoScalePart() {
    }

    static boolean run(Run run, Report report) {
        Options o = run.options;
        Part part = new Part("autoscale");
        report.put("autoscale", part);
        part.start();
        try (StreamManager streams = StreamManager.create(run.config);
             EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config);
             EventStreamWriter<String> writer = factory.createEventWriter(o.stream(), new UTF8StringSerializer(),
                     EventWriterConfig.builder().build())) {
            int before = segments(streams, o);
            part.put("stream", o.scope() + "/" + o.stream());
            part.put("segments_before", before);
            run.phase("autoscale: writing over the target to " + o.scope() + "/" + o.stream() + " until it splits");
            List<CompletableFuture<Void>> acks = new ArrayList<>();
            long started = System.nanoTime();
            int round = 0;
            int after = before;
            long nextCheck = 0;
            while (after <= before && run.remainingNanos() > 0) {
                writeRound(writer, round++, acks);
                // pacing, about 100 rounds a second
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                if (System.nanoTime() - nextCheck > 0) {
                    after = segments(streams, o);
                    nextCheck = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
                }
            }
            part.put("split_ms", (System.nanoTime() - started) / 1_000_000);
            part.put("segments_after", after);
            part.check(after > before, "the stream did not split in time (still " + after + " segments)");
            run.phase("autoscale: " + o.events() + " more rounds into the new segments");
            for (int i = 0; i < o.events(); i++) {
                writeRound(writer, round++, acks);
            }
            writer.flush();
            for (CompletableFuture<Void> ack : acks) {
                ack.get(run.remainingNanos(), TimeUnit.NANOSECONDS);
            }
            part.put("rounds", round);
            part.put("written", acks.size());
        } catch (Throwable t) {
            part.error(t);
        } finally {
            part.finish();
        }
        return part.ok();
    }

    private static void writeRound(EventStreamWriter<String> writer, int round, List<CompletableFuture<Void>> acks) {
        for (int k = 0; k < KEYS; k++) {
            acks.add(writer.writeEvent("k" + k, "official:k" + k + ":" + round));
        }
    }

    /** @return how many segments the stream's tail has (its active segments) */
    private static int segments(StreamManager streams, Options o) {
        return streams.fetchStreamInfo(o.scope(), o.stream()).join().getTailStreamCut().asImpl().getPositions().size();
    }
}
