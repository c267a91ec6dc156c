package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@code sluice server} and {@code sluice server password-entry} fail on a bad command line or configuration:
 * one line naming the problem (exit status 1), a usage error for a port out of range (exit status 2), and a stack
 * trace only with {@code --verbose}. Only failures are run: a server that starts would block until stopped.
 */
@Timeout(60)
class ServerCommandTest {
    @TempDir
    Path dir;

    /** What one run of the command line did. */
    private record Run(int status, String out, String err) {
    }

    private static Run run(String stdin, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Main main = new Main(ControllerClientFactory.GRPC, Map.<String, String>of()::get,
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        int status = Main.run(main, new PrintWriter(out), new PrintWriter(err), args);
        return new Run(status, out.toString(), err.toString());
    }

    /** Runs {@code sluice server} on free ports with {@code more} arguments. */
    private static Run server(String... more) {
        String[] args = new String[3 + more.length];
        args[0] = "server";
        args[1] = "--controller-port=0";
        args[2] = "--segment-store-port=0";
        System.arraycopy(more, 0, args, 3, more.length);
        return run("", args);
    }

    /** Asserts one line on standard error, naming the command, with no stack trace. */
    private static void assertOneLine(Run run, int status, String... fragments) {
        assertThat(run.status()).isEqualTo(status);
        assertThat(run.err()).startsWith("sluice server").endsWith("\n").doesNotContain("\tat ", "Exception");
        assertThat(run.err().lines().count()).as(run.err()).isEqualTo(1);
        assertThat(run.err()).contains(fragments);
    }

    @Test
    void missingOrNonPemCertificateIsOneLine() throws IOException {
        Path missing = dir.resolve("missing.pem");
        assertOneLine(server("--tls-cert", missing.toString(), "--tls-key", missing.toString()), 1,
                missing.toString(), "no such file");
        Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a certificate\n");
        assertOneLine(server("--tls-cert", garbage.toString(), "--tls-key", garbage.toString()), 1,
                garbage.toString(), "is not a PEM certificate chain");
    }

    @Test
    void missingNonUtf8OrEmptyPasswordFileIsOneLine() throws IOException {
        Path missing = dir.resolve("no-users");
        assertOneLine(server("--auth", missing.toString()), 1, "password file", missing.toString(),
                "no such file");
        Path latin1 = Files.write(dir.resolve("latin1"), new byte[] {'b', (byte) 0xf6, 'b', ':', 'x', '\n'});
        assertOneLine(server("--auth", latin1.toString()), 1, "password file " + latin1 + " is not UTF-8 text");
        // a server nobody could use is refused, not started
        Path empty = Files.writeString(dir.resolve("empty"), "# nobody yet\n\n");
        assertOneLine(server("--auth", empty.toString()), 1, "password file " + empty + " defines no user",
                "sluice server password-entry");
    }

    @Test
    void portInUseIsOneLineAndItsStackTraceNeedsVerbose() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String port = String.valueOf(taken.getLocalPort());
            assertOneLine(run("", "server", "--controller-port", port, "--segment-store-port", "0"), 1,
                    "127.0.0.1:" + port + " for the controller", "in use");
            assertOneLine(run("", "server", "--controller-port", "0", "--segment-store-port", port), 1,
                    "127.0.0.1:" + port + " for the segment store", "in use");
            Run verbose = run("", "server", "--controller-port", "0", "--segment-store-port", port, "--verbose");
            assertThat(verbose.status()).isEqualTo(1);
            assertThat(verbose.err()).startsWith("sluice server: ").contains("\tat io.sluice.");
        }
    }

    @Test
    void portOutOfRangeIsAUsageError() {
        for (String port : new String[] {"70000", "-1", "x"}) {
            Run run = server("--controller-port", port);
            assertThat(run.status()).as(port).isEqualTo(2);
            assertThat(run.err()).startsWith("sluice server: Invalid value for option '--controller-port': ")
                    .contains(port).contains("Try 'sluice server --help'").doesNotContain("\tat ");
        }
        assertThat(server("--segment-store-port", "65536").status()).isEqualTo(2);
    }

    @Test
    void aConnectionLimitBelowOneFrameIsAUsageError() {
        Run run = server("--max-queued-reply-bytes", "1000");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).startsWith("sluice server: maxQueuedReplyBytes must be at least 65536 bytes, got 1000")
                .doesNotContain("\tat ");
    }

    @Test
    void aStandbyWithoutADataDirectoryIsAUsageError() {
        Run run = server("--standby");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).startsWith("sluice server: --standby needs --data-dir").doesNotContain("\tat ");
        Run help = run("", "server", "--help");
        assertThat(help.out().replaceAll("\\s+", " ")).contains("--standby", "tcp://h:p1,h:p2");
    }

    @Test
    void helpNamesTheAdvertisedHostAndItsDefault() {
        Run run = run("", "server", "--help");
        assertThat(run.status()).isZero();
        // picocli wraps the description: compare with the line breaks and indentation as single spaces
        assertThat(run.out().replaceAll("\\s+", " ")).contains("--advertised-host=HOST", "getURI",
                "wildcard such as 0.0.0.0", "this machine's address");
    }

    @Test
    void aWildcardAdvertisedHostIsAUsageError() {
        Run run = server("--advertised-host", "0.0.0.0");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).startsWith("sluice server: advertised host must be an address clients can connect to, "
                + "not the wildcard address 0.0.0.0").doesNotContain("\tat ");
    }

    @Test
    void aNegativeWatermarkIntervalIsAUsageError() {
        Run run = server("--watermark-interval", "-1");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).startsWith("sluice server: watermarkInterval must not be negative").doesNotContain("\tat ");
    }

    @Test
    void aTooShortScaleWindowIsAUsageError() {
        Run run = server("--scale-window", "5ms");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).startsWith("sluice server: the scale window must be at least 12 ms").doesNotContain("\tat ");
    }

    @Test
    void aTokenLifetimeBelowOneSecondOrNotWholeSecondsIsAUsageError() {
        for (String bad : new String[] {"500ms", "1500ms", "0s"}) {
            Run run = server("--token-lifetime", bad);
            assertThat(run.status()).as(bad).isEqualTo(2);
            assertThat(run.err()).as(bad).startsWith("sluice server: --token-lifetime: the delegation token lifetime"
                    + " must be whole seconds, at least 1 s").doesNotContain("\tat ");
        }
    }

    @Test
    void helpDescribesTheTokenLifetimeAndThatThePasswordFileIsReadAgain() {
        Run run = run("", "server", "--help");
        assertThat(run.status()).isZero();
        assertThat(run.out().replaceAll("\\s+", " ")).contains("--token-lifetime=DURATION",
                "how long the delegation tokens", "(default: 10m", "read again when it changes");
    }

    @Test
    void unusableDataDirectoryIsOneLine() throws IOException {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        Path under = file.resolve("data");
        assertOneLine(server("--data-dir", under.toString()), 1, "data directory " + under + " cannot be used");
    }

    @Test
    void passwordEntryWithABadAclIsAUsageErrorBeforeThePasswordIsRead() {
        Run bad = run("secret\n", "server", "password-entry", "bob", "--acl", "orders");
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.err()).isEqualTo("sluice server password-entry: access control entry 'orders' is not "
                + "pattern=LEVEL (or Pravega's prn::resource,LEVEL)\n"
                + "Try 'sluice server password-entry --help' for more information.\n");
        assertThat(bad.out()).isEmpty();
        Run level = run("", "server", "password-entry", "bob", "--acl", "orders/*=WRITE");
        assertThat(level.status()).isEqualTo(2);
        assertThat(level.err()).startsWith("sluice server password-entry: access control entry 'orders/*=WRITE' "
                + "needs a level of").doesNotContain("\tat ");
        Run good = run("secret\n", "server", "password-entry", "bob", "--acl", "orders/*=READ");
        assertThat(good.status()).isZero();
        assertThat(good.out()).startsWith("bob:pbkdf2-sha256$").endsWith(":orders/*=READ\n");
    }
}
