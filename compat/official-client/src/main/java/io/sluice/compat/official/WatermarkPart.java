package io.sluice.compat.official;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.pravega.client.ClientConfig;
import io.pravega.client.EventStreamClientFactory;
import io.pravega.client.admin.ReaderGroupManager;
import io.pravega.client.stream.EventRead;
import io.pravega.client.stream.EventStreamReader;
import io.pravega.client.stream.EventStreamWriter;
import io.pravega.client.stream.EventWriterConfig;
import io.pravega.client.stream.ReaderConfig;
import io.pravega.client.stream.ReaderGroupConfig;
import io.pravega.client.stream.Stream;
import io.pravega.client.stream.TimeWindow;
import io.pravega.client.stream.impl.UTF8StringSerializer;

/**
 * Mode {@code watermarks}, on an EXISTING {@code --scope}/{@code --stream} (nothing created or deleted but a reader
 * group):
 * <ul>
 *   <li>{@code --role write}: the official writer writes {@code --events} events in three rounds, flushing and
 *       noting the times 1000, 2000 and 3000 after each ({@code noteTime}), then closes after 2 s (the notes are
 *       asynchronous, and close cancels those in flight);</li>
 *   <li>{@code --role read}: an official reader of a new group (named after the stream, {@code -wm} plus a random
 *       suffix) reports {@code getCurrentTimeWindow} before reading, then reads {@code --events} events and reads on
 *       (with 200 ms timeouts) until the window has a lower bound or the run's time is up, and reports the window
 *       then. A window is reported as {@code [lower, upper]}, {@code null} for an unknown bound.</li>
 * </ul>
 * So a test can check the official client's watermarks against another client's on both servers.
 */
final class WatermarkPart {
    /** The times the writer notes, one after each round of events. */
    static final long[] TIMES = {1000, 2000, 3000};
    /** How long the writer stays open after its last noteTime. */
    private static final int NOTE_GRACE_SECONDS = 2;

    private WatermarkPart() {
    }

    static boolean run(Run run, Report report) {
        Options o = run.options;
        Part part = new Part("watermarks");
        report.put("watermarks", part);
        part.start();
        try {
            part.put("stream", o.scope() + "/" + o.stream());
            part.put("role", o.role());
            if (o.role().equals("write")) {
                write(run, part);
            } else {
                read(run, part);
            }
        } catch (Throwable t) {
            part.error(t);
        } finally {
            part.finish();
        }
        return part.ok();
    }

    private static void write(Run run, Part part) {
        Options o = run.options;
        run.phase("watermarks: writing " + o.events() + " events and noting times " + Arrays.toString(TIMES));
        int written = 0;
        try (EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config);
             EventStreamWriter<String> writer = factory.createEventWriter(o.stream(), new UTF8StringSerializer(),
                     EventWriterConfig.builder().build())) {
            for (int round = 0; round < TIMES.length; round++) {
                int n = o.events() / TIMES.length + (round < o.events() % TIMES.length ? 1 : 0);
                for (int i = 0; i < n; i++) {
                    writer.writeEvent("k" + (written % 7), "official:" + written);
                    written++;
                }
                writer.flush();
                writer.noteTime(TIMES[round]);
            }
            // the official writer's noteTime is fire-and-forget (its RPC's future is dropped) and close cancels
            // RPCs still in flight ("gRPC call for lastWrittenPosition ... failed"): give the notes time to land
            run.phase("watermarks: letting the noted times reach the controller");
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(NOTE_GRACE_SECONDS));
        }
        part.put("written", written);
        part.put("noted", Arrays.stream(TIMES).boxed().toList());
    }

    private static void read(Run run, Part part) throws Exception {
        Options o = run.options;
        Stream stream = Stream.of(o.scope(), o.stream());
        String group = o.stream() + "-wm" + Long.toHexString(System.nanoTime() & 0xFFFFFF);
        ClientConfig config = run.config;
        try (ReaderGroupManager groups = ReaderGroupManager.withScope(o.scope(), config)) {
            groups.createReaderGroup(group, ReaderGroupConfig.builder().stream(stream).groupRefreshTimeMillis(100)
                    .disableAutomaticCheckpoints().build());
            try (EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), config);
                 EventStreamReader<String> reader = factory.createReader("r1", group, new UTF8StringSerializer(),
                         ReaderConfig.builder().build())) {
                run.phase("watermarks: reading " + o.events() + " events of " + stream + " with group " + group);
                part.put("before", window(reader.getCurrentTimeWindow(stream)));
                int read = 0;
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
                part.put("read", read);
                run.phase("watermarks: waiting for a lower time bound");
                TimeWindow w = reader.getCurrentTimeWindow(stream);
                while (w.getLowerTimeBound() == null && run.remainingNanos() > 1_000_000_000L) {
                    EventRead<String> e = reader.readNextEvent(200);
                    if (e.getEvent() != null) {
                        part.put("unexpected_event", e.getEvent());
                    }
                    w = reader.getCurrentTimeWindow(stream);
                }
                part.put("after", window(w));
                part.check(w.getLowerTimeBound() != null, "no lower time bound after reading every event");
            } finally {
                groups.deleteReaderGroup(group);
            }
        }
    }

    private static List<Long> window(TimeWindow w) {
        List<Long> pair = new ArrayList<>();
        pair.add(w.getLowerTimeBound());
        pair.add(w.getUpperTimeBound());
        return pair;
    }
}
