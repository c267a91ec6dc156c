package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.client.SluiceClient;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.TxnState;
import io.sluice.testing.ControllerUri;
import io.sluice.testing.SluiceInject;
import io.sluice.testing.SluiceTest;
import io.sluice.testing.TestScope;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code sluice txn}, {@code kvt} and {@code bytes} against an in-memory embedded server: each step of a transaction
 * from its own command, a key-value table's entries put, got, listed, removed and conditionally updated, byte
 * streams written from standard input and printed back byte for byte; their JSON and their errors.
 */
@SluiceTest
@Timeout(120)
class TxnKvtBytesCommandsTest {
    @SluiceInject
    SluiceClient client;
    @ControllerUri
    String uri;

    private final Map<String, String> env = new HashMap<>();

    /** What one run of the command line did. */
    private record Run(int status, String out, String err, byte[] bytes) {
    }

    @BeforeEach
    void environment() {
        env.put(ControllerOptions.ENV_CONTROLLER, uri);
    }

    private Run run(byte[] stdin, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Main main = new Main(ControllerClientFactory.GRPC, env::get, new ByteArrayInputStream(stdin), bytes);
        int status = Main.run(main, new PrintWriter(out), new PrintWriter(err), args);
        return new Run(status, out.toString(), err.toString(), bytes.toByteArray());
    }

    private Run run(String stdin, String... args) {
        return run(stdin.getBytes(StandardCharsets.UTF_8), args);
    }

    private void stream(String scope, String name) {
        client.streamManager().createStream(scope, name, StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(2)).build());
    }

    private List<String> readAll(String scope, String stream) {
        client.streamManager().sealStream(scope, stream);
        client.readerGroupManager(scope).createReaderGroup("check",
                ReaderGroupConfig.builder().stream(scope + "/" + stream).build()).close();
        List<String> seen = new ArrayList<>();
        try (EventStreamReader<String> r = client.newReader(scope, "check", "r", Serializers.utf8())) {
            EventRead<String> e;
            do {
                e = r.readNextEvent(Duration.ofSeconds(1));
                if (e.hasEvent()) {
                    seen.add(e.event());
                }
            } while (!e.readCompleted());
        }
        return seen;
    }

    @Test
    void aTransactionBegunWrittenAndCommittedByCommandsOfItsOwn(@TestScope String scope) {
        stream(scope, "t");
        String s = scope + "/t";
        Run begin = run("", "txn", "begin", s, "--lease", "60s");
        assertThat(begin.status()).as(begin.err()).isZero();
        String id = begin.out().trim();
        assertThat(id).matches("[0-9a-f-]{36}");
        Run write = run("one\ntwo\n", "txn", "write", s, id, "--key", "k");
        assertThat(write.out()).isEqualTo("2 events written into transaction " + id + "\n");
        assertThat(run("", "txn", "status", s, id).out()).isEqualTo("OPEN\n");
        Run commit = run("", "txn", "commit", s, id, "--json");
        assertThat(commit.out()).isEqualTo("{\"stream\":\"" + s + "\",\"txn\":\"" + id + "\",\"state\":\"COMMITTED\"}\n");

        String aborted = run("", "txn", "begin", s).out().trim();
        run("never\n", "txn", "write", s, aborted);
        assertThat(run("", "txn", "abort", s, aborted).status()).isZero();
        assertThat(run("", "txn", "status", s, aborted).out()).isEqualTo(TxnState.ABORTED + "\n");
        Run again = run("", "txn", "commit", s, aborted);
        assertThat(again.status()).isEqualTo(1);
        assertThat(again.err()).startsWith("sluice txn commit: ").contains(aborted);

        Run list = run("", "txn", "list", s);
        assertThat(list.out()).contains(id + " COMMITTED", aborted + " ABORTED");
        assertThat(readAll(scope, "t")).containsExactly("one", "two");
    }

    @Test
    void badTransactionArgumentsAreUsageErrors(@TestScope String scope) {
        stream(scope, "t");
        Run bad = run("", "txn", "commit", scope + "/t", "not-a-uuid");
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.err()).contains("'not-a-uuid' is not a transaction id");
        Run lease = run("", "txn", "begin", scope + "/t", "--lease", "0s");
        assertThat(lease.status()).isEqualTo(2);
        assertThat(lease.err()).contains("--lease must be positive");
    }

    @Test
    void aKeyValueTableFromTheCommandLine(@TestScope String scope) {
        String t = scope + "/balances";
        assertThat(run("", "kvt", "create", t, "--partitions", "2", "--key-length", "8").out())
                .isEqualTo("key-value table " + t + " created\n");
        assertThat(run("", "kvt", "create", t, "--partitions", "2", "--key-length", "8").err())
                .contains("already exists");
        assertThat(run("", "kvt", "create", t).err()).contains("exists with another configuration");
        String v1 = run("", "kvt", "put", t, "alice", "100").out().trim();
        run("", "kvt", "put", t, "bob", "20");
        Run get = run("", "kvt", "get", t, "alice");
        assertThat(get.out()).isEqualTo("100\n" + v1 + "\n");

        Run won = run("", "kvt", "put", t, "alice", "70", "--if-version", v1);
        assertThat(won.status()).as(won.err()).isZero();
        Run stale = run("", "kvt", "put", t, "alice", "105", "--if-version", v1, "--json");
        assertThat(stale.status()).isEqualTo(1);
        assertThat(stale.out()).contains("\"code\":\"precondition-failed\"");
        assertThat(run("", "kvt", "put", t, "bob", "0", "--if-absent").status()).isEqualTo(1);
        assertThat(run("", "kvt", "get", t, "alice").out()).startsWith("70\n");

        assertThat(run("", "kvt", "list", t).out().lines().sorted().toList())
                .containsExactly("alice\t70", "bob\t20");
        assertThat(run("", "kvt", "remove", t, "bob").status()).isZero();
        Run missing = run("", "kvt", "get", t, "bob", "--json");
        assertThat(missing.status()).isEqualTo(1);
        assertThat(missing.out()).contains("\"code\":\"not-found\"");
        Run tooLong = run("", "kvt", "get", t, "a-much-too-long-key");
        assertThat(tooLong.err()).contains("at most 8");
        assertThat(run("", "kvt", "delete", t).status()).isZero();
        assertThat(run("", "kvt", "get", t, "alice").status()).isEqualTo(1);
    }

    @Test
    void bytesWrittenFromStandardInputArePrintedBackByteForByte(@TestScope String scope) {
        client.streamManager().createStream(scope, "b", StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(1)).build());
        String s = scope + "/b";
        byte[] data = new byte[300_000];
        new Random(7).nextBytes(data);
        Run write = run(data, "bytes", "write", s);
        assertThat(write.out()).isEqualTo("300000 bytes written to " + s + "\n");
        Run more = run("tail".getBytes(StandardCharsets.US_ASCII), "bytes", "write", s, "--json");
        assertThat(more.out()).isEqualTo("{\"stream\":\"" + s + "\",\"written\":4}\n");

        Run cat = run("", "bytes", "cat", s);
        assertThat(cat.status()).as(cat.err()).isZero();
        byte[] expected = new byte[data.length + 4];
        System.arraycopy(data, 0, expected, 0, data.length);
        System.arraycopy("tail".getBytes(StandardCharsets.US_ASCII), 0, expected, data.length, 4);
        assertThat(cat.bytes()).isEqualTo(expected);
        assertThat(run("", "bytes", "cat", s, "--from", "300000").bytes())
                .isEqualTo("tail".getBytes(StandardCharsets.US_ASCII));
        Run outside = run("", "bytes", "cat", s, "--from", "999999");
        assertThat(outside.status()).isEqualTo(1);
        assertThat(outside.err()).contains("outside the stream's bytes");
        assertThat(run("", "bytes", "cat", s, "--json").err()).contains("--json does not apply");
    }
}
