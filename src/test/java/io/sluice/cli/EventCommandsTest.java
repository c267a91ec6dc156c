package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import io.sluice.client.ClientInternals;
import io.sluice.client.SluiceClient;
import io.sluice.controller.ControllerClient;
import io.sluice.server.EmbeddedServer;
import io.sluice.server.controller.PasswordFile;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.StreamConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice write}, {@code read}, {@code bench} and {@code demo} against an in-memory embedded server: lines from
 * a given standard input written and read back (temporary and named reader groups, head and tail, --max, the idle
 * timeout), the workload's JSON and text, and the errors of bad arguments.
 */
@Timeout(120)
class EventCommandsTest {
    private static EmbeddedServer server;
    private static SluiceClient client;
    private static ControllerClient controller;

    private final Map<String, String> env = new HashMap<>();

    /** What one run of the command line did. */
    private record Run(int status, String out, String err) {
    }

    @BeforeAll
    static void start() {
        server = EmbeddedServer.builder().inMemory().build();
        client = SluiceClient.connect(server.controllerUri());
        controller = ClientInternals.controller(client);
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    /** Runs the command line with {@code stdin} as standard input, against the embedded server. */
    private Run run(String stdin, String... args) {
        env.put(ControllerOptions.ENV_CONTROLLER, server.controllerUri());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Main main = new Main(ControllerClientFactory.GRPC, env::get,
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        int status = Main.run(main, new PrintWriter(out), new PrintWriter(err), args);
        return new Run(status, out.toString(), err.toString());
    }

    private static void createStream(String scope, String stream, int segments) {
        controller.createScope(scope);
        client.streamManager().createStream(scope, stream, StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(segments)).build());
    }

    /** Re-checks a condition nothing can signal (a group another thread creates), parking briefly in between. */
    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waiting until " + what).isNegative();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    private static boolean hasReaderGroupStream(String scope, String prefix) {
        return controller.listStreams(scope).stream().anyMatch(s -> s.name().startsWith("_RG" + prefix));
    }

    @Test
    void writeLinesThenReadThemBack() {
        createStream("rw", "lines", 2);
        Run write = run("alpha\nbeta\n\ngrüße\n", "write", "rw/lines", "--key", "k1");
        assertThat(write.status()).isZero();
        assertThat(write.out()).isEqualTo("4 events written to rw/lines\n");
        assertThat(write.err()).isEmpty();
        Run json = run("last\n", "write", "rw/lines", "--key", "k1", "--json");
        assertThat(json.out()).isEqualTo("{\"stream\":\"rw/lines\",\"written\":1}\n");

        // no --group: a temporary group, deleted at exit; ends once nothing arrived for --timeout
        Run all = run("", "read", "rw/lines", "--timeout", "2s");
        assertThat(all.status()).isZero();
        assertThat(all.out()).isEqualTo("alpha\nbeta\n\ngrüße\nlast\n");
        assertThat(all.err()).isEmpty();
        assertThat(hasReaderGroupStream("rw", "")).as("temporary groups are deleted").isFalse();

        Run two = run("", "read", "rw/lines", "--max", "2");
        assertThat(two.out()).isEqualTo("alpha\nbeta\n");

        Run events = run("", "read", "rw/lines", "--max", "1", "--json");
        assertThat(events.out()).startsWith("{\"event\":\"alpha\",\"pointer\":\"rw/lines/").endsWith("}\n");
        assertThat(hasReaderGroupStream("rw", "")).isFalse();
    }

    @Test
    void namedGroupContinuesWhereItStoppedAndIsKept() {
        createStream("grp", "lines", 1);
        assertThat(run("one\ntwo\nthree\nfour\n", "write", "grp/lines").status()).isZero();

        assertThat(run("", "read", "grp/lines", "--group", "tail-readers", "--max", "2").out())
                .isEqualTo("one\ntwo\n");
        Run next = run("", "read", "grp/lines", "--group", "tail-readers", "--max", "1", "--from", "head");
        assertThat(next.out()).isEqualTo("three\n");
        assertThat(next.err()).contains("reader group 'tail-readers' exists: continuing where it stopped");
        assertThat(run("", "read", "grp/lines", "--group", "tail-readers", "--timeout", "1s").out())
                .isEqualTo("four\n");
        assertThatCode(() -> client.readerGroupManager("grp").readerGroup("tail-readers").close())
                .doesNotThrowAnyException();
    }

    @Test
    void fromTailReadsOnlyNewEvents() throws Exception {
        createStream("tail", "lines", 3);
        assertThat(run("old-1\nold-2\n", "write", "tail/lines", "--key", "k").status()).isZero();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<Run> reading = threads.submit(() -> run("", "read", "tail/lines", "--from", "tail", "--max", "2",
                    "--timeout", "60s"));
            // the group's start (the tail) is fixed before its state stream exists
            await("the temporary reader group exists", () -> hasReaderGroupStream("tail", "sluice-read-"));
            assertThat(run("new-1\nnew-2\n", "write", "tail/lines", "--key", "k").status()).isZero();
            Run read = reading.get(60, TimeUnit.SECONDS);
            assertThat(read.status()).isZero();
            assertThat(read.out()).isEqualTo("new-1\nnew-2\n");
        }
        await("the temporary reader group is deleted", () -> !hasReaderGroupStream("tail", ""));
    }

    @Test
    void readingASealedStreamEndsAtItsEnd() {
        createStream("sealed", "lines", 2);
        assertThat(run("a\nb\n", "write", "sealed/lines", "--key", "k").status()).isZero();
        client.streamManager().sealStream("sealed", "lines");
        // --timeout is far away: the end of the sealed stream ends the command, also with --follow
        Run read = run("", "read", "sealed/lines", "--follow", "--timeout", "60s");
        assertThat(read.status()).isZero();
        assertThat(read.out()).isEqualTo("a\nb\n");

        Run tail = run("", "read", "sealed/lines", "--from", "tail");
        assertThat(tail.status()).isEqualTo(1);
        assertThat(tail.err()).isEqualTo("sluice read: stream 'sealed/lines' is sealed: no new events will come "
                + "(read what it holds with --from head)\n");
    }

    @Test
    void missingScopesStreamsAndForeignGroupsFail() {
        Run noScope = run("x\n", "write", "nosuchscope/lines");
        assertThat(noScope.status()).isEqualTo(1);
        assertThat(noScope.err()).isEqualTo("sluice write: scope 'nosuchscope' does not exist\n");

        createStream("other", "lines", 1);
        Run noStream = run("", "read", "other/nothing", "--json");
        assertThat(noStream.status()).isEqualTo(1);
        assertThat(noStream.err()).startsWith("sluice read: ").contains("other/nothing");
        assertThat(noStream.out()).startsWith("{\"error\":{\"code\":\"not-found\"");

        createStream("other", "second", 1);
        client.readerGroupManager("other").createReaderGroup("firsts", ReaderGroupConfig.builder()
                .stream(ScopedStream.of("other", "lines")).build()).close();
        Run foreign = run("", "read", "other/second", "--group", "firsts");
        assertThat(foreign.status()).isEqualTo(1);
        assertThat(foreign.err()).startsWith("sluice read: reader group 'firsts' does not read other/second");
    }

    @Test
    void badArgumentsAreUsageErrors() {
        Run scoped = run("x\n", "write", "no-slash");
        assertThat(scoped.status()).isEqualTo(2);
        assertThat(scoped.err()).contains("'no-slash' is not a scoped stream name: expected scope/stream",
                "Try 'sluice write --help'");

        Run from = run("", "read", "a/b", "--from", "middle");
        assertThat(from.status()).isEqualTo(2);
        assertThat(from.err()).startsWith("sluice read: --from must be head or tail, but is 'middle'");

        assertThat(run("", "read", "a/b", "--max", "0").err()).startsWith("sluice read: --max must be at least 1");

        Run size = run("", "demo", "--size", "4");
        assertThat(size.status()).isEqualTo(2);
        assertThat(size.err()).startsWith("sluice demo: --size must be at least 8 bytes").contains("is 4",
                "Try 'sluice demo --help'");
        assertThat(size.out()).isEmpty();

        Run events = run("", "bench", "--events", "0");
        assertThat(events.status()).isEqualTo(2);
        assertThat(events.err()).startsWith("sluice bench: --events must be between 1 and");
    }

    @Test
    void benchRunsTheWorkloadAndDeletesWhatItCreated() {
        Run bench = run("", "bench", "--events", "3000", "--size", "64", "--segments", "3", "--readers", "3",
                "--latency-samples", "20", "--json");
        assertThat(bench.status()).as(bench.err()).isZero();
        assertThat(bench.out()).startsWith("{\"ok\":true,\"mode\":\"bench\",\"client\":\"io.sluice:sluice\",")
                .contains("\"controller\":\"" + server.controllerUri() + "\"", "\"events\":3000,\"size\":64,"
                        + "\"segments\":3,\"readers\":3,\"keys\":64,\"write\":{\"events_per_s\":",
                        "\"read\":{\"events_per_s\":", "\"latency\":{\"p50_us\":", "\"p99_us\":",
                        "\"samples\":20,\"thread\":\"platform\"}", "\"verify\":{\"ok\":true,\"read\":3000,\"duplicates\":0,\"out_of_order\":0,"
                                + "\"missing\":0,\"failed_writes\":0,\"corrupt\":0}", "\"cleanup\":{\"ok\":true,")
                .endsWith("}\n")
                .hasLineCount(1);
        assertThat(controller.listScopes()).noneMatch(s -> s.startsWith("sluice-bench-"));

        Run text = run("", "bench", "--events", "500", "--latency-samples", "5");
        assertThat(text.status()).isZero();
        assertThat(text.out()).startsWith("Sluice bench against " + server.controllerUri() + "\n")
                .contains("4 segments, 2 readers; 500 events of 100 bytes over 64 routing keys",
                        "\nwrite     500 events in ", "\nread      500 events in ", "\nlatency   5 awaited writes: p50 ",
                        "\nverify    ok: every event read exactly once, intact, in order per key\n")
                .doesNotContain("virtual thread");
    }

    @Test
    void benchMakesTheAwaitedWritesOnAVirtualThreadWhenAsked() {
        Run json = run("", "bench", "--events", "300", "--segments", "1", "--readers", "1", "--latency-samples", "7",
                "--latency-thread", "virtual", "--json");
        assertThat(json.status()).as(json.err()).isZero();
        assertThat(json.out()).contains("\"samples\":7,\"thread\":\"virtual\"}", "\"verify\":{\"ok\":true,");

        Run text = run("", "bench", "--events", "300", "--latency-samples", "3", "--latency-thread", "VIRTUAL");
        assertThat(text.status()).as(text.err()).isZero();
        assertThat(text.out()).contains("\nlatency   3 awaited writes: p50 ").contains(" (on a virtual thread)\n");

        Run bad = run("", "bench", "--latency-thread", "carrier");
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.err()).startsWith("sluice bench: ").contains("'carrier' is not a kind of thread: platform or "
                + "virtual");

        Run scale = run("", "bench", "--writers", "2", "--latency-thread", "virtual");
        assertThat(scale.status()).isEqualTo(2);
        assertThat(scale.err()).startsWith("sluice bench: --latency-thread applies to the plain workload's awaited "
                + "writes");
    }

    @Test
    void demoStartsItsOwnServerAndVerifies() {
        Run json = run("", "demo", "--events", "2000", "--size", "32", "--latency-samples", "10", "--json");
        assertThat(json.status()).as(json.err()).isZero();
        assertThat(json.out()).startsWith("{\"ok\":true,\"mode\":\"demo\",").hasLineCount(1)
                .contains("\"server\":\"embedded, in memory\"", "\"write\":{\"events_per_s\":",
                        "\"read\":{\"events_per_s\":", "\"latency\":{\"p50_us\":", "\"p99_us\":",
                        "\"verify\":{\"ok\":true,\"read\":2000,");

        Run text = run("", "demo", "--events", "300", "--latency-samples", "0", "--readers", "1");
        assertThat(text.status()).isZero();
        assertThat(text.out()).startsWith("Sluice demo: embedded server (in memory) ready in ")
                .contains("\nverify    ok: ").doesNotContain("latency");
    }

    /** Runs the command line with {@code stdin} as standard input, against {@code target}. */
    private static Run runAgainst(EmbeddedServer target, String stdin, String... args) {
        Map<String, String> own = Map.of(ControllerOptions.ENV_CONTROLLER, target.controllerUri());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Main main = new Main(ControllerClientFactory.GRPC, own::get,
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        int status = Main.run(main, new PrintWriter(out), new PrintWriter(err), args);
        return new Run(status, out.toString(), err.toString());
    }

    /** A server whose controller answers but whose segment store has stopped listening. */
    private static EmbeddedServer withoutSegmentStore(String scope) {
        EmbeddedServer own = EmbeddedServer.builder().inMemory().build();
        try (SluiceClient c = SluiceClient.connect(own.controllerUri())) {
            ClientInternals.controller(c).createScope(scope);
            c.streamManager().createStream(scope, "lines", StreamConfiguration.builder()
                    .scalingPolicy(ScalingPolicy.fixed(2)).build());
        }
        own.segmentStoreServer().close();
        return own;
    }

    @Test
    void writeGivesUpWithinItsTimeoutWhenTheSegmentStoreIsGone() {
        try (EmbeddedServer own = withoutSegmentStore("gone")) {
            long started = System.nanoTime();
            Run write = runAgainst(own, "a\nb\nc\n", "write", "gone/lines", "--timeout", "3s");
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(write.status()).isEqualTo(1);
            assertThat(write.err()).startsWith("sluice write: ").hasLineCount(1)
                    .contains("cannot connect to segment store");
            // Pravega's retry policy alone (1 ms growing tenfold to 20 s, 10 attempts) waits about 90 s
            assertThat(took).as("write --timeout 3s took " + took).isLessThan(Duration.ofSeconds(10));
        }
    }

    @Test
    void benchGivesUpWithinItsTimeoutWhenTheSegmentStoreIsGone() {
        try (EmbeddedServer own = withoutSegmentStore("gone-bench")) {
            long started = System.nanoTime();
            Run bench = runAgainst(own, "", "bench", "--events", "1000", "--latency-samples", "0",
                    "--timeout", "3s");
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(bench.status()).isEqualTo(1);
            assertThat(bench.err()).startsWith("sluice bench: ").contains("cannot connect to segment store")
                    .doesNotContain("the controller at");
            assertThat(took).as("bench --timeout 3s took " + took).isLessThan(Duration.ofSeconds(15));
        }
    }

    @Test
    void readOnlyUserIsToldWhichRightReadingNeeds(@TempDir Path dir) throws Exception {
        Path users = dir.resolve("users");
        Files.writeString(users, PasswordFile.entry("admin", "pw".toCharArray(), "*=READ_UPDATE", 1000) + "\n"
                + PasswordFile.entry("viewer", "pw".toCharArray(), "*=READ", 1000) + "\n");
        try (EmbeddedServer own = EmbeddedServer.builder().inMemory().passwordFile(users).build()) {
            String[] admin = {"--user", "admin", "--password", "pw"};
            assertThat(runAgainst(own, "", concat(new String[] {"scope", "create", "ro"}, admin)).status())
                    .isZero();
            assertThat(runAgainst(own, "", concat(new String[] {"stream", "create", "ro/lines"}, admin)).status())
                    .isZero();
            assertThat(runAgainst(own, "x\n", concat(new String[] {"write", "ro/lines"}, admin)).status())
                    .isZero();
            Run read = runAgainst(own, "", "read", "ro/lines", "--user", "viewer", "--password", "pw");
            assertThat(read.status()).isEqualTo(1);
            assertThat(read.err()).startsWith("sluice read: ").hasLineCount(1)
                    .contains("lacks READ_UPDATE on prn::/scope:ro/stream:lines",
                            "'read' reads through a reader group", "needs READ_UPDATE on ro/lines",
                            "grant e.g. ro/*=READ_UPDATE");
        }
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Test
    void embeddedControllerRefusesMoreSegmentsThanItCanServe() {
        controller.createScope("huge");
        StreamConfiguration tooMany = StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(100_000))
                .build();
        assertThatThrownBy(() -> client.streamManager().createStream("huge", "s", tooMany))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("INVALID_ARGUMENT")
                .hasMessageContaining("at most 69905 for a stream of these names");
        assertThat(controller.listStreams("huge")).isEmpty();
        // with short names a stream of 10,000 segments is served, and the list of its segments read back whole
        client.streamManager().createStream("huge", "s", StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(10_000)).build());
        assertThat(client.streamManager().currentSegments("huge", "s")).hasSize(10_000);
    }
}
