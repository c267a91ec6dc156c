package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import io.sluice.server.EmbeddedServer;
import io.sluice.server.ServerTls;
import io.sluice.server.TestCa;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line against the embedded server with TLS on both listeners and a certificate that names
 * {@code localhost} only, issued by a CA made in the test: {@code --controller tls://... --trust-store CA} creates,
 * writes (the segment store over TLS) and reads; without a trust store, or with another CA's, the command fails with
 * one line naming the refused certificate; by an address the certificate does not name it fails until
 * {@code --no-validate-hostname} is given.
 */
@Timeout(120)
class TlsCommandsTest {
    @TempDir
    static Path dir;
    private static TestCa ca;
    private static TestCa otherCa;
    private static EmbeddedServer server;

    /** What one run of the command line did. */
    private record Run(int status, String out, String err) {
    }

    @BeforeAll
    static void start() throws Exception {
        ca = TestCa.create(dir, "cli");
        otherCa = TestCa.create(dir, "cli-other");
        ServerTls identity = ca.issue("server", "localhost", "dns:localhost");
        server = EmbeddedServer.builder().tls(identity).advertisedHost("localhost").build();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String controller(String host) {
        return "tls://" + host + ":" + server.controllerEndpoint().port();
    }

    private static Run run(String stdin, String... args) {
        Map<String, String> env = new HashMap<>();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Main main = new Main(ControllerClientFactory.GRPC, env::get,
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        int status = Main.run(main, new PrintWriter(out), new PrintWriter(err), args);
        return new Run(status, out.toString(), err.toString());
    }

    @Test
    void trustingTheCaTheCommandsCreateWriteAndRead() {
        String trust = ca.certificate().toString();
        assertThat(run("", "scope", "create", "tlscli", "--controller", controller("localhost"), "--trust-store",
                trust).status()).isZero();
        assertThat(run("", "stream", "create", "tlscli/lines", "--controller", controller("localhost"),
                "--trust-store", trust).status()).isZero();
        Run write = run("one\ntwo\nthree\n", "write", "tlscli/lines", "--controller", controller("localhost"),
                "--trust-store", trust);
        assertThat(write.status()).as("write: %s", write.err()).isZero();
        Run read = run("", "read", "tlscli/lines", "--max", "3", "--controller", controller("localhost"),
                "--trust-store", trust);
        assertThat(read.status()).as("read: %s", read.err()).isZero();
        assertThat(read.out()).isEqualTo("one\ntwo\nthree\n");
    }

    @Test
    void withoutTheCaTheCertificateIsRefused() {
        Run noTrust = run("", "scope", "list", "--controller", controller("localhost"));
        assertThat(noTrust.status()).isEqualTo(1);
        assertThat(noTrust.err()).startsWith("sluice scope list: listScopes: the TLS certificate of the controller at "
                + controller("localhost") + " was refused").contains("JVM's default CAs");
        Run other = run("", "scope", "list", "--controller", controller("localhost"), "--trust-store",
                otherCa.certificate().toString());
        assertThat(other.status()).isEqualTo(1);
        assertThat(other.err()).contains("the TLS certificate of the controller at " + controller("localhost")
                + " was refused").contains(otherCa.certificate().toString());
    }

    @Test
    void hostNamesAreVerifiedUnlessTurnedOff() {
        String trust = ca.certificate().toString();
        Run byAddress = run("", "scope", "list", "--controller", controller("127.0.0.1"), "--trust-store", trust);
        assertThat(byAddress.status()).isEqualTo(1);
        assertThat(byAddress.err()).contains("was refused").contains("127.0.0.1");
        Run off = run("", "scope", "list", "--controller", controller("127.0.0.1"), "--trust-store", trust,
                "--no-validate-hostname");
        assertThat(off.status()).as("with --no-validate-hostname: %s", off.err()).isZero();
        Run plain = run("", "scope", "list", "--controller", "tcp://127.0.0.1:1", "--no-validate-hostname");
        assertThat(plain.status()).isEqualTo(2);
        assertThat(plain.err()).contains("--no-validate-hostname applies to TLS only");
    }
}
