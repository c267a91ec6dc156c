package io.sluice.compat.official;

import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.pravega.client.SynchronizerClientFactory;
import io.pravega.client.admin.StreamManager;
import io.pravega.client.state.InitialUpdate;
import io.pravega.client.state.Revision;
import io.pravega.client.state.Revisioned;
import io.pravega.client.state.StateSynchronizer;
import io.pravega.client.state.SynchronizerConfig;
import io.pravega.client.state.Update;
import io.pravega.client.stream.impl.JavaSerializer;

/**
 * Part {@code synchronizer} of {@code verify}: two state synchronizers (separate client factories, i.e. separate
 * connections) share a small state, a map of counters. Both initialize (only the first takes effect), then update
 * it concurrently from two threads, {@value #UPDATES} conditional updates each plus one unconditional; both must
 * converge on the same state and revision. Then one compacts, and a third synchronizer started afterwards must see
 * the same state and be able to update it.
 */
final class SynchronizerPart {
    static final int UPDATES = 50;

    private SynchronizerPart() {
    }

    /** The shared state: counters by name, at a revision of the synchronizer's stream. Immutable. */
    static final class Counters implements Revisioned {
        private final String scopedStreamName;
        private final Revision revision;
        private final TreeMap<String, Long> counts;

        Counters(String scopedStreamName, Revision revision, Map<String, Long> counts) {
            this.scopedStreamName = scopedStreamName;
            this.revision = revision;
            this.counts = new TreeMap<>(counts);
        }

        @Override
        public String getScopedStreamName() {
            return scopedStreamName;
        }

        @Override
        public Revision getRevision() {
            return revision;
        }

        Map<String, Long> counts() {
            return new TreeMap<>(counts);
        }
    }

    /** Creates the state from a snapshot of counters (also used for compaction). */
    static final class Init implements InitialUpdate<Counters>, Serializable {
        private static final long serialVersionUID = 1L;
        private final TreeMap<String, Long> counts;

        Init(Map<String, Long> counts) {
            this.counts = new TreeMap<>(counts);
        }

        @Override
        public Counters create(String scopedStreamName, Revision revision) {
            return new Counters(scopedStreamName, revision, counts);
        }
    }

    /** Adds {@code delta} to one counter. */
    static final class Add implements Update<Counters>, Serializable {
        private static final long serialVersionUID = 1L;
        private final String name;
        private final long delta;

        Add(String name, long delta) {
            this.name = name;
            this.delta = delta;
        }

        @Override
        public Counters applyTo(Counters old, Revision revision) {
            Map<String, Long> next = old.counts();
            next.merge(name, delta, Long::sum);
            return new Counters(old.getScopedStreamName(), revision, next);
        }
    }

    static void run(Run run, Part part, StreamManager streamManager) throws Exception {
        Options o = run.options;
        String stream = run.name("-sync");
        part.put("stream", o.scope() + "/" + stream);
        part.put("updates_per_synchronizer", UPDATES);
        run.phase("synchronizer: creating stream " + stream);
        run.createStream(streamManager, stream, 1);
        SynchronizerConfig config = SynchronizerConfig.builder().build();
        try (SynchronizerClientFactory fa = SynchronizerClientFactory.withScope(o.scope(), run.config);
             SynchronizerClientFactory fb = SynchronizerClientFactory.withScope(o.scope(), run.config);
             StateSynchronizer<Counters> a = fa.createStateSynchronizer(stream, new JavaSerializer<Add>(),
                     new JavaSerializer<Init>(), config);
             StateSynchronizer<Counters> b = fb.createStateSynchronizer(stream, new JavaSerializer<Add>(),
                     new JavaSerializer<Init>(), config)) {
            run.phase("synchronizer: initialize");
            a.initialize(new Init(Map.of("total", 0L)));
            b.initialize(new Init(Map.of("total", 0L, "second-initialize", 1L)));
            b.fetchUpdates();
            part.checkEqual(Map.of("total", 0L), b.getState().counts(),
                    "state after the second initialize (which must not take effect)");

            run.phase("synchronizer: concurrent updates");
            AtomicInteger generatorCalls = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
                Thread t = new Thread(r, "synchronizer");
                t.setDaemon(true);
                return t;
            });
            long t0 = System.nanoTime();
            try {
                Future<?> fa1 = pool.submit(() -> update(a, "a", go, generatorCalls));
                Future<?> fb1 = pool.submit(() -> update(b, "b", go, generatorCalls));
                go.countDown();
                fa1.get(run.remainingNanos(), TimeUnit.NANOSECONDS);
                fb1.get(run.remainingNanos(), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                throw new IllegalStateException("a synchronizer's updates failed", e.getCause());
            } finally {
                pool.shutdownNow();
            }
            part.put("updates_ms", (System.nanoTime() - t0) / 1_000_000);
            part.put("conditional_retries", generatorCalls.get() - 2 * UPDATES);
            a.fetchUpdates();
            b.fetchUpdates();
            Map<String, Long> want = new TreeMap<>(Map.of("total", 2L * UPDATES, "a", (long) UPDATES,
                    "b", (long) UPDATES, "unconditional", 2L));
            part.checkEqual(want, a.getState().counts(), "state seen by the first synchronizer");
            part.checkEqual(want, b.getState().counts(), "state seen by the second synchronizer");
            part.checkEqual(a.getState().getRevision(), b.getState().getRevision(), "revisions of the two states");

            run.phase("synchronizer: compact and catch up");
            a.compact(state -> new Init(state.counts()));
            try (SynchronizerClientFactory fc = SynchronizerClientFactory.withScope(o.scope(), run.config);
                 StateSynchronizer<Counters> c = fc.createStateSynchronizer(stream, new JavaSerializer<Add>(),
                         new JavaSerializer<Init>(), config)) {
                c.fetchUpdates();
                part.checkEqual(want, c.getState() == null ? null : c.getState().counts(),
                        "state seen by a synchronizer started after compaction");
                StateSynchronizer.UpdateGenerator<Counters> addOne =
                        (state, updates) -> updates.add(new Add("total", 1));
                c.updateState(addOne);
                a.fetchUpdates();
                part.checkEqual(2L * UPDATES + 1, a.getState().counts().get("total"),
                        "total after an update from the third synchronizer");
            }
        }
    }

    private static Void update(StateSynchronizer<Counters> sync, String name, CountDownLatch go,
                               AtomicInteger generatorCalls) throws InterruptedException {
        go.await();
        StateSynchronizer.UpdateGenerator<Counters> generator = (state, updates) -> {
            generatorCalls.incrementAndGet();
            updates.add(new Add("total", 1));
            updates.add(new Add(name, 1));
        };
        for (int i = 0; i < UPDATES; i++) {
            sync.updateState(generator);
        }
        sync.updateStateUnconditionally(new Add("unconditional", 1));
        return null;
    }
}
