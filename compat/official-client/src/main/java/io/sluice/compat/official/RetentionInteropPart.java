package io.sluice.compat.official;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.pravega.client.EventStreamClientFactory;
import io.pravega.client.admin.ReaderGroupManager;
import io.pravega.client.admin.StreamManager;
import io.pravega.client.stream.EventRead;
import io.pravega.client.stream.EventStreamReader;
import io.pravega.client.stream.ReaderConfig;
import io.pravega.client.stream.ReaderGroup;
import io.pravega.client.stream.ReaderGroupConfig;
import io.pravega.client.stream.Stream;
import io.pravega.client.stream.StreamCut;
import io.pravega.client.stream.impl.UTF8StringSerializer;

/**
 * Mode {@code retention}, on an EXISTING {@code --scope}/{@code --stream} with a retention policy (nothing created or
 * deleted but a reader group): the official client creates a reader group with retention type
 * {@code MANUAL_RELEASE_AT_USER_STREAMCUT} (named after the stream, {@code -ret} plus a random suffix; it stays, so
 * the server keeps it as a subscriber), reads {@code --events} events, releases the data before where the (then closed) reader
 * stands, the group's {@code getStreamCuts}, with {@code ReaderGroup.updateRetentionStreamCut}, and then watches the stream's head
 * ({@code getStreamInfo}) for up to {@value #WATCH_SECONDS} s: it reports the released cut, the head before and after
 * and whether the head moved ({@code truncated}). A server with a short retention period truncates; one with
 * Pravega's 30-minute default does not within the watch, which is not a failure.
 */
final class RetentionInteropPart {
    static final int WATCH_SECONDS = 15;

    private RetentionInteropPart() {
    }

    static boolean run(Run run, Report report) {
        Part part = new Part("retention");
        report.put("retention", part);
        part.start();
        try {
            release(run, part);
        } catch (Throwable t) {
            part.error(t);
        } finally {
            part.finish();
        }
        return part.ok();
    }

    private static void release(Run run, Part part) {
        Options o = run.options;
        Stream stream = Stream.of(o.scope(), o.stream());
        String group = o.stream() + "-ret" + Long.toHexString(System.nanoTime() & 0xFFFFFF);
        part.put("stream", stream.getScopedName());
        part.put("group", group);
        try (ReaderGroupManager groups = ReaderGroupManager.withScope(o.scope(), run.config);
             StreamManager streams = StreamManager.create(run.config)) {
            groups.createReaderGroup(group, ReaderGroupConfig.builder().stream(stream).groupRefreshTimeMillis(100)
                    .disableAutomaticCheckpoints()
                    .retentionType(ReaderGroupConfig.StreamDataRetention.MANUAL_RELEASE_AT_USER_STREAMCUT).build());
            int read = 0;
            try (EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config);
                 EventStreamReader<String> reader = factory.createReader("r1", group, new UTF8StringSerializer(),
                         ReaderConfig.builder().build())) {
                run.phase("retention: reading " + o.events() + " events of " + stream + " with group " + group);
                while (read < o.events()) {
                    if (run.remainingNanos() <= 0) {
                        part.error("read " + read + " of " + o.events() + " events before the time was up");
                        return;
                    }
                    EventRead<String> e = reader.readNextEvent(200);
                    if (e.getEvent() != null) {
                        read++;
                    }
                }
            }
            part.put("read", read);
            Map<Long, Long> before = offsets(streams.fetchStreamInfo(o.scope(), o.stream()).join()
                    .getHeadStreamCut());
            part.put("head_before", before);
            try (ReaderGroup rg = groups.getReaderGroup(group)) {
                // the reader closed after its last read, so the group holds its position there
                StreamCut cut = rg.getStreamCuts().get(stream);
                part.put("released", offsets(cut));
                run.phase("retention: releasing " + cut);
                rg.updateRetentionStreamCut(Map.of(stream, cut));
            }
            run.phase("retention: watching the head of " + stream);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCH_SECONDS);
            Map<Long, Long> head = before;
            while (head.equals(before) && System.nanoTime() - until < 0 && run.remainingNanos() > 1_000_000_000L) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
                head = offsets(streams.fetchStreamInfo(o.scope(), o.stream()).join().getHeadStreamCut());
            }
            part.put("head_after", head);
            part.put("truncated", !head.equals(before));
        }
    }

    /** @return segment number to offset ({@code {}} for an unbounded cut) */
    private static Map<Long, Long> offsets(StreamCut cut) {
        Map<Long, Long> out = new TreeMap<>();
        if (cut != null && cut != StreamCut.UNBOUNDED) {
            cut.asImpl().getPositions().forEach((segment, offset) -> out.put(segment.getSegmentId(), offset));
        }
        return out;
    }
}
