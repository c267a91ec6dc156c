package io.sluice.compat.official;

import io.pravega.client.EventStreamClientFactory;
import io.pravega.client.admin.StreamManager;

/**
 * Part {@code events} of {@code verify}: a stream with K fixed segments, N events over 64 routing keys through one
 * writer, read back by a reader group of R readers; checks count, content, per-key order, no duplicates, no gaps,
 * and that nothing more arrives within a second after the last expected event.
 */
final class EventsPart {
    private static final long EXTRA_WAIT_MS = 1000;

    private EventsPart() {
    }

    static void run(Run run, Part part, StreamManager streamManager) throws Exception {
        Options o = run.options;
        String stream = o.stream();
        part.put("stream", o.scope() + "/" + stream);
        part.put("events", o.events());
        part.put("size", o.size());
        part.put("keys", Payload.KEYS);
        part.put("segments", o.segments());
        part.put("readers", o.readers());
        run.phase("events: creating stream " + o.scope() + "/" + stream + " with " + o.segments() + " segments");
        run.createStream(streamManager, stream, o.segments());

        run.phase("events: writing " + o.events() + " events of " + o.size() + " bytes");
        EventsWorkload.WriteResult w;
        try (EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config)) {
            w = EventsWorkload.write(factory, stream, o.events(), o.size(), run.deadlineNanos);
        }
        part.put("write_ms", w.nanos() / 1_000_000);
        part.put("write_phase_ms", w.totalNanos() / 1_000_000);
        part.put("write_events_per_s", Math.round(w.eventsPerSecond()));
        part.check(w.failed() == 0, w.failed() + " writes failed, the first with " + w.firstError());
        Driver.LOG.info("events: wrote {} in {} ms ({} events/s)", w.events(), w.nanos() / 1_000_000,
                Math.round(w.eventsPerSecond()));

        run.phase("events: reading them back with " + o.readers() + " reader(s)");
        EventsWorkload.ReadResult r = EventsWorkload.read(run.config, o.scope(), stream, run.name("-rg"),
                o.readers(), o.events(), o.size(), true, EXTRA_WAIT_MS, run.deadlineNanos);
        part.put("read_setup_ms", r.setupNanos() / 1_000_000);
        part.put("read_ms", r.nanos() / 1_000_000);
        part.put("read_phase_ms", r.totalNanos() / 1_000_000);
        part.put("read_events_per_s", Math.round(r.eventsPerSecond()));
        part.put("read", r.events());
        part.put("duplicates", r.duplicates());
        part.put("out_of_order", r.gaps());
        part.put("corrupt", r.corrupt());
        part.put("missing", r.missing());
        part.put("extra", r.extra());
        Driver.LOG.info("events: read {} in {} ms ({} events/s)", r.events(), r.nanos() / 1_000_000,
                Math.round(r.eventsPerSecond()));
        part.checkEqual((long) o.events(), r.events(), "events read");
        part.check(r.duplicates() == 0, r.duplicates() + " duplicate (or backwards) events");
        part.check(r.gaps() == 0, r.gaps() + " events skipped ahead in their key's sequence (order or loss)");
        part.check(r.corrupt() == 0, r.corrupt() + " events with wrong content");
        part.check(r.missing() == 0, r.missing() + " events missing");
        part.check(r.extra() == 0, r.extra() + " unexpected events after the last one");
        part.check(!r.timedOut(), "reading timed out after " + r.events() + " events");
        part.check(r.firstError() == null, "a reader failed: " + r.firstError());
    }
}
