package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.sluice.auth.BasicCredentials;
import io.sluice.client.ClientConfig;
import io.sluice.client.ClientInternals;
import io.sluice.client.SluiceClient;
import io.sluice.common.Deadline;
import io.sluice.connection.ConnectionConfig;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.RawClient;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.errors.AuthenticationException;
import io.sluice.server.controller.PasswordFile;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.wire.AuthTokenCheckFailed;
import io.sluice.wire.ReadSegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The embedded server with TLS on both listeners, and with Basic authentication and delegation tokens. */
@Timeout(120)
class ServerSecurityTest {
    private static final ScopedStream STREAM = ScopedStream.of("secure", "events");

    @TempDir
    Path dir;

    private static void keytool(String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("keytool: %s", out).isZero();
    }

    /** A self-signed identity for localhost/127.0.0.1 as PEM files, made with the JDK alone. */
    private ServerTls identity() throws Exception {
        Path p12 = dir.resolve("server.p12");
        keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2", "-keystore", p12.toString(),
                "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit");
        Path cert = dir.resolve("cert.pem");
        keytool("-exportcert", "-rfc", "-alias", "server", "-keystore", p12.toString(), "-storepass", "changeit",
                "-file", cert.toString());
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(p12)) {
            ks.load(in, "changeit".toCharArray());
        }
        Key key = ks.getKey("server", "changeit".toCharArray());
        Path keyPem = dir.resolve("key.pem");
        Files.writeString(keyPem, "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(key.getEncoded()) + "\n-----END PRIVATE KEY-----\n");
        return new ServerTls(cert, keyPem);
    }

    private static void writeSome(SluiceClient client) {
        ClientInternals.controller(client).createScope(STREAM.scope());
        ClientInternals.controller(client).createStream(STREAM, StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(1)).build());
        try (EventStreamWriter<String> w = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            for (int i = 0; i < 10; i++) {
                w.write("k", "e" + i);
            }
            w.flush();
        }
    }

    @Test
    void tlsOnBothListeners() throws Exception {
        ServerTls tls = identity();
        try (EmbeddedServer server = EmbeddedServer.builder().tls(tls).build()) {
            assertThat(server.controllerUri()).startsWith("tls://");
            try (SluiceClient client = SluiceClient.connect(ClientConfig.builder(server.controllerUri())
                    .trustStore(tls.certificateChain()).build())) {
                writeSome(client);
            }
            String segment = server.segmentStore().segmentNames().stream().filter(n -> n.startsWith("secure/events/")).findFirst().orElseThrow();
            assertThat(server.segmentStore().segmentInfo(segment).orElseThrow().length()).isEqualTo(10 * (8 + 2));
            // a plain-TCP client cannot talk to the TLS segment store
            assertThatThrownBy(() -> new TcpConnectionFactory(ConnectionConfig.DEFAULT.withConnectTimeout(Duration.ofSeconds(2)))
                    .connect(server.segmentStoreEndpoint(), Deadline.after(Duration.ofSeconds(5))))
                    .isInstanceOf(io.sluice.errors.ConnectionFailedException.class);
        }
    }

    @Test
    void basicAuthAndDelegationTokens() throws Exception {
        Path users = dir.resolve("users");
        Files.writeString(users, PasswordFile.entry("admin", "secret".toCharArray(), "*=READ_UPDATE", 1000) + "\n");
        try (EmbeddedServer server = EmbeddedServer.builder().passwordFile(users).build()) {
            try (SluiceClient client = SluiceClient.connect(ClientConfig.builder(server.controllerUri())
                    .credentials(new BasicCredentials("admin", "secret")).build())) {
                writeSome(client);
            }
            try (SluiceClient wrong = SluiceClient.connect(ClientConfig.builder(server.controllerUri())
                    .credentials(new BasicCredentials("admin", "nope")).build())) {
                assertThatThrownBy(() -> ClientInternals.controller(wrong).scopeExists("secure")).isInstanceOf(AuthenticationException.class);
            }
            try (SluiceClient anonymous = SluiceClient.connect(server.controllerUri())) {
                assertThatThrownBy(() -> ClientInternals.controller(anonymous).scopeExists("secure")).isInstanceOf(AuthenticationException.class);
            }
            // the segment store wants a delegation token
            String segment = server.segmentStore().segmentNames().stream().filter(n -> n.startsWith("secure/events/")).findFirst().orElseThrow();
            try (ConnectionPool pool = new ConnectionPool(new TcpConnectionFactory())) {
                assertThat(new RawClient(pool).call(server.segmentStoreEndpoint(), id -> new ReadSegment(segment, 0, 100, "", id),
                        Deadline.after(Duration.ofSeconds(10)))).isInstanceOf(AuthTokenCheckFailed.class);
            }
        }
    }
}
