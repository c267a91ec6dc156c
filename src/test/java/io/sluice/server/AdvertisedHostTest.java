package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.sluice.controller.grpc.v1.ControllerServiceGrpc;
import io.sluice.controller.grpc.v1.NodeUri;
import io.sluice.controller.grpc.v1.SegmentId;
import io.sluice.controller.grpc.v1.ServerRequest;
import io.sluice.controller.grpc.v1.StreamInfo;

/**
 * What the server tells clients to connect to: a wildcard listening address is never advertised, and
 * {@link EmbeddedServer.Builder#advertisedHost} is what {@code getURI} and {@code getControllerServerList} answer.
 */
@Timeout(60)
class AdvertisedHostTest {

    /** Asks the controller at {@code server}'s listening endpoint where segment {@code s/t/0} and the controller are. */
    private static NodeUri[] ask(EmbeddedServer server) throws InterruptedException {
        ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", server.controllerEndpoint().port())
                .usePlaintext().build();
        try {
            ControllerServiceGrpc.ControllerServiceBlockingStub stub = ControllerServiceGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(30, TimeUnit.SECONDS);
            NodeUri segmentStore = stub.getURI(SegmentId.newBuilder()
                    .setStreamInfo(StreamInfo.newBuilder().setScope("s").setStream("t")).setSegmentId(0).build());
            NodeUri controller = stub.getControllerServerList(ServerRequest.getDefaultInstance()).getNodeURI(0);
            return new NodeUri[] {segmentStore, controller};
        } finally {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aWildcardBindAdvertisesAHostClientsCanConnectTo() throws Exception {
        try (EmbeddedServer server = EmbeddedServer.builder().host("0.0.0.0").build()) {
            assertThat(server.advertisedHost()).isNotEmpty().isNotEqualTo("0.0.0.0");
            assertThat(AdvertisedHost.isWildcard(server.advertisedHost())).isFalse();
            NodeUri[] uris = ask(server);
            assertThat(uris[0].getEndpoint()).isEqualTo(server.advertisedHost());
            assertThat(uris[0].getPort()).isEqualTo(server.segmentStoreEndpoint().port());
            assertThat(uris[1].getEndpoint()).isEqualTo(server.advertisedHost());
            assertThat(server.controllerUri()).isEqualTo("tcp://" + server.advertisedHost() + ":"
                    + server.controllerEndpoint().port());
            // what getURI answers is where a client reaches the segment store
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(uris[0].getEndpoint(), uris[0].getPort()), 10_000);
                assertThat(socket.isConnected()).isTrue();
            }
        }
    }

    @Test
    void theAdvertisedHostIsWhatGetUriAndTheServerListAnswer() throws Exception {
        try (EmbeddedServer server = EmbeddedServer.builder().advertisedHost("sluice.example").build()) {
            assertThat(server.controllerEndpoint().host()).isEqualTo("127.0.0.1");
            NodeUri[] uris = ask(server);
            assertThat(uris[0].getEndpoint()).isEqualTo("sluice.example");
            assertThat(uris[0].getPort()).isEqualTo(server.segmentStoreEndpoint().port());
            assertThat(uris[1].getEndpoint()).isEqualTo("sluice.example");
            assertThat(uris[1].getPort()).isEqualTo(server.controllerEndpoint().port());
            assertThat(server.controllerUri()).startsWith("tcp://sluice.example:");
        }
    }

    @Test
    void byDefaultTheListeningHostIsAdvertised() throws InterruptedException {
        try (EmbeddedServer server = EmbeddedServer.builder().build()) {
            assertThat(server.advertisedHost()).isEqualTo("127.0.0.1");
            assertThat(ask(server)[0].getEndpoint()).isEqualTo("127.0.0.1");
        }
    }

    @Test
    void wildcardsAreRecognisedWithoutNameLookups() {
        for (String wildcard : new String[] {"0.0.0.0", "::", "[::]", "0:0:0:0:0:0:0:0", ""}) {
            assertThat(AdvertisedHost.isWildcard(wildcard)).as(wildcard).isTrue();
        }
        for (String host : new String[] {"127.0.0.1", "localhost", "::1", "10.0.0.7", "sluice.example"}) {
            assertThat(AdvertisedHost.isWildcard(host)).as(host).isFalse();
            assertThat(AdvertisedHost.defaultFor(host)).isEqualTo(host);
        }
        assertThat(AdvertisedHost.isWildcard(AdvertisedHost.defaultFor("0.0.0.0"))).isFalse();
    }

    @Test
    void anAdvertisedHostClientsCannotUseIsRefusedNamingIt() {
        EmbeddedServer.Builder b = EmbeddedServer.builder();
        assertThatThrownBy(() -> b.advertisedHost("0.0.0.0")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wildcard").hasMessageContaining("0.0.0.0");
        for (String bad : new String[] {"", " ", "a b", "host:9090", "tcp://host", "a,b"}) {
            assertThatThrownBy(() -> b.advertisedHost(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("advertised host").hasMessageContaining("'" + bad + "'");
        }
        assertThatThrownBy(() -> b.advertisedHost(null)).isInstanceOf(NullPointerException.class);
        assertThat(AdvertisedHost.check("[::1]")).isEqualTo("::1");
        assertThat(AdvertisedHost.check("2001:db8::1")).isEqualTo("2001:db8::1");
    }

    @Test
    void aSocketToTheDefaultWildcardAdvertisementConnects() throws IOException {
        // the machine's own address (or 127.0.0.1) reaches a listener on the wildcard address
        try (java.net.ServerSocket listener = new java.net.ServerSocket()) {
            listener.bind(new InetSocketAddress("0.0.0.0", 0));
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(AdvertisedHost.defaultFor("0.0.0.0"), listener.getLocalPort()),
                        10_000);
                assertThat(socket.isConnected()).isTrue();
            }
        }
    }
}
