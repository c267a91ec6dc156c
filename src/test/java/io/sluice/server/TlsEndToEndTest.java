package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.common.Await;
import io.sluice.common.Endpoint;
import io.sluice.common.Threads;
import io.sluice.connection.TlsConfig;
import io.sluice.errors.CertificateRejectedException;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS end to end on both of the embedded server's listeners (the controller's gRPC port and the segment store's
 * port), with certificates issued by a CA made in the test ({@link TestCa}): a client that trusts the CA writes and
 * reads through both; one that trusts nothing given (the JDK's default trust) or another CA is refused with an error
 * that names the listener and the certificate problem — on the controller call, and separately on a segment-store
 * connection whose certificate comes from another CA while the controller's is trusted; host names are verified by
 * default, on both listeners, and {@code validateHostname(false)} turns that off (the chain is still checked).
 *
 * <p>The segment store with a certificate of its own is a TLS relay ({@link TlsRelay}) in front of the real one on
 * another loopback address (127.0.0.2, the port the segment store has): the server advertises that address, so the
 * client's segment-store connections go through the relay while its controller calls go to the controller.
 */
@Timeout(180)
class TlsEndToEndTest {

    @TempDir
    static Path dir;
    private static TestCa ca;
    private static TestCa otherCa;
    /** Names localhost and 127.0.0.1, issued by {@link #ca}. */
    private static ServerTls server;
    /** Names localhost only, issued by {@link #ca}. */
    private static ServerTls localhostOnly;
    /** Names 127.0.0.2, issued by {@link #otherCa}: the relay's. */
    private static ServerTls relayIdentity;

    @BeforeAll
    static void certificates() throws Exception {
        // keytool is a JVM start per step: the independent steps at once
        try (var exec = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            var trusted = exec.submit(() -> TestCa.create(dir, "trusted"));
            var other = exec.submit(() -> TestCa.create(dir, "other"));
            ca = trusted.get();
            otherCa = other.get();
            var s = exec.submit(() -> ca.issue("server", "localhost", "dns:localhost,ip:127.0.0.1"));
            var l = exec.submit(() -> ca.issue("localhost-only", "localhost", "dns:localhost"));
            var r = exec.submit(() -> otherCa.issue("relay", "127.0.0.2", "ip:127.0.0.2"));
            server = s.get();
            localhostOnly = l.get();
            relayIdentity = r.get();
        }
    }

    private static ClientConfig.Builder config(String controllerUri) {
        // default timeouts and retries: a refused certificate must fail the call at once, not when they run out
        return ClientConfig.builder(controllerUri);
    }

    private static String controllerAt(String host, EmbeddedServer s) {
        return "tls://" + host + ":" + s.controllerEndpoint().port();
    }

    /** Creates {@code stream}, writes {@code n} events, reads them back in one reader group: all of them, in order. */
    private static void writeAndRead(SluiceClient client, ScopedStream stream, int n) {
        client.streamManager().createScope(stream.scope());
        client.streamManager().createStream(stream.scope(), stream.name(),
                StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(2)).build());
        try (EventStreamWriter<String> w = client.newWriter(stream.scope(), stream.name(), Serializers.utf8())) {
            for (int i = 0; i < n; i++) {
                w.write("key", "event-" + i);
            }
            w.flush();
        }
        client.readerGroupManager(stream.scope()).createReaderGroup("readers",
                ReaderGroupConfig.builder().stream(stream).build());
        List<String> read = new ArrayList<>();
        try (EventStreamReader<String> r = client.newReader(stream.scope(), "readers", "r1", Serializers.utf8())) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (read.size() < n && System.nanoTime() < deadline) {
                EventRead<String> e = r.readNextEvent(Duration.ofSeconds(2));
                if (e.event() != null) {
                    read.add(e.event());
                }
            }
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            expected.add("event-" + i);
        }
        assertThat(read).as("events read back through TLS").isEqualTo(expected);
    }

    @Test
    void aClientTrustingTheCaWritesAndReadsThroughBothListeners() {
        try (EmbeddedServer s = EmbeddedServer.builder().tls(server).build()) {
            assertThat(s.controllerUri()).isEqualTo(controllerAt("127.0.0.1", s));
            for (String host : List.of("127.0.0.1", "localhost")) {
                try (SluiceClient client = SluiceClient.connect(config(controllerAt(host, s))
                        .trustStore(ca.certificate()).build())) {
                    writeAndRead(client, ScopedStream.of("tls-ok-" + host.replace('.', '-'), "events"), 200);
                }
            }
            // the client's close() closes its sockets; the server's reader of each sees the end a moment later
            Await.until("the server saw the client's segment-store connections close",
                    () -> s.segmentStoreServer().connectionCount() == 0);
        }
    }

    @Test
    void withoutATrustStoreTheControllerIsRefused() {
        try (EmbeddedServer s = EmbeddedServer.builder().tls(server).build();
             SluiceClient client = SluiceClient.connect(config(s.controllerUri()).build())) {
            assertThatThrownBy(() -> client.streamManager().createScope("tls-default-trust"))
                    .isInstanceOf(CertificateRejectedException.class)
                    .hasMessageContaining("the JVM's default CAs")
                    .hasMessageContaining(s.controllerUri().substring("tls://".length()))
                    .hasMessageContaining("certificate");
        }
    }

    @Test
    void aTrustStoreOfAnotherCaIsRefusedByTheController() {
        try (EmbeddedServer s = EmbeddedServer.builder().tls(server).build();
             SluiceClient client = SluiceClient.connect(config(s.controllerUri())
                     .trustStore(otherCa.certificate()).build())) {
            assertThatThrownBy(() -> client.streamManager().createScope("tls-other-ca"))
                    .isInstanceOf(CertificateRejectedException.class)
                    .hasMessageContaining(otherCa.certificate().toString())
                    .hasMessageContaining(s.controllerUri().substring("tls://".length()))
                    .hasMessageContaining("certificate");
        }
    }

    @Test
    void aSegmentStoreCertificateOfAnotherCaIsRefusedWhileTheControllerIsTrusted() throws Exception {
        int port;
        try (EmbeddedServer s = EmbeddedServer.builder().tls(server).advertisedHost("127.0.0.2").build();
             TlsRelay relay = TlsRelay.open(relayIdentity, s.segmentStoreEndpoint(), ca.certificate())) {
            port = s.segmentStoreEndpoint().port();
            String controller = controllerAt("127.0.0.1", s);
            // the relay is a working segment store: a client trusting both CAs goes through it
            Path both = TestCa.trustStoreOf(dir.resolve("both.pem"), ca, otherCa);
            try (SluiceClient client = SluiceClient.connect(config(controller).trustStore(both).build())) {
                writeAndRead(client, ScopedStream.of("tls-relay", "events"), 50);
            }
            assertThat(relay.relayed()).as("connections through the relay").isPositive();

            ScopedStream stream = ScopedStream.of("tls-relay", "events");
            try (SluiceClient client = SluiceClient.connect(config(controller).trustStore(ca.certificate()).build());
                 EventStreamWriter<String> w = client.newWriter(stream.scope(), stream.name(), Serializers.utf8()
                 )) {
                assertThat(client.streamManager().scopeExists(stream.scope())).as("the controller is trusted")
                        .isTrue();
                assertThatThrownBy(() -> w.writeAndWait("key", "refused"))
                        .isInstanceOf(CertificateRejectedException.class)
                        .hasMessageContaining("127.0.0.2:" + port)
                        .hasMessageContaining("certificate");
            }
        }
    }

    @Test
    void hostNamesAreVerifiedByDefaultOnBothListeners() {
        try (EmbeddedServer s = EmbeddedServer.builder().tls(localhostOnly).build()) {
            // the controller by an address its certificate does not name
            try (SluiceClient client = SluiceClient.connect(config(controllerAt("127.0.0.1", s))
                    .trustStore(ca.certificate()).build())) {
                assertThatThrownBy(() -> client.streamManager().createScope("tls-name"))
                        .isInstanceOf(CertificateRejectedException.class)
                        .hasMessageContaining("127.0.0.1:" + s.controllerEndpoint().port())
                        .hasMessageContaining("127.0.0.1");
            }
            // the controller by its name, the segment store (advertised as 127.0.0.1) by an address
            ScopedStream stream = ScopedStream.of("tls-name", "events");
            try (SluiceClient client = SluiceClient.connect(config(controllerAt("localhost", s))
                    .trustStore(ca.certificate()).build())) {
                client.streamManager().createScope(stream.scope());
                client.streamManager().createStream(stream.scope(), stream.name(),
                        StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(1)).build());
                try (EventStreamWriter<String> w = client.newWriter(stream.scope(), stream.name(),
                        Serializers.utf8())) {
                    assertThatThrownBy(() -> w.writeAndWait("key", "refused"))
                        .isInstanceOf(CertificateRejectedException.class)
                            .hasMessageContaining("127.0.0.1:" + s.segmentStoreEndpoint().port())
                            .hasMessageContaining("127.0.0.1");
                }
            }
            // told otherwise: both listeners by address
            try (SluiceClient client = SluiceClient.connect(config(controllerAt("127.0.0.1", s))
                    .trustStore(ca.certificate()).validateHostname(false).build())) {
                writeAndRead(client, ScopedStream.of("tls-name-off", "events"), 50);
            }
            // but the chain is still checked with host names off
            try (SluiceClient client = SluiceClient.connect(config(controllerAt("127.0.0.1", s))
                    .trustStore(otherCa.certificate()).validateHostname(false).build())) {
                assertThatThrownBy(() -> client.streamManager().createScope("tls-name-other-ca"))
                        .isInstanceOf(CertificateRejectedException.class)
                        .hasMessageContaining("certificate");
            }
        }
    }

    /**
     * A segment store with a certificate of its own: accepts TLS on 127.0.0.2 (at the port of the segment store it
     * stands for) with its identity, and relays each connection over TLS to the real segment store. Two virtual
     * threads copy bytes per connection. Thread-safe.
     */
    static final class TlsRelay implements AutoCloseable {
        private final SSLServerSocket listener;
        private final Endpoint target;
        private final javax.net.ssl.SSLSocketFactory upstream;
        private final List<Socket> open = new CopyOnWriteArrayList<>();
        private final AtomicInteger relayed = new AtomicInteger();

        private TlsRelay(SSLServerSocket listener, Endpoint target, Path targetCa) {
            this.listener = listener;
            this.target = target;
            this.upstream = TlsConfig.trusting(targetCa).sslContext().getSocketFactory();
            Threads.startVirtual("tls-relay-accept", this::acceptLoop);
        }

        static TlsRelay open(ServerTls identity, Endpoint target, Path targetCa) throws IOException {
            SSLServerSocket listener;
            try {
                listener = (SSLServerSocket) identity.sslContext().getServerSocketFactory()
                        .createServerSocket(target.port(), 50, InetAddress.getByName("127.0.0.2"));
            } catch (BindException e) {
                Assumptions.abort("this machine cannot listen on 127.0.0.2 (" + e.getMessage() + ")");
                throw e;
            }
            return new TlsRelay(listener, target, targetCa);
        }

        /** @return connections whose TLS handshake with the client succeeded and that reached the target */
        int relayed() {
            return relayed.get();
        }

        private void acceptLoop() {
            while (!listener.isClosed()) {
                Socket client;
                try {
                    client = listener.accept();
                } catch (IOException e) {
                    return;
                }
                open.add(client);
                Threads.startVirtual("tls-relay-connection", () -> relay((SSLSocket) client));
            }
        }

        private void relay(SSLSocket client) {
            try {
                client.startHandshake();
                SSLSocket server = (SSLSocket) upstream.createSocket(target.host(), target.port());
                open.add(server);
                server.startHandshake();
                relayed.incrementAndGet();
                Threads.startVirtual("tls-relay-up", () -> copy(client, server));
                copy(server, client);
            } catch (IOException e) {
                closeQuietly(client);
            }
        }

        private static void copy(Socket from, Socket to) {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed: the other goes too
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }

        private static void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            open.forEach(TlsRelay::closeQuietly);
        }
    }
}
