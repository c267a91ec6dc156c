package io.sluice.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.sluice.client.SluiceClient;
import io.sluice.errors.InvalidRequestException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.stream.Serializer;
import io.sluice.stream.Serializers;

/**
 * The public state synchronizer and revisioned stream client, as scenarios that run against any server: the embedded
 * one ({@code StateSynchronizerApiTest}) and the real Pravega 0.13 ({@code SynchronizerCompatTest}).
 *
 * <p>The state is a text, {@code "a,b,c"}; an update {@link Append}s one item. Both are written as UTF-8, the same
 * bytes the official client's driver writes for them ({@code sync-interop}).
 */
public final class SynchronizerScenarios {
    /** Appends an item to a comma-separated text. */
    public record Append(String item) implements Update<String> {
        @Override
        public String applyTo(String state) {
            return state.isEmpty() ? item : state + "," + item;
        }
    }

    /** UTF-8 text of an {@link Append}'s item. */
    public static final Serializer<Append> APPENDS = new Serializer<>() {
        @Override
        public ByteBuffer serialize(Append value) {
            return StandardCharsets.UTF_8.encode(value.item());
        }

        @Override
        public Append deserialize(ByteBuffer bytes) {
            return new Append(StandardCharsets.UTF_8.decode(bytes).toString());
        }
    };

    /** Where a scenario runs: a client, a scope on its server, and a way to create a one-segment stream there. */
    public record Env(SluiceClient client, String scope, Function<String, String> newStream) {
        StateSynchronizer<String, Append> sync(String stream) {
            return client.newStateSynchronizer(scope, stream, APPENDS, Serializers.utf8());
        }

        RevisionedStreamClient<String> log(String stream) {
            return client.newRevisionedStreamClient(scope, stream, Serializers.utf8());
        }
    }

    private SynchronizerScenarios() {
    }

    /** @return the items of a state, counted */
    public static Map<String, Integer> items(String state) {
        Map<String, Integer> counts = new TreeMap<>();
        if (!state.isEmpty()) {
            Arrays.stream(state.split(",")).forEach(i -> counts.merge(i, 1, Integer::sum));
        }
        return counts;
    }

    /** Two synchronizers: one initialize wins, updates of each are seen by the other, both agree on the revision. */
    public static void initializeUpdateAndFetch(Env env) {
        String stream = env.newStream().apply("basic");
        try (StateSynchronizer<String, Append> a = env.sync(stream);
             StateSynchronizer<String, Append> b = env.sync(stream)) {
            assertThat(a.state()).as("nothing read yet").isNull();
            assertThat(a.revision().offset()).isZero();
            assertThatThrownBy(() -> a.updateState(s -> List.of(new Append("x"))))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("initialize");
            assertThat(a.initialize("init")).isTrue();
            assertThat(a.state()).isEqualTo("init");
            assertThat(b.initialize("other")).as("the log already holds a state").isFalse();
            assertThat(b.state()).isEqualTo("init");

            assertThat(a.updateState(s -> List.of(new Append("a1"), new Append("a2")))).isEqualTo("init,a1,a2");
            assertThat(b.updateState(s -> List.of(new Append("b1")))).as("b fetched a's updates first")
                    .isEqualTo("init,a1,a2,b1");
            Revision before = b.revision();
            assertThat(b.updateState(s -> List.of())).as("an empty list writes nothing").isEqualTo("init,a1,a2,b1");
            assertThat(b.updateState(s -> null)).isEqualTo("init,a1,a2,b1");
            assertThat(b.revision()).isEqualTo(before);
            a.fetchUpdates();
            assertThat(a.state()).isEqualTo(b.state());
            assertThat(a.revision()).isEqualTo(b.revision());
            assertThat(a.revision().segment()).isEqualTo(env.scope() + "/" + stream + "/0.#epoch.0");
            assertThat(Revision.fromString(a.revision().toString())).isEqualTo(a.revision());

            a.updateStateUnconditionally(new Append("u1"));
            assertThat(a.state()).as("unconditional updates are applied by the next fetch").isEqualTo(b.state());
            a.updateStateUnconditionally(List.of(new Append("u2"), new Append("u3")));
            a.fetchUpdates();
            assertThat(a.state()).isEqualTo("init,a1,a2,b1,u1,u2,u3");
            assertThat(a.bytesWrittenSinceCompaction()).isEqualTo(a.revision().offset());
        }
    }

    /**
     * {@code writers} synchronizers race {@code updates} conditional updates each: every update is applied exactly
     * once and all of them end with the same state.
     */
    public static void racingUpdatesApplyEveryUpdateOnce(Env env, int writers, int updates) throws Exception {
        String stream = env.newStream().apply("race");
        List<StateSynchronizer<String, Append>> syncs = new ArrayList<>();
        AtomicInteger generated = new AtomicInteger();
        try {
            for (int w = 0; w < writers; w++) {
                syncs.add(env.sync(stream));
            }
            syncs.get(0).initialize("");
            try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> done = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    StateSynchronizer<String, Append> s = syncs.get(w);
                    int writer = w;
                    done.add(exec.submit(() -> {
                        for (int i = 0; i < updates; i++) {
                            String item = "w" + writer + "-" + i;
                            s.updateState(state -> {
                                generated.incrementAndGet();
                                return List.of(new Append(item));
                            });
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            }
            Map<String, Integer> want = new TreeMap<>();
            for (int w = 0; w < writers; w++) {
                for (int i = 0; i < updates; i++) {
                    want.put("w" + w + "-" + i, 1);
                }
            }
            for (StateSynchronizer<String, Append> s : syncs) {
                s.fetchUpdates();
                assertThat(items(s.state())).isEqualTo(want);
                assertThat(s.revision()).isEqualTo(syncs.get(0).revision());
            }
            assertThat(generated.get()).as("generators ran at least once per update").isGreaterThanOrEqualTo(
                    writers * updates);
        } finally {
            syncs.forEach(StateSynchronizer::close);
        }
    }

    /**
     * Compaction writes the full state, moves the mark and truncates the log: new synchronizers and one that lagged
     * behind the truncation read the state from the mark; a compactor returning null writes nothing.
     */
    public static void compactionTruncatesAndEveryoneStartsFromTheMark(Env env) {
        String stream = env.newStream().apply("compact");
        try (StateSynchronizer<String, Append> a = env.sync(stream);
             StateSynchronizer<String, Append> lagging = env.sync(stream);
             RevisionedStreamClient<String> raw = env.log(stream)) {
            a.initialize("s");
            lagging.fetchUpdates();
            for (int i = 0; i < 10; i++) {
                int n = i;
                a.updateState(s -> List.of(new Append("x" + n)));
            }
            assertThat(a.bytesWrittenSinceCompaction()).isPositive();
            assertThat(raw.getMark()).isNull();
            Revision before = a.revision();
            a.compact(s -> null);
            assertThat(a.revision()).as("a null compactor writes nothing").isEqualTo(before);
            assertThat(raw.getMark()).isNull();

            a.compact(s -> s);
            Revision mark = raw.getMark();
            assertThat(mark).as("the mark is where the full state starts").isEqualTo(before);
            assertThat(raw.fetchOldestRevision()).as("the log was truncated at the mark").isEqualTo(mark);
            assertThat(a.revision()).isGreaterThan(before);
            assertThat(a.bytesWrittenSinceCompaction()).isEqualTo(a.revision().offset() - mark.offset());
            assertThatThrownBy(() -> raw.readFrom(Revision.of(mark.segment(), 0)))
                    .isInstanceOf(SegmentTruncatedException.class);
            a.updateState(s -> List.of(new Append("after")));
            String want = "s,x0,x1,x2,x3,x4,x5,x6,x7,x8,x9,after";
            assertThat(a.state()).isEqualTo(want);

            try (StateSynchronizer<String, Append> fresh = env.sync(stream)) {
                fresh.fetchUpdates();
                assertThat(fresh.state()).isEqualTo(want);
                assertThat(fresh.revision()).isEqualTo(a.revision());
            }
            assertThat(lagging.revision()).as("lagging is behind the truncation").isLessThan(mark);
            lagging.fetchUpdates();
            assertThat(lagging.state()).isEqualTo(want);
            lagging.updateState(s -> List.of(new Append("lagging")));
            lagging.compact(s -> s + ",compacted");
            assertThat(lagging.state()).as("the compactor's state is the new state").isEqualTo(want
                    + ",lagging,compacted");
            a.fetchUpdates();
            assertThat(a.state()).isEqualTo(want + ",lagging,compacted");
            assertThat(raw.getMark()).isGreaterThan(mark);
        }
    }

    /** The revisioned stream client's operations and failures. */
    public static void revisionedStreamClient(Env env) {
        String stream = env.newStream().apply("log");
        try (RevisionedStreamClient<String> a = env.log(stream); RevisionedStreamClient<String> b = env.log(stream)) {
            Revision start = a.fetchLatestRevision();
            assertThat(start.offset()).isZero();
            assertThat(a.fetchOldestRevision()).isEqualTo(start);
            Revision r1 = a.writeConditionally(start, "one");
            assertThat(r1).isNotNull();
            assertThat(r1.offset()).as("an event: 8 header bytes and the value").isEqualTo(8 + 3);
            assertThat(b.writeConditionally(start, "stale")).as("someone wrote first").isNull();
            Revision r2 = b.writeConditionally(r1, "two");
            assertThat(r2).isNotNull().isGreaterThan(r1);
            a.writeUnconditionally("three");
            Revision end = a.fetchLatestRevision();
            assertThat(entries(b.readFrom(start))).containsExactly(Map.entry(r1, "one"), Map.entry(r2, "two"),
                    Map.entry(end, "three"));
            assertThat(entries(b.readFrom(r2))).containsExactly(Map.entry(end, "three"));
            assertThat(entries(b.readFrom(end))).isEmpty();

            assertThat(a.getMark()).isNull();
            assertThat(a.compareAndSetMark(r1, r2)).as("the mark is not r1").isFalse();
            assertThat(a.compareAndSetMark(null, r1)).isTrue();
            assertThat(b.getMark()).isEqualTo(r1);
            assertThat(b.compareAndSetMark(null, r2)).isFalse();
            assertThat(b.compareAndSetMark(r1, r2)).isTrue();
            assertThat(a.getMark()).isEqualTo(r2);

            a.truncateToRevision(r1);
            assertThat(b.fetchOldestRevision()).isEqualTo(r1);
            assertThatThrownBy(() -> b.readFrom(start)).isInstanceOf(SegmentTruncatedException.class);
            assertThat(entries(b.readFrom(r1))).containsExactly(Map.entry(r2, "two"), Map.entry(end, "three"));
            a.truncateToRevision(start);
            assertThat(b.fetchOldestRevision()).as("truncating below the start does nothing").isEqualTo(r1);
            assertThatThrownBy(() -> a.truncateToRevision(Revision.of(end.segment(), end.offset() + 100)))
                    .isInstanceOf(InvalidRequestException.class);

            Revision elsewhere = Revision.of(env.scope() + "/other/0.#epoch.0", 0);
            assertThatThrownBy(() -> a.readFrom(elsewhere)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not of this log's segment");
            assertThatThrownBy(() -> a.writeConditionally(elsewhere, "x")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> a.readFrom(Revision.of(end.segment(), end.offset() + 1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("beyond the end");
        }
    }

    private static List<Map.Entry<Revision, String>> entries(Iterator<Map.Entry<Revision, String>> it) {
        List<Map.Entry<Revision, String>> out = new ArrayList<>();
        it.forEachRemaining(e -> out.add(Map.entry(e.getKey(), e.getValue())));
        return out;
    }
}
