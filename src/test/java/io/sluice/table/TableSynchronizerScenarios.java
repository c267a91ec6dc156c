package io.sluice.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.client.SluiceClient;
import io.sluice.stream.Serializer;
import io.sluice.stream.Serializers;

/**
 * The table synchronizer as scenarios that run against any server: the embedded one ({@code TableSynchronizerTest})
 * and the real Pravega 0.13 ({@code TableSynchronizerCompatTest}). Keys are texts, values longs.
 */
public final class TableSynchronizerScenarios {
    /** A long as 8 big-endian bytes. */
    public static final Serializer<Long> LONGS = new Serializer<>() {
        @Override
        public ByteBuffer serialize(Long value) {
            return ByteBuffer.allocate(Long.BYTES).putLong(0, value);
        }

        @Override
        public Long deserialize(ByteBuffer bytes) {
            return bytes.getLong(bytes.position());
        }
    };
    private static final AtomicInteger NAMES = new AtomicInteger();

    private TableSynchronizerScenarios() {
    }

    private static TableSynchronizer<String, Long> open(SluiceClient client, String scope, String name) {
        return client.newTableSynchronizer(scope, name, Serializers.utf8(), LONGS);
    }

    private static String name(String what) {
        return what + "-" + NAMES.incrementAndGet() + "-" + Long.toHexString(System.nanoTime());
    }

    /** insert, get, snapshot, remove, seen by a second synchronizer through delta reads, removals included. */
    public static void insertGetRemoveAndFetch(SluiceClient client, String scope) {
        String name = name("basic");
        try (TableSynchronizer<String, Long> a = open(client, scope, name);
             TableSynchronizer<String, Long> b = open(client, scope, name)) {
            assertThat(a.scope()).isEqualTo(scope);
            assertThat(a.name()).isEqualTo(name);
            assertThat(a.snapshot()).isEmpty();
            assertThat(a.insert("x", 1L)).isTrue();
            assertThat(a.insert("y", 2L)).isTrue();
            assertThat(a.get("x")).contains(1L);
            assertThat(b.insert("x", 10L)).as("b fetched first and found x").isFalse();
            assertThat(b.get("x")).contains(1L);
            assertThat(b.snapshot()).isEqualTo(Map.of("x", 1L, "y", 2L));

            assertThat(b.remove("x")).isTrue();
            assertThat(b.remove("x")).isFalse();
            assertThat(b.remove("never")).isFalse();
            assertThat(a.get("x")).as("a has not fetched yet").contains(1L);
            a.fetchUpdates();
            assertThat(a.get("x")).as("the tombstone removes x from a's copy").isEmpty();
            assertThat(a.snapshot()).isEqualTo(Map.of("y", 2L));
            assertThat(a.insert("x", 3L)).as("a removed key can be inserted again").isTrue();
            b.fetchUpdates();
            assertThat(b.snapshot()).isEqualTo(Map.of("x", 3L, "y", 2L));
            assertThatThrownBy(() -> b.snapshot().put("z", 1L)).isInstanceOf(UnsupportedOperationException.class);

            try (TableSynchronizer<String, Long> fresh = open(client, scope, name)) {
                assertThat(fresh.snapshot()).as("a new synchronizer reads everything, tombstones dropped")
                        .isEqualTo(Map.of("x", 3L, "y", 2L));
            }
        }
    }

    /** update: increments, removals through null values, nothing written for an empty result. */
    public static void updates(SluiceClient client, String scope) {
        String name = name("update");
        try (TableSynchronizer<String, Long> a = open(client, scope, name);
             TableSynchronizer<String, Long> b = open(client, scope, name)) {
            assertThat(a.update(m -> Map.of("n", m.getOrDefault("n", 0L) + 1, "gone", 7L)))
                    .isEqualTo(Map.of("n", 1L, "gone", 7L));
            assertThat(b.update(m -> Map.of("n", m.get("n") + 1))).isEqualTo(Map.of("n", 2L, "gone", 7L));
            Map<String, Long> remove = new HashMap<>();
            remove.put("gone", null);
            remove.put("absent", null);
            assertThat(a.update(m -> remove)).isEqualTo(Map.of("n", 2L));
            b.fetchUpdates();
            assertThat(b.snapshot()).isEqualTo(Map.of("n", 2L));
            assertThat(b.update(m -> Map.of())).isEqualTo(Map.of("n", 2L));
            assertThat(b.update(m -> null)).isEqualTo(Map.of("n", 2L));
            assertThatThrownBy(() -> b.update(m -> {
                m.put("n", 5L);
                return Map.of();
            })).as("the function's map is read-only").isInstanceOf(UnsupportedOperationException.class);
        }
    }

    /**
     * A key the function read but did not write is part of the condition: when another synchronizer changes it
     * between the read and the write, the write fails, the function runs again on the new value.
     */
    public static void keysReadAreConditioned(SluiceClient client, String scope) {
        String name = name("read-set");
        try (TableSynchronizer<String, Long> a = open(client, scope, name);
             TableSynchronizer<String, Long> b = open(client, scope, name)) {
            a.insert("x", 1L);
            b.fetchUpdates();
            AtomicInteger calls = new AtomicInteger();
            a.update(m -> {
                long x = m.get("x");
                if (calls.incrementAndGet() == 1) {
                    b.update(other -> Map.of("x", other.get("x") + 10));
                }
                return Map.of("y", x + 1);
            });
            assertThat(calls.get()).as("the first write lost to b's").isEqualTo(2);
            assertThat(a.snapshot()).isEqualTo(Map.of("x", 11L, "y", 12L));

            calls.set(0);
            a.update(m -> {
                // reading an absent key conditions on its absence
                long z = m.containsKey("z") ? 100 : 0;
                if (calls.incrementAndGet() == 1) {
                    b.insert("z", 5L);
                }
                return Map.of("w", z);
            });
            assertThat(calls.get()).isEqualTo(2);
            assertThat(a.get("w")).contains(100L);

            calls.set(0);
            a.update(m -> {
                // iterating reads every key there
                long sum = m.values().stream().mapToLong(Long::longValue).sum();
                if (calls.incrementAndGet() == 1) {
                    b.update(other -> Map.of("y", 0L));
                }
                return Map.of("sum", sum);
            });
            assertThat(calls.get()).isEqualTo(2);
            assertThat(a.get("sum")).contains(11L + 0L + 5L + 100L);
        }
    }

    /**
     * {@code updaters} synchronizers each increment a shared counter and one of their own {@code increments} times,
     * all at once: every increment is applied exactly once.
     */
    public static void racingUpdatersNeverLoseAnIncrement(SluiceClient client, String scope, int updaters,
                                                          int increments) throws Exception {
        String name = name("race");
        List<TableSynchronizer<String, Long>> syncs = new ArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        try {
            for (int u = 0; u < updaters; u++) {
                syncs.add(open(client, scope, name));
            }
            try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> done = new ArrayList<>();
                for (int u = 0; u < updaters; u++) {
                    TableSynchronizer<String, Long> s = syncs.get(u);
                    String own = "own-" + u;
                    done.add(exec.submit(() -> {
                        for (int i = 0; i < increments; i++) {
                            s.update(m -> {
                                calls.incrementAndGet();
                                return Map.of("total", m.getOrDefault("total", 0L) + 1,
                                        own, m.getOrDefault(own, 0L) + 1);
                            });
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            }
            Map<String, Long> want = new HashMap<>();
            want.put("total", (long) updaters * increments);
            for (int u = 0; u < updaters; u++) {
                want.put("own-" + u, (long) increments);
            }
            for (TableSynchronizer<String, Long> s : syncs) {
                s.fetchUpdates();
                assertThat(s.snapshot()).isEqualTo(want);
            }
            assertThat(calls.get()).isGreaterThanOrEqualTo(updaters * increments);
        } finally {
            syncs.forEach(TableSynchronizer::close);
        }
    }

    /** Bad arguments get clear errors. */
    public static void badArguments(SluiceClient client, String scope) {
        assertThatThrownBy(() -> open(client, scope, "bad name")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("invalid");
        assertThatThrownBy(() -> client.newTableSynchronizer(scope, "x", null, LONGS))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("keySerializer");
        assertThatThrownBy(() -> client.newTableSynchronizer(scope, "x", Serializers.utf8(), null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("valueSerializer");
        try (TableSynchronizer<String, Long> s = open(client, scope, name("args"))) {
            assertThatThrownBy(() -> s.insert("", 1L)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("1 to 8191");
            assertThatThrownBy(() -> s.insert("k".repeat(8192), 1L)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("8192 bytes");
            assertThatThrownBy(() -> s.insert("k", null)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> s.get(null)).isInstanceOf(NullPointerException.class);
            Map<String, Long> many = new HashMap<>();
            for (int i = 0; i < 300; i++) {
                many.put("k" + i, (long) i);
            }
            assertThatThrownBy(() -> s.update(m -> many)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at most 255");
            assertThat(s.snapshot()).as("nothing of a refused update is written").isEmpty();
            assertThat(s.get("k1")).isEqualTo(Optional.empty());
        }
    }
}
