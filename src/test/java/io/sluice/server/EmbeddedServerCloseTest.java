package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;

import io.sluice.common.Endpoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Once {@link EmbeddedServer#close()} returns, both of its ports refuse connections (a test that restarts on the same port relies on it). */
@Timeout(120)
class EmbeddedServerCloseTest {

    @Test
    void onceCloseReturnsBothPortsRefuseConnections() throws IOException {
        for (int i = 0; i < 40; i++) {
            EmbeddedServer server = EmbeddedServer.builder().inMemory().build();
            Endpoint controller = server.controllerEndpoint();
            Endpoint segmentStore = server.segmentStoreEndpoint();
            server.close();
            assertRefused(controller, "the controller, round " + i);
            assertRefused(segmentStore, "the segment store, round " + i);
        }
    }

    private static void assertRefused(Endpoint endpoint, String what) throws IOException {
        try (Socket raw = new Socket()) {
            assertThatThrownBy(() -> raw.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), 5_000))
                    .as("connect to %s at %s after close()", what, endpoint)
                    .isInstanceOf(ConnectException.class);
        }
    }
}
