package io.sluice.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;

import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;
import io.sluice.errors.CertificateRejectedException;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.Hello;
import io.sluice.wire.StreamSegmentInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** TLS connections against a loopback TLS server whose certificate names "localhost" only. */
@Timeout(60)
class TlsConnectionTest {
    private static final String PASSWORD = "changeit";
    /** A fresh deadline for each wait: a static one would expire while the class runs. */
    private static Deadline longWait() {
        return Deadline.after(Duration.ofSeconds(30));
    }

    @TempDir
    static Path dir;
    private static Path caPem;
    private static FakeSegmentStore store;

    @BeforeAll
    static void startTlsServer() throws Exception {
        Path keystore = dir.resolve("server.p12");
        caPem = dir.resolve("ca.pem");
        keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=dns:localhost", "-validity", "2", "-keystore", keystore.toString(), "-storetype", "PKCS12",
                "-storepass", PASSWORD, "-keypass", PASSWORD);
        keytool("-exportcert", "-rfc", "-alias", "server", "-keystore", keystore.toString(), "-storepass", PASSWORD,
                "-file", caPem.toString());

        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, PASSWORD.toCharArray());
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        SSLServerSocket server = (SSLServerSocket) ctx.getServerSocketFactory().createServerSocket(0, 50, InetAddress.getLoopbackAddress());
        store = new FakeSegmentStore(server, Hello.current(), (request, peer) -> {
            if (request instanceof GetStreamSegmentInfo g) {
                peer.send(new StreamSegmentInfo(g.requestId(), g.segmentName(), true, false, false, 0, 7, 0));
            }
        });
    }

    @AfterAll
    static void stop() throws IOException {
        store.close();
    }

    private static void keytool(String... args) throws Exception {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(concat(keytool.toString(), args)).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("keytool %s: %s", List.of(args), output).isZero();
    }

    private static List<String> concat(String first, String... rest) {
        java.util.ArrayList<String> all = new java.util.ArrayList<>();
        all.add(first);
        all.addAll(List.of(rest));
        return all;
    }

    private static Endpoint at(String host) {
        return new Endpoint(host, store.endpoint().port());
    }

    @Test
    void trustedCertificateWithMatchingHostWorks() {
        ConnectionPool pool = new ConnectionPool(new TlsConnectionFactory(ConnectionConfig.DEFAULT, TlsConfig.trusting(caPem)));
        try (pool) {
            StreamSegmentInfo info = new RawClient(pool).call(at("localhost"), id -> new GetStreamSegmentInfo(id, "s/t/0", ""),
                    StreamSegmentInfo.class, longWait());
            assertThat(info.writeOffset()).isEqualTo(7);
        }
    }

    @Test
    void hostNameIsVerifiedByDefault() {
        TlsConnectionFactory factory = new TlsConnectionFactory(ConnectionConfig.DEFAULT, TlsConfig.trusting(caPem));
        assertThatThrownBy(() -> factory.connect(at("127.0.0.1"), longWait()))
                .isInstanceOf(CertificateRejectedException.class)
                .hasMessageContaining("the TLS certificate of segment store 127.0.0.1:" + store.endpoint().port()
                        + " was refused");
    }

    @Test
    void hostNameVerificationCanBeTurnedOff() {
        TlsConnectionFactory factory = new TlsConnectionFactory(ConnectionConfig.DEFAULT,
                TlsConfig.trusting(caPem).withoutHostnameVerification());
        try (Connection c = factory.connect(at("127.0.0.1"), longWait())) {
            assertThat(c.isOpen()).isTrue();
        }
    }

    @Test
    void untrustedCertificateIsRefused() {
        TlsConnectionFactory factory = new TlsConnectionFactory(ConnectionConfig.DEFAULT, TlsConfig.DEFAULT);
        assertThatThrownBy(() -> factory.connect(at("localhost"), longWait()))
                .isInstanceOf(CertificateRejectedException.class).hasMessageContaining("segment store localhost")
                .hasMessageContaining("JVM's default CAs");
    }

    @Test
    void unreadableTrustStoreIsNamed() {
        Path missing = dir.resolve("nope.pem");
        assertThatThrownBy(() -> new TlsConnectionFactory(ConnectionConfig.DEFAULT, TlsConfig.trusting(missing)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nope.pem");
    }
}
