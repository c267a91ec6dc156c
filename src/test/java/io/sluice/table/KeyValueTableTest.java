package io.sluice.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.admin.KeyValueTableManager;
import io.sluice.client.ClientConfig;
import io.sluice.client.ClientInternals;
import io.sluice.client.SluiceClient;
import io.sluice.connection.FaultProxy;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.errors.BadKeyVersionException;
import io.sluice.errors.NoSuchKeyException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.server.EmbeddedServer;
import io.sluice.testing.SluiceInject;
import io.sluice.testing.SluiceTest;
import io.sluice.wire.WireCommandType;

/** The key-value table API and its manager against the embedded server. */
@Timeout(120)
@SluiceTest
class KeyValueTableTest {
    private static final String SCOPE = "kvtscope";
    private static final KeyValueTableConfiguration CONFIG = KeyValueTableConfiguration.builder().partitionCount(4)
            .primaryKeyLength(8).secondaryKeyLength(4).build();

    @SluiceInject
    private static EmbeddedServer server;
    @SluiceInject
    private static SluiceClient client;
    private static KeyValueTableManager manager;

    @BeforeAll
    static void start() {
        client.streamManager().createScope(SCOPE);
        manager = client.keyValueTableManager();
    }

    private static KeyValueTable table(String name) {
        assertThat(manager.createKeyValueTable(SCOPE, name, CONFIG)).isTrue();
        return client.keyValueTable(SCOPE, name);
    }

    static ByteBuffer pk(long n) {
        return ByteBuffer.allocate(8).putLong(0, n);
    }

    static ByteBuffer sk(int n) {
        return ByteBuffer.allocate(4).putInt(0, n);
    }

    static TableKey key(long p, int s) {
        return new TableKey(pk(p), sk(s));
    }

    static ByteBuffer value(String v) {
        return ByteBuffer.wrap(v.getBytes(StandardCharsets.UTF_8));
    }

    static String text(TableEntry e) {
        return StandardCharsets.UTF_8.decode(e.value()).toString();
    }

    /**
     * A conditional put whose reply is lost with its connection is sent again and meets its own change as a stale
     * version: the exception must say the change may be in (it is), not that nothing changed, or a caller counting
     * its updates applies this one twice (found by the reliability suite's table check, docs/reliability.md). A
     * plain conflict still says nothing changed.
     */
    @Test
    void aConditionalPutWhoseReplyIsLostSaysItMayHaveBeenApplied() throws Exception {
        assertThat(manager.createKeyValueTable(SCOPE, "lostreply", CONFIG)).isTrue();
        try (FaultProxy proxy = new FaultProxy(server.segmentStoreEndpoint());
             SluiceClient routed = ClientInternals.connectRouted(ClientConfig.of(server.controllerUri()),
                     e -> proxy.endpoint());
             KeyValueTable t = routed.keyValueTable(SCOPE, "lostreply")) {
            TableKey k = key(1, 1);
            Version first = t.update(new Put(k, value("a")));
            Version second = t.update(new Put(k, value("b")));
            assertThatThrownBy(() -> t.update(new Put(k, value("x"), first)))
                    .isInstanceOfSatisfying(BadKeyVersionException.class, e -> {
                        assertThat(e.possiblyApplied()).isFalse();
                        assertThat(e).hasMessageContaining("nothing was changed");
                    });
            assertThat(text(t.get(k))).isEqualTo("b");

            proxy.cutBeforeReply(WireCommandType.TABLE_ENTRIES_UPDATED.code());
            assertThatThrownBy(() -> t.update(new Put(k, value("c"), second)))
                    .isInstanceOfSatisfying(BadKeyVersionException.class, e -> {
                        assertThat(e.possiblyApplied()).as("an attempt went unanswered").isTrue();
                        assertThat(e).hasMessageContaining("may have been applied");
                    });
            assertThat(proxy.cutBeforeReplyArmed()).as("the put's reply was cut").isFalse();
            assertThat(text(t.get(k))).as("the lost attempt's change is in").isEqualTo("c");
        }
    }

    @Test
    void putGetInsertRemoveWithVersions() {
        KeyValueTable t = table("ops");
        assertThat(t.configuration()).isEqualTo(CONFIG);
        assertThat(t.get(key(1, 1))).isNull();
        assertThat(t.exists(key(1, 1))).isFalse();

        Version v1 = t.update(new Put(key(1, 1), value("a")));
        TableEntry e = t.get(key(1, 1));
        assertThat(text(e)).isEqualTo("a");
        assertThat(e.version()).isEqualTo(v1);
        assertThat(e.key()).isEqualTo(key(1, 1));
        assertThat(t.exists(key(1, 1))).isTrue();
        assertThat(Version.fromString(v1.toString())).isEqualTo(v1);

        assertThatThrownBy(() -> t.update(new Insert(key(1, 1), value("b"))))
                .isInstanceOf(BadKeyVersionException.class);
        Version v2 = t.update(new Put(key(1, 1), value("b"), v1));
        assertThat(v2).isNotEqualTo(v1);
        assertThatThrownBy(() -> t.update(new Put(key(1, 1), value("c"), v1)))
                .isInstanceOf(BadKeyVersionException.class);
        assertThat(text(t.get(key(1, 1)))).isEqualTo("b");
        assertThatThrownBy(() -> t.update(new Remove(key(1, 1), v1))).isInstanceOf(BadKeyVersionException.class);
        assertThat(t.update(new Remove(key(1, 1), v2))).isNull();
        assertThat(t.get(key(1, 1))).isNull();
        assertThatThrownBy(() -> t.update(new Put(key(1, 1), value("d"), v2))).isInstanceOf(NoSuchKeyException.class);
        assertThatThrownBy(() -> t.update(new Remove(key(1, 1), v2))).isInstanceOf(NoSuchKeyException.class);
        t.update(new Remove(key(1, 1)));   // unconditional removal of a missing key: no error

        Version v3 = t.update(new Insert(key(1, 1), value("e")));
        assertThat(text(t.get(key(1, 1)))).isEqualTo("e");
        Version foreign = new Version(v3.segmentId() + 1, v3.segmentVersion());
        assertThatThrownBy(() -> t.update(new Put(key(1, 1), value("f"), foreign)))
                .isInstanceOf(BadKeyVersionException.class).hasMessageContaining("segment");
        assertThat(text(t.get(key(1, 1)))).isEqualTo("e");
    }

    @Test
    void getAllKeepsOrderWithNullsAcrossPartitions() {
        KeyValueTable t = table("getall");
        List<TableKey> keys = new ArrayList<>();
        Set<Long> segments = new HashSet<>();
        for (int i = 0; i < 40; i++) {
            keys.add(key(i, 0));
            if (i % 2 == 0) {
                segments.add(t.update(new Put(key(i, 0), value("v" + i))).segmentId());
            }
        }
        assertThat(segments).as("40 primary keys spread over the 4 partitions").hasSize(4);
        List<TableEntry> all = t.getAll(keys);
        assertThat(all).hasSize(40);
        for (int i = 0; i < 40; i++) {
            if (i % 2 == 0) {
                assertThat(text(all.get(i))).isEqualTo("v" + i);
                assertThat(all.get(i).key()).isEqualTo(key(i, 0));
            } else {
                assertThat(all.get(i)).isNull();
            }
        }
    }

    @Test
    void batchIsAtomicForOnePrimaryKeyAndRefusedOtherwise() {
        KeyValueTable t = table("batch");
        List<Version> vs = t.update(List.of(new Put(key(7, 1), value("x")), new Insert(key(7, 2), value("y"))));
        assertThat(vs).hasSize(2);
        assertThat(vs.get(0).segmentId()).isEqualTo(vs.get(1).segmentId());
        // one failing condition: nothing changes
        assertThatThrownBy(() -> t.update(List.of(new Put(key(7, 1), value("x2"), vs.get(0)),
                new Insert(key(7, 2), value("y2"))))).isInstanceOf(BadKeyVersionException.class);
        assertThat(text(t.get(key(7, 1)))).isEqualTo("x");
        assertThat(text(t.get(key(7, 2)))).isEqualTo("y");

        assertThatThrownBy(() -> t.update(List.of(new Put(key(7, 1), value("a")), new Put(key(8, 1), value("b")))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("primary key");
        assertThatThrownBy(() -> t.update(List.of(new Put(key(7, 1), value("a")), new Remove(key(7, 2)))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("removals");
        assertThat(t.get(key(8, 1))).isNull();

        assertThatThrownBy(() -> t.update(List.of(new Remove(key(7, 1), vs.get(0)), new Remove(key(7, 2), vs.get(0)))))
                .isInstanceOf(BadKeyVersionException.class);
        assertThat(t.exists(key(7, 1))).isTrue();
        List<Version> removed = t.update(List.of(new Remove(key(7, 1), vs.get(0)), new Remove(key(7, 2), vs.get(1))));
        assertThat(removed).hasSize(2).containsOnlyNulls();
        assertThat(t.getAll(List.of(key(7, 1), key(7, 2)))).containsOnlyNulls();
        assertThat(t.update(List.of())).isEmpty();
    }

    @Test
    void wrongKeyLengthsAreRefused() {
        KeyValueTable t = table("lengths");
        assertThatThrownBy(() -> t.get(new TableKey(ByteBuffer.allocate(7), sk(1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("primary key of 7 bytes");
        assertThatThrownBy(() -> t.update(new Put(new TableKey(pk(1)), value("v"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("secondary key of 0 bytes");
        assertThatThrownBy(() -> t.iterator().maxIterationSize(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> t.iterator().forPrefix(ByteBuffer.allocate(9)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> t.iterator().forRange(pk(5), pk(4))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Version.fromString("12")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void iteratesByPrimaryKeyPrefixAndRange() {
        KeyValueTable t = table("iter");
        for (long p = 0; p < 6; p++) {
            for (int s = 0; s < 25; s++) {
                t.update(new Put(key(p, s), value(p + "/" + s)));
            }
        }
        List<TableEntry> one = drain(t.iterator().maxIterationSize(7).forPrimaryKey(pk(3)).entries());
        assertThat(one).hasSize(25);
        for (int s = 0; s < 25; s++) {
            assertThat(text(one.get(s))).isEqualTo("3/" + s);
            assertThat(one.get(s).version()).isEqualTo(t.get(key(3, s)).version());
        }
        List<TableKey> some = drain(t.iterator().forPrimaryKey(pk(2), sk(5), sk(9)).keys());
        assertThat(some).containsExactly(key(2, 5), key(2, 6), key(2, 7), key(2, 8), key(2, 9));

        assertThat(drain(t.iterator().forRange(pk(1), pk(3)).keys())).hasSize(75)
                .allSatisfy(k -> assertThat(k.primaryKey().getLong(0)).isBetween(1L, 3L));
        assertThat(drain(t.iterator().maxIterationSize(100).forRange(null, null).entries())).hasSize(150);
        ByteBuffer prefix = ByteBuffer.allocate(7);   // seven zero bytes: primary keys 0..255
        assertThat(drain(t.iterator().forPrefix(prefix).keys())).hasSize(150);
        assertThat(drain(t.iterator().forPrimaryKey(pk(99)).entries())).isEmpty();
    }

    @Test
    void managerCreatesIdempotentlyRefusesOtherConfigurationsListsAndDeletes() {
        assertThat(manager.createKeyValueTable(SCOPE, "managed", CONFIG)).isTrue();
        assertThat(manager.createKeyValueTable(SCOPE, "managed", CONFIG)).isFalse();
        KeyValueTableConfiguration other = KeyValueTableConfiguration.builder().partitionCount(2).primaryKeyLength(8)
                .secondaryKeyLength(4).build();
        assertThatThrownBy(() -> manager.createKeyValueTable(SCOPE, "managed", other))
                .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("another configuration");
        assertThat(manager.getConfiguration(SCOPE, "managed")).isEqualTo(CONFIG);
        assertThat(manager.listKeyValueTables(SCOPE)).contains("managed");
        KeyValueTable t = client.keyValueTable(SCOPE, "managed");
        t.update(new Put(key(1, 1), value("v")));
        assertThat(manager.deleteKeyValueTable(SCOPE, "managed")).isTrue();
        assertThat(manager.listKeyValueTables(SCOPE)).doesNotContain("managed");
        assertThat(manager.deleteKeyValueTable(SCOPE, "managed")).isFalse();
        assertThatThrownBy(() -> client.keyValueTable(SCOPE, "managed")).isInstanceOf(NoSuchStreamException.class);
    }

    static <T> List<T> drain(Iterator<T> it) {
        List<T> out = new ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }
}
