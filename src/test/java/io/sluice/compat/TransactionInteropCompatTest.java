package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.sluice.client.SluiceClient;
import io.sluice.client.TransactionScenarios;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.Transaction;
import io.sluice.stream.TransactionalEventStreamWriter;
import io.sluice.stream.TxnState;

/**
 * Transactions between Sluice's client and the OFFICIAL Pravega 0.13 client ({@code compat/official-client.sh
 * txn-interop}), in both directions, on both servers (the real Pravega 0.13 standalone and Sluice's embedded server
 * started here): the official client commits one transaction and aborts another, and Sluice reads exactly the
 * committed events and sees both final states by id; Sluice commits one and aborts another, and the official reader
 * reads exactly the committed events (each once, per key in order). Events are {@code <writer>-<outcome>:k<i % 8>:<i>}.
 */
@CompatTest
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class TransactionInteropCompatTest {
    private static final int EVENTS = 400;
    private static final int KEYS = 8;
    private static final Duration PROCESS_TIMEOUT = Duration.ofSeconds(150);

    /** One server: its controller URI and what stops it (nothing for the real Pravega). */
    record Target(String name, Callable<Started> start) {
        @Override
        public String toString() {
            return name;
        }
    }

    record Started(URI controllerUri, AutoCloseable owner) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            owner.close();
        }
    }

    static Stream<Target> targets() {
        return Stream.of(
                new Target("real Pravega 0.13 standalone", () -> new Started(RealPravega.controllerUri(), () -> { })),
                new Target("Sluice embedded server", () -> {
                    EmbeddedServer server = EmbeddedServer.builder().inMemory().build();
                    return new Started(URI.create(server.controllerUri()), server);
                }));
    }

    @BeforeAll
    static void buildDriver() throws Exception {
        OfficialClient.build();
    }

    private static String event(String writer, String outcome, int i) {
        return writer + "-" + outcome + ":k" + (i % KEYS) + ":" + i;
    }

    private static List<String> committed(String writer) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < EVENTS; i++) {
            out.add(event(writer, "commit", i));
        }
        return out;
    }

    private static String jsonString(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":\"([^\"]*)\"").matcher(json);
        assertThat(m.find()).as("%s in %s", key, json).isTrue();
        return m.group(1);
    }

    @ParameterizedTest(name = "official client writes, Sluice reads x {0}")
    @MethodSource("targets")
    void aTransactionOfTheOfficialClientIsReadBySluice(Target target) throws Exception {
        try (Started server = target.start().call();
             SluiceClient client = SluiceClient.connect(server.controllerUri().toString())) {
            String scope = RealPravega.uniqueName("compat-txn-interop");
            client.streamManager().createScope(scope);
            client.streamManager().createStream(scope, "from-official", StreamConfiguration.builder()
                    .scalingPolicy(ScalingPolicy.fixed(3)).build());

            OfficialClient.Result result = OfficialClient.run("txn-interop-write-" + slug(target), List.of(
                    "txn-interop", "--action", "write", "--controller", server.controllerUri().toString(),
                    "--scope", scope, "--stream", "from-official", "--events", Integer.toString(EVENTS),
                    "--timeout-seconds", "120"), PROCESS_TIMEOUT);
            String context = "official txn-interop write x " + target + ": " + result.describe();
            assertThat(result.exitCode()).as(context).isZero();
            String json = result.json();
            UUID committedId = UUID.fromString(jsonString(json, "committed_txn"));
            UUID abortedId = UUID.fromString(jsonString(json, "aborted_txn"));

            List<String> read = TransactionScenarios.readAll(client, ScopedStream.of(scope, "from-official"),
                    "sluice-reads", EVENTS).stream().map(TransactionScenarios.Read::event).toList();
            assertThat(read).as("exactly the committed events, none of the aborted")
                    .containsExactlyInAnyOrderElementsOf(committed("official"));
            assertPerKeyOrder(read);
            try (TransactionalEventStreamWriter<String> tx = client.newTransactionalWriter(scope, "from-official",
                    Serializers.utf8())) {
                assertThat(tx.getTxn(committedId).status()).isEqualTo(TxnState.COMMITTED);
                assertThat(tx.getTxn(abortedId).status()).isEqualTo(TxnState.ABORTED);
            }
        }
    }

    @ParameterizedTest(name = "Sluice writes, official client reads x {0}")
    @MethodSource("targets")
    void aTransactionOfSluiceIsReadByTheOfficialClient(Target target) throws Exception {
        try (Started server = target.start().call();
             SluiceClient client = SluiceClient.connect(server.controllerUri().toString())) {
            String scope = RealPravega.uniqueName("compat-txn-interop");
            client.streamManager().createScope(scope);
            client.streamManager().createStream(scope, "from-sluice", StreamConfiguration.builder()
                    .scalingPolicy(ScalingPolicy.fixed(3)).build());
            try (TransactionalEventStreamWriter<String> tx = client.newTransactionalWriter(scope, "from-sluice",
                    Serializers.utf8())) {
                Transaction<String> commit = tx.beginTxn();
                Transaction<String> abort = tx.beginTxn();
                for (int i = 0; i < EVENTS; i++) {
                    commit.write("k" + (i % KEYS), event("sluice", "commit", i));
                    abort.write("k" + (i % KEYS), event("sluice", "abort", i));
                }
                abort.flush();
                abort.abort();
                commit.commit();
            }

            OfficialClient.Result result = OfficialClient.run("txn-interop-read-" + slug(target), List.of(
                    "txn-interop", "--action", "read", "--controller", server.controllerUri().toString(),
                    "--scope", scope, "--stream", "from-sluice", "--events", Integer.toString(EVENTS),
                    "--timeout-seconds", "120"), PROCESS_TIMEOUT);
            String context = "official txn-interop read x " + target + ": " + result.describe();
            assertThat(result.exitCode()).as(context).isZero();
            assertThat(result.json()).as(context).contains("\"read\":" + EVENTS);
        }
    }

    private static String slug(Target target) {
        return target.name().toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
    }

    private static void assertPerKeyOrder(List<String> read) {
        Map<String, Integer> last = new HashMap<>();
        for (String e : read) {
            String[] f = e.split(":");
            int i = Integer.parseInt(f[2]);
            Integer before = last.put(f[1], i);
            assertThat(before == null || before < i).as("%s after index %s of its key", e, before).isTrue();
        }
    }
}
