package io.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManagerFactory;

import io.grpc.InsecureServerCredentials;
import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import io.sluice.common.Retry;
import io.sluice.controller.grpc.v1.ExistsResponse;
import io.sluice.controller.grpc.v1.NodeUri;
import io.sluice.controller.grpc.v1.ScopeInfo;
import io.sluice.controller.grpc.v1.ServerResponse;
import io.sluice.errors.CertificateRejectedException;
import io.sluice.errors.ConnectionFailedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real transport: {@link GrpcControllerClient#create} over Netty to a loopback server, plaintext with direct
 * and discovered endpoints, and TLS with hostname verification on and off (certificates made with the JDK's
 * keytool).
 */
@Timeout(120)
class GrpcControllerClientNettyTest {
    private static final String LOOPBACK = InetAddress.getLoopbackAddress().getHostAddress();

    private FakeController fake;

    @AfterEach
    void stop() throws Exception {
        if (fake != null) {
            fake.close();
        }
    }

    private static ControllerClientConfig.Builder config(String uri) {
        return ControllerClientConfig.builder(uri).rpcTimeout(Duration.ofSeconds(10)).retry(Retry.none());
    }

    private void assertWorks(GrpcControllerClient client) throws InterruptedException {
        fake.reply("checkScopeExists", ExistsResponse.newBuilder().setExists(true).build());
        assertThat(client.scopeExists("sc")).isTrue();
        assertThat(fake.<ScopeInfo>request("checkScopeExists").getScope()).isEqualTo("sc");
    }

    @Test
    void plaintextDirect() throws Exception {
        fake = new FakeController().startNetty(InsecureServerCredentials.create());
        try (GrpcControllerClient client = GrpcControllerClient.create(
                config("tcp://" + LOOPBACK + ":" + fake.port()).build())) {
            assertWorks(client);
        }
    }

    @Test
    void plaintextWithSeveralEndpointsSkipsTheDeadOne() throws Exception {
        fake = new FakeController().startNetty(InsecureServerCredentials.create());
        int dead = freePort();
        try (GrpcControllerClient client = GrpcControllerClient.create(
                config("tcp://" + LOOPBACK + ":" + dead + "," + LOOPBACK + ":" + fake.port())
                        .retry(Retry.withExpBackoff(Duration.ofMillis(10), 2, 10, Duration.ofMillis(200))).build())) {
            for (int i = 0; i < 4; i++) {
                assertWorks(client);
            }
        }
    }

    @Test
    void discoveryAsksTheSeedForTheControllerList() throws Exception {
        fake = new FakeController().startNetty(InsecureServerCredentials.create());
        fake.reply("getControllerServerList", ServerResponse.newBuilder()
                .addNodeURI(NodeUri.newBuilder().setEndpoint(LOOPBACK).setPort(fake.port())).build());
        try (GrpcControllerClient client = GrpcControllerClient.create(
                config("pravega://" + LOOPBACK + ":" + fake.port()).build())) {
            fake.reply("checkScopeExists", ExistsResponse.newBuilder().setExists(true).build());
            assertThat(client.scopeExists("sc")).isTrue();
            fake.take("getControllerServerList");
            fake.take("checkScopeExists");
        }
    }

    @Test
    void unreachableControllerIsAConnectionFailure() throws Exception {
        try (GrpcControllerClient client = GrpcControllerClient.create(
                config("tcp://" + LOOPBACK + ":" + freePort()).build())) {
            assertThatThrownBy(() -> client.scopeExists("sc")).isInstanceOf(ConnectionFailedException.class);
        }
    }

    @Test
    void tlsChecksTheCertificateAndTheHostName(@TempDir Path dir) throws Exception {
        Path keyStore = dir.resolve("server.p12");
        Path ca = dir.resolve("ca.pem");
        keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=localhost", "-ext", "SAN=dns:localhost", "-validity", "2",
                "-keystore", keyStore.toString(), "-storetype", "PKCS12", "-storepass", "changeit");
        writePem(keyStore, ca);
        fake = new FakeController().startNetty(serverCredentials(keyStore));
        int port = fake.port();

        try (GrpcControllerClient client = GrpcControllerClient.create(
                config("tls://localhost:" + port).trustStore(ca).build())) {
            assertWorks(client);
        }
        try (GrpcControllerClient client = GrpcControllerClient.create(
                config("tls://" + LOOPBACK + ":" + port).trustStore(ca).build())) {
            assertThatThrownBy(() -> client.scopeExists("sc")).as("certificate names localhost, not the IP")
                    .isInstanceOf(CertificateRejectedException.class)
                    .hasMessageContaining("the TLS certificate of the controller at tls://" + LOOPBACK + ":" + port);
        }
        try (GrpcControllerClient client = GrpcControllerClient.create(
                config("tls://" + LOOPBACK + ":" + port).trustStore(ca).validateHostname(false).build())) {
            assertWorks(client);
        }
        try (GrpcControllerClient client = GrpcControllerClient.create(
                config("ssl://localhost:" + port).validateHostname(false).build())) {
            assertThatThrownBy(() -> client.scopeExists("sc")).as("self-signed, not in the JVM's trust store")
                    .isInstanceOf(CertificateRejectedException.class).hasMessageContaining("JVM's default CAs");
        }
        assertThat(fake.pendingCalls()).isZero();
    }

    @Test
    void unreadableTrustStoreIsRejectedUpFront(@TempDir Path dir) throws IOException {
        Path empty = Files.writeString(dir.resolve("empty.pem"), "no certificates here\n");
        assertThatThrownBy(() -> GrpcControllerClient.create(config("tls://localhost:1").trustStore(empty).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trust store");
        assertThatThrownBy(() -> GrpcControllerClient.create(config("tls://localhost:1")
                .trustStore(dir.resolve("missing.pem")).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot read trust store");
    }

    private static ServerCredentials serverCredentials(Path keyStore) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(keyStore.toFile())) {
            store.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, "changeit".toCharArray());
        return TlsServerCredentials.newBuilder().keyManager(kmf.getKeyManagers()).build();
    }

    private static void writePem(Path keyStore, Path pem) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(keyStore.toFile())) {
            store.load(in, "changeit".toCharArray());
        }
        String base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(store.getCertificate("server").getEncoded());
        Files.writeString(pem, "-----BEGIN CERTIFICATE-----\n" + base64 + "\n-----END CERTIFICATE-----\n");
    }

    private static void keytool(String... args) throws Exception {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        assumeTrue(Files.isExecutable(keytool), "keytool is not available in " + keytool.getParent());
        List<String> command = new java.util.ArrayList<>();
        command.add(keytool.toString());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
