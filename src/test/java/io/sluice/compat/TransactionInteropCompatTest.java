package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import io.sluice.errors.TransactionFailedException;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.Transaction;
import io.sluice.stream.TransactionalEventStreamWriter;
import io.sluice.stream.TxnState;
import io.sluice.stream.WriterConfig;

/**
 * Transactions between Sluice's client and the OFFICIAL Pravega 0.13 client ({@code compat/official-client.sh
 * txn-interop}), in both directions, on both servers (the real Pravega 0.13 standalone and Sluice's embedded server
 * started here): the official client commits one transaction and aborts another, and Sluice reads exactly the
 * committed events and sees both final states by id; Sluice commits one and aborts another, and the official reader
 * reads exactly the committed events (each once, per key in order). A transaction whose lease runs out, either way:
 * the official client's process ends with it open, and Sluice sees it ABORTED and cannot commit it; Sluice's stops
 * pinging, and the official client sees it ABORTED and cannot commit it. A commit across a scale, either way: one
 * client writes a transaction, the stream is scaled, the other client commits it (a rolling transaction), and Sluice
 * reads it whole from the rolled segments. Events are {@code <writer>-<outcome>:k<i % 8>:<i>}.
 */
@CompatTest
@Timeout(value = 10, unit = TimeUnit.MINUTES)
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

    private static OfficialClient.Result driver(String name, Target target, Started server, String scope,
                                                String stream, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("txn-interop", "--controller",
                server.controllerUri().toString(), "--scope", scope, "--stream", stream, "--timeout-seconds", "120"));
        command.addAll(List.of(args));
        OfficialClient.Result result = OfficialClient.run(name + "-" + slug(target), command, PROCESS_TIMEOUT);
        assertThat(result.exitCode()).as("official txn-interop %s x %s: %s", args[1], target, result.describe())
                .isZero();
        return result;
    }

    private static String newStream(SluiceClient client, String name, int segments) {
        String scope = RealPravega.uniqueName("compat-txn-interop");
        client.streamManager().createScope(scope);
        client.streamManager().createStream(scope, name, StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(segments)).build());
        return scope;
    }

    /** Polls the controller (no pinger: not through a transaction object) until the transaction is ABORTED. */
    private static void awaitAborted(SluiceClient client, ScopedStream stream, UUID id) {
        io.sluice.controller.ControllerClient controller = io.sluice.client.ClientInternals.controller(client);
        io.sluice.common.Deadline deadline = io.sluice.common.Deadline.after(Duration.ofSeconds(90));
        TxnState state = controller.transactionState(stream, id);
        while (state != TxnState.ABORTED) {
            assertThat(deadline.expired()).as("transaction %s aborted after its lease (%s)", id, state).isFalse();
            assertThat(state).isIn(TxnState.OPEN, TxnState.ABORTING);
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
            state = controller.transactionState(stream, id);
        }
    }

    @ParameterizedTest(name = "an official transaction whose lease runs out x {0}")
    @MethodSource("targets")
    void aTransactionOfTheOfficialClientWhoseLeaseRunsOutEnds(Target target) throws Exception {
        try (Started server = target.start().call();
             SluiceClient client = SluiceClient.connect(server.controllerUri().toString())) {
            String scope = newStream(client, "lease-official", 2);
            ScopedStream stream = ScopedStream.of(scope, "lease-official");
            OfficialClient.Result open = driver("txn-interop-lease-official", target, server, scope,
                    stream.name(), "--action", "write-open", "--events", "40", "--lease-seconds", "10");
            UUID id = UUID.fromString(jsonString(open.json(), "open_txn"));
            awaitAborted(client, stream, id);
            try (TransactionalEventStreamWriter<String> tx = client.newTransactionalWriter(scope, stream.name(),
                    Serializers.utf8())) {
                Transaction<String> txn = tx.getTxn(id);
                assertThat(txn.status()).isEqualTo(TxnState.ABORTED);
                assertThatThrownBy(txn::commit).isInstanceOf(TransactionFailedException.class)
                        .hasMessageContaining("ABORTED");
            }
            assertThat(TransactionScenarios.readAll(client, stream, "nothing", 0)).isEmpty();
        }
    }

    @ParameterizedTest(name = "a Sluice transaction whose lease runs out x {0}")
    @MethodSource("targets")
    void aTransactionOfSluiceWhoseLeaseRunsOutCannotBeCommittedByTheOfficialClient(Target target)
            throws Exception {
        try (Started server = target.start().call();
             SluiceClient client = SluiceClient.connect(server.controllerUri().toString())) {
            String scope = newStream(client, "lease-sluice", 2);
            ScopedStream stream = ScopedStream.of(scope, "lease-sluice");
            UUID id;
            try (TransactionalEventStreamWriter<String> tx = client.newTransactionalWriter(scope, stream.name(),
                    Serializers.utf8(), WriterConfig.DEFAULT.withTransactionLease(Duration.ofSeconds(10)))) {
                Transaction<String> txn = tx.beginTxn();
                id = txn.id();
                for (int i = 0; i < 40; i++) {
                    txn.write("k" + (i % KEYS), event("sluice", "commit", i));
                }
                txn.flush();
                TransactionScenarios.stopPinging(txn);
                awaitAborted(client, stream, id);
            }
            OfficialClient.Result commit = driver("txn-interop-lease-sluice", target, server, scope, stream.name(),
                    "--action", "commit", "--txn", id.toString());
            String json = commit.json();
            assertThat(json).contains("\"status_before\":\"ABORTED\"", "\"commit_failed\":true",
                    "\"status_after\":\"ABORTED\"");
            assertThat(TransactionScenarios.readAll(client, stream, "nothing", 0)).isEmpty();
        }
    }

    @ParameterizedTest(name = "official writes, scale, Sluice commits x {0}")
    @MethodSource("targets")
    void anOfficialTransactionIsCommittedBySluiceAcrossAScale(Target target) throws Exception {
        try (Started server = target.start().call();
             SluiceClient client = SluiceClient.connect(server.controllerUri().toString())) {
            String scope = newStream(client, "scale-official", 2);
            ScopedStream stream = ScopedStream.of(scope, "scale-official");
            OfficialClient.Result open = driver("txn-interop-scale-official", target, server, scope, stream.name(),
                    "--action", "write-open", "--events", Integer.toString(EVENTS), "--lease-seconds", "120");
            UUID id = UUID.fromString(jsonString(open.json(), "open_txn"));
            split(client, stream);
            try (TransactionalEventStreamWriter<String> tx = client.newTransactionalWriter(scope, stream.name(),
                    Serializers.utf8())) {
                Transaction<String> txn = tx.getTxn(id);
                txn.commit();
                assertThat(txn.status()).isEqualTo(TxnState.COMMITTED);
            }
            assertReadWholeFromTheRolledSegments(client, stream, "official");
            // not checked: the official 0.13 reader reading the rolled stream back (it read nothing in 120 s, against
            // both servers, when tried; see the report of the branch that added this test)
        }
    }

    @ParameterizedTest(name = "Sluice writes, scale, official client commits x {0}")
    @MethodSource("targets")
    void aSluiceTransactionIsCommittedByTheOfficialClientAcrossAScale(Target target) throws Exception {
        try (Started server = target.start().call();
             SluiceClient client = SluiceClient.connect(server.controllerUri().toString())) {
            String scope = newStream(client, "scale-sluice", 2);
            ScopedStream stream = ScopedStream.of(scope, "scale-sluice");
            try (TransactionalEventStreamWriter<String> tx = client.newTransactionalWriter(scope, stream.name(),
                    Serializers.utf8())) {
                Transaction<String> txn = tx.beginTxn();
                for (int i = 0; i < EVENTS; i++) {
                    txn.write("k" + (i % KEYS), event("sluice", "commit", i));
                }
                txn.flush();
                split(client, stream);
                OfficialClient.Result commit = driver("txn-interop-scale-sluice", target, server, scope,
                        stream.name(), "--action", "commit", "--txn", txn.id().toString());
                assertThat(commit.json()).contains("\"status_before\":\"OPEN\"", "\"commit_failed\":false",
                        "\"status_after\":\"COMMITTED\"");
                assertThat(txn.status()).isEqualTo(TxnState.COMMITTED);
            }
            assertReadWholeFromTheRolledSegments(client, stream, "sluice");
            // not checked: the official 0.13 reader reading the rolled stream back (it read nothing in 120 s, against
            // both servers, when tried; see the report of the branch that added this test)
        }
    }

    /** Splits segment 1 (the upper half) of a two-segment stream in two. */
    private static void split(SluiceClient client, ScopedStream stream) {
        io.sluice.stream.Segment upper = client.streamManager().currentSegments(stream.scope(), stream.name())
                .stream().filter(r -> r.high() == 1.0).findFirst().orElseThrow().segment();
        assertThat(client.streamManager().scaleStream(stream.scope(), stream.name(), List.of(upper),
                List.of(new io.sluice.stream.KeyRange(0.5, 0.75), new io.sluice.stream.KeyRange(0.75, 1.0))))
                .hasSize(2);
    }

    /** The committed events, exactly once and per key in order, from the copies of epoch 0 the commit rolled to. */
    private static void assertReadWholeFromTheRolledSegments(SluiceClient client, ScopedStream stream, String writer) {
        List<TransactionScenarios.Read> read = TransactionScenarios.readAll(client, stream, "sluice-reads", EVENTS);
        List<String> events = read.stream().map(TransactionScenarios.Read::event).toList();
        assertThat(events).containsExactlyInAnyOrderElementsOf(committed(writer));
        assertPerKeyOrder(events);
        String prefix = stream.scopedName() + "/";
        assertThat(read).extracting(r -> r.segment().qualifiedName().substring(prefix.length())).as("segments")
                .containsOnly("0.#epoch.2", "1.#epoch.2");
    }
}
