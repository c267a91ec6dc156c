package io.sluice.compat.official;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.pravega.client.SynchronizerClientFactory;
import io.pravega.client.state.InitialUpdate;
import io.pravega.client.state.Revision;
import io.pravega.client.state.Revisioned;
import io.pravega.client.state.RevisionedStreamClient;
import io.pravega.client.state.StateSynchronizer;
import io.pravega.client.state.SynchronizerConfig;
import io.pravega.client.state.Update;
import io.pravega.client.stream.Serializer;

/**
 * Mode {@code sync-interop}: a state synchronizer and a revisioned stream client shared with another client, on the
 * EXISTING one-segment streams {@code --scope}/{@code --stream} (the synchronizer's) and
 * {@code --scope}/{@code --stream}{@code -rev} (the revisioned client's); nothing is created or deleted.
 *
 * <p>The state is a text of comma-separated items; its full state ({@code InitialUpdate}) and its updates (each
 * appending one item) are written as plain UTF-8, so another client with UTF-8 serializers reads the same log. The
 * revisioned client's values are UTF-8 texts.
 * <ul>
 *   <li>{@code --role write}: initializes the state with {@code "official-init"}, appends {@code "official:i"} for
 *       i &lt; {@code --events} with conditional updates, one {@code "official-unconditional"} without condition,
 *       compacts, appends {@code "official-after-compact"}, and reports {@code state}, {@code revision} (as text)
 *       and {@code mark}. On the revisioned stream it writes {@code "official-rev:i"} conditionally (i &lt;
 *       {@code --events}; reports {@code revisions}), checks that a write at the first, stale, revision fails, writes
 *       {@code "official-rev-unconditional"}, sets the mark to the first revision and reports {@code rev_mark} and
 *       {@code rev_latest}.</li>
 *   <li>{@code --role read}: reads the state ({@code state}, {@code revision}), appends {@code "official-read"}
 *       conditionally ({@code revision_after}); reads every value of the revisioned stream from its oldest revision
 *       ({@code values}, {@code revisions}), reports the mark ({@code rev_mark}), and writes
 *       {@code "official-rev-read"} conditionally at the latest revision ({@code rev_written}).</li>
 * </ul>
 */
final class SyncInteropPart {
    private SyncInteropPart() {
    }

    /** The state: a text, at a revision. */
    static final class Text implements Revisioned {
        private final String stream;
        private final Revision revision;
        final String text;

        Text(String stream, Revision revision, String text) {
            this.stream = stream;
            this.revision = revision;
            this.text = text;
        }

        @Override
        public String getScopedStreamName() {
            return stream;
        }

        @Override
        public Revision getRevision() {
            return revision;
        }
    }

    /** The full state: the whole text. */
    static final class Init implements InitialUpdate<Text> {
        final String text;

        Init(String text) {
            this.text = text;
        }

        @Override
        public Text create(String scopedStreamName, Revision revision) {
            return new Text(scopedStreamName, revision, text);
        }
    }

    /** Appends one item. */
    static final class Add implements Update<Text> {
        final String item;

        Add(String item) {
            this.item = item;
        }

        @Override
        public Text applyTo(Text old, Revision revision) {
            return new Text(old.getScopedStreamName(), revision, old.text.isEmpty() ? item : old.text + "," + item);
        }
    }

    static final Serializer<String> UTF8 = utf8(text -> text, text -> text);
    static final Serializer<Init> INITS = utf8(init -> init.text, Init::new);
    static final Serializer<Add> ADDS = utf8(add -> add.item, Add::new);

    /** @return a serializer writing {@code toText}'s text as UTF-8 and reading it back through {@code fromText} */
    static <T> Serializer<T> utf8(Function<T, String> toText, Function<String, T> fromText) {
        return new Serializer<>() {
            @Override
            public ByteBuffer serialize(T value) {
                return ByteBuffer.wrap(toText.apply(value).getBytes(StandardCharsets.UTF_8));
            }

            @Override
            public T deserialize(ByteBuffer bytes) {
                return fromText.apply(StandardCharsets.UTF_8.decode(bytes).toString());
            }
        };
    }

    static boolean run(Run run, Report report) {
        Options o = run.options;
        Part part = new Part("sync-interop");
        report.put("sync-interop", part);
        part.start();
        try {
            part.put("stream", o.scope() + "/" + o.stream());
            part.put("rev_stream", o.scope() + "/" + o.stream() + "-rev");
            part.put("role", o.role());
            SynchronizerConfig config = SynchronizerConfig.builder().build();
            try (SynchronizerClientFactory factory = SynchronizerClientFactory.withScope(o.scope(), run.config);
                 StateSynchronizer<Text> sync = factory.createStateSynchronizer(o.stream(), ADDS, INITS, config);
                 RevisionedStreamClient<String> log = factory.createRevisionedStreamClient(o.stream() + "-rev", UTF8,
                         config)) {
                if (o.role().equals("write")) {
                    writeState(run, part, sync);
                    writeLog(run, part, log);
                } else {
                    readState(run, part, sync);
                    readLog(run, part, log);
                }
            }
        } catch (Throwable t) {
            part.error(t);
        } finally {
            part.finish();
        }
        return part.ok();
    }

    private static void add(StateSynchronizer<Text> sync, String item) {
        StateSynchronizer.UpdateGenerator<Text> generator = (state, updates) -> updates.add(new Add(item));
        sync.updateState(generator);
    }

    private static void writeState(Run run, Part part, StateSynchronizer<Text> sync) {
        run.phase("sync-interop: writing the state");
        sync.initialize(new Init("official-init"));
        sync.fetchUpdates();
        part.check(sync.getState() != null && sync.getState().text.equals("official-init"),
                "the state after initialize is not official-init");
        for (int i = 0; i < run.options.events(); i++) {
            add(sync, "official:" + i);
        }
        sync.updateStateUnconditionally(new Add("official-unconditional"));
        sync.fetchUpdates();
        sync.compact(state -> new Init(state.text));
        add(sync, "official-after-compact");
        sync.fetchUpdates();
        part.put("state", sync.getState().text);
        part.put("revision", sync.getState().getRevision().toString());
        part.put("bytes_since_compaction", sync.bytesWrittenSinceCompaction());
    }

    private static void readState(Run run, Part part, StateSynchronizer<Text> sync) {
        run.phase("sync-interop: reading the state");
        sync.fetchUpdates();
        part.check(sync.getState() != null, "no state in the log");
        if (sync.getState() == null) {
            return;
        }
        part.put("state", sync.getState().text);
        part.put("revision", sync.getState().getRevision().toString());
        add(sync, "official-read");
        part.put("revision_after", sync.getState().getRevision().toString());
        part.put("state_after", sync.getState().text);
    }

    private static void writeLog(Run run, Part part, RevisionedStreamClient<String> log) {
        run.phase("sync-interop: writing the revisioned stream");
        Revision start = log.fetchLatestRevision();
        Revision r = start;
        List<String> revisions = new ArrayList<>();
        for (int i = 0; i < run.options.events(); i++) {
            r = log.writeConditionally(r, "official-rev:" + i);
            if (!part.check(r != null, "conditional write " + i + " at the latest revision failed")) {
                return;
            }
            revisions.add(r.toString());
        }
        part.put("revisions", revisions);
        part.check(log.writeConditionally(start, "stale") == null, "a write at a stale revision succeeded");
        log.writeUnconditionally("official-rev-unconditional");
        Revision first = Revision.fromString(revisions.get(0));
        part.check(log.compareAndSetMark(null, first), "setting the mark failed");
        part.put("rev_mark", String.valueOf(log.getMark()));
        part.put("rev_latest", log.fetchLatestRevision().toString());
    }

    private static void readLog(Run run, Part part, RevisionedStreamClient<String> log) throws Exception {
        run.phase("sync-interop: reading the revisioned stream");
        List<String> values = new ArrayList<>();
        List<String> revisions = new ArrayList<>();
        Iterator<Map.Entry<Revision, String>> it = log.readFrom(log.fetchOldestRevision());
        while (it.hasNext()) {
            Map.Entry<Revision, String> e = it.next();
            values.add(e.getValue());
            revisions.add(e.getKey().toString());
        }
        part.put("values", values);
        part.put("revisions", revisions);
        part.put("rev_mark", String.valueOf(log.getMark()));
        Revision written = log.writeConditionally(log.fetchLatestRevision(), "official-rev-read");
        part.check(written != null, "a conditional write at the latest revision failed");
        part.put("rev_written", String.valueOf(written));
    }
}
