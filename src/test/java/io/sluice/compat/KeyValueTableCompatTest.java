package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import io.sluice.admin.KeyValueTableManager;
import io.sluice.common.Json;
import io.sluice.compat.BothServers.Target;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.errors.BadKeyVersionException;
import io.sluice.errors.NoSuchKeyException;
import io.sluice.table.Insert;
import io.sluice.table.KeyValueTable;
import io.sluice.table.KeyValueTableConfiguration;
import io.sluice.table.Put;
import io.sluice.table.Remove;
import io.sluice.table.TableEntry;
import io.sluice.table.TableKey;
import io.sluice.table.Version;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Key-value tables against the REAL Pravega 0.13, and interop with the OFFICIAL client's {@code KeyValueTable}
 * ({@code compat/official-client.sh kvt-interop}) both ways, on the real server and on Sluice's embedded server: each
 * reads what the other wrote, and versions from one's writes are used in the other's conditional updates.
 */
@CompatTest
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class KeyValueTableCompatTest {
    private static final Duration DRIVER_TIMEOUT = Duration.ofMinutes(3);
    private static final KeyValueTableConfiguration CONFIG = KeyValueTableConfiguration.builder().partitionCount(3)
            .primaryKeyLength(8).secondaryKeyLength(4).build();
    /** Primary keys in the interop runs; each has 3 secondary keys (the driver's {@code KvtInteropPart.SECONDARY}). */
    private static final int PRIMARY = 6;

    @RegisterExtension
    static final RealPravegaScope real = new RealPravegaScope("compat-kvt");

    private static BothServers servers;

    @BeforeAll
    static void start() throws Exception {
        OfficialClient.build();
        servers = new BothServers(real);
    }

    @AfterAll
    static void stop() {
        if (servers != null) {
            servers.close();
        }
    }

    static TableKey key(long i, int j) {
        return new TableKey(ByteBuffer.allocate(8).putLong(0, i), ByteBuffer.allocate(4).putInt(0, j));
    }

    static ByteBuffer value(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static String text(TableEntry e) {
        return StandardCharsets.UTF_8.decode(e.value()).toString();
    }

    @Test
    void everyOperationOnTheRealPravega() {
        KeyValueTableManager manager = real.client.keyValueTableManager();
        assertThat(manager.createKeyValueTable(real.scope, "ops", CONFIG)).isTrue();
        assertThat(manager.createKeyValueTable(real.scope, "ops", CONFIG)).isFalse();
        assertThatThrownBy(() -> manager.createKeyValueTable(real.scope, "ops", KeyValueTableConfiguration.builder()
                .partitionCount(1).primaryKeyLength(8).secondaryKeyLength(4).build()))
                .isInstanceOf(AlreadyExistsException.class);
        KeyValueTableConfiguration read = manager.getConfiguration(real.scope, "ops");
        assertThat(read.partitionCount()).isEqualTo(3);
        assertThat(read.primaryKeyLength()).isEqualTo(8);
        assertThat(read.secondaryKeyLength()).isEqualTo(4);
        assertThat(manager.listKeyValueTables(real.scope)).contains("ops");

        KeyValueTable t = real.client.keyValueTable(real.scope, "ops");
        Version v1 = t.update(new Put(key(1, 1), value("a")));
        assertThat(t.get(key(1, 1)).version()).isEqualTo(v1);
        assertThat(t.get(key(2, 2))).isNull();
        assertThatThrownBy(() -> t.update(new Insert(key(1, 1), value("b"))))
                .isInstanceOf(BadKeyVersionException.class);
        Version v2 = t.update(new Put(key(1, 1), value("b"), v1));
        assertThatThrownBy(() -> t.update(new Put(key(1, 1), value("c"), v1)))
                .isInstanceOf(BadKeyVersionException.class);
        assertThatThrownBy(() -> t.update(new Put(key(9, 9), value("c"), v1))).isInstanceOfAny(
                NoSuchKeyException.class, BadKeyVersionException.class);
        List<Version> batch = t.update(List.of(new Put(key(1, 2), value("x")), new Insert(key(1, 3), value("y"))));
        assertThatThrownBy(() -> t.update(List.of(new Put(key(1, 2), value("x2"), batch.get(0)),
                new Insert(key(1, 3), value("y2"))))).isInstanceOf(BadKeyVersionException.class);
        assertThat(text(t.get(key(1, 3)))).isEqualTo("y");
        List<TableEntry> all = t.getAll(List.of(key(1, 1), key(5, 5), key(1, 2)));
        assertThat(text(all.get(0))).isEqualTo("b");
        assertThat(all.get(1)).isNull();
        assertThat(text(all.get(2))).isEqualTo("x");
        for (long p = 10; p < 14; p++) {
            for (int s = 0; s < 12; s++) {
                t.update(new Put(key(p, s), value(p + "/" + s)));
            }
        }
        List<TableEntry> one = new ArrayList<>();
        t.iterator().maxIterationSize(5).forPrimaryKey(key(11, 0).primaryKey()).entries().forEachRemaining(one::add);
        assertThat(one).hasSize(12).allSatisfy(e -> assertThat(text(e)).startsWith("11/"));
        List<TableKey> range = new ArrayList<>();
        t.iterator().forRange(key(10, 0).primaryKey(), key(12, 0).primaryKey()).keys().forEachRemaining(range::add);
        assertThat(range).hasSize(36);
        t.update(new Remove(key(1, 1), v2));
        assertThat(t.exists(key(1, 1))).isFalse();
        assertThat(manager.deleteKeyValueTable(real.scope, "ops")).isTrue();
        assertThat(manager.listKeyValueTables(real.scope)).doesNotContain("ops");
    }

    private static Map<String, Object> driver(Target t, String table, String role) throws Exception {
        OfficialClient.Result result = OfficialClient.run("kvt-" + role + "-" + table,
                List.of("kvt-interop", "--role", role, "--controller", t.controllerUri(), "--scope", t.scope(),
                        "--stream", table, "--events", Integer.toString(PRIMARY),
                        "--timeout-seconds", Long.toString(DRIVER_TIMEOUT.toSeconds())),
                DRIVER_TIMEOUT.plusSeconds(60));
        String context = "official client kvt-interop --role " + role + " x " + t.name() + ": " + result.describe();
        assertThat(result.exitCode()).as(context).isZero();
        Map<String, Object> json = Json.parseObject(result.json());
        assertThat(json.get("ok")).as(context).isEqualTo(true);
        @SuppressWarnings("unchecked")
        Map<String, Object> part = (Map<String, Object>) json.get("kvt-interop");
        assertThat(part.get("ok")).as(context).isEqualTo(true);
        return part;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"real", "embedded"})
    void sluiceWritesTheOfficialClientReadsAndUpdatesOnSluicesVersions(String server) throws Exception {
        Target target = servers.target(server);
        String name = "from-sluice";
        assertThat(target.client().keyValueTableManager().createKeyValueTable(target.scope(), name, CONFIG)).isTrue();
        KeyValueTable t = target.client().keyValueTable(target.scope(), name);
        Map<String, String> written = new TreeMap<>();
        for (int i = 0; i < PRIMARY; i++) {
            for (int j = 0; j < 3; j++) {
                written.put(i + ":" + j, t.update(new Put(key(i, j), value("sluice:" + i + ":" + j))).toString());
            }
        }
        Map<String, Object> part = driver(target, name, "read");
        assertThat(part.get("versions")).as("the versions the official client read").isEqualTo(written);
        TableEntry e00 = t.get(key(0, 0));
        assertThat(text(e00)).isEqualTo("official-cond:0:0");
        assertThat(e00.version().toString()).isEqualTo(part.get("conditional_version"));
        Version stale = Version.fromString(written.get("0:0"));
        assertThatThrownBy(() -> t.update(new Put(key(0, 0), value("stale"), stale)))
                .isInstanceOf(BadKeyVersionException.class);
        assertThat(target.client().keyValueTableManager().deleteKeyValueTable(target.scope(), name)).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"real", "embedded"})
    void theOfficialClientWritesSluiceReadsAndUpdatesOnItsVersions(String server) throws Exception {
        Target target = servers.target(server);
        String name = "from-official";
        assertThat(target.client().keyValueTableManager().createKeyValueTable(target.scope(), name, CONFIG)).isTrue();
        Map<String, Object> part = driver(target, name, "write");
        @SuppressWarnings("unchecked")
        Map<String, Object> versions = (Map<String, Object>) part.get("versions");
        KeyValueTable t = target.client().keyValueTable(target.scope(), name);
        List<TableKey> keys = new ArrayList<>();
        for (int i = 0; i < PRIMARY; i++) {
            for (int j = 0; j < 3; j++) {
                keys.add(key(i, j));
            }
        }
        List<TableEntry> all = t.getAll(keys);
        for (int n = 0; n < keys.size(); n++) {
            int i = n / 3;
            int j = n % 3;
            assertThat(all.get(n)).as("key (%d, %d)", i, j).isNotNull();
            assertThat(text(all.get(n))).isEqualTo("official:" + i + ":" + j);
            assertThat(all.get(n).version().toString()).isEqualTo(versions.get(i + ":" + j));
        }
        Version official = Version.fromString((String) versions.get("1:0"));
        Version mine = t.update(new Put(key(1, 0), value("sluice-cond"), official));
        assertThat(mine).isNotEqualTo(official);
        assertThatThrownBy(() -> t.update(new Put(key(1, 0), value("stale"), official)))
                .isInstanceOf(BadKeyVersionException.class);
        List<TableEntry> iterated = new ArrayList<>();
        t.iterator().maxIterationSize(2).forPrimaryKey(key(2, 0).primaryKey()).entries()
                .forEachRemaining(iterated::add);
        assertThat(iterated).extracting(KeyValueTableCompatTest::text)
                .containsExactly("official:2:0", "official:2:1", "official:2:2");
        assertThat(target.client().keyValueTableManager().deleteKeyValueTable(target.scope(), name)).isTrue();
    }
}
