package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.client.SluiceClient;
import io.sluice.server.EmbeddedServer;

/**
 * {@link ControllerProbe} against a controller that answers (Sluice's embedded one) and one that accepts connections
 * but never answers. An ordinary test: it needs no real Pravega.
 */
@Timeout(60)
class ControllerProbeTest {
    @Test
    void anAnsweringControllerPassesAndTheProbeScopeExistsAfterwards() {
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().build();
             SluiceClient client = SluiceClient.connect(server.controllerUri())) {
            ControllerProbe probe = new ControllerProbe(URI.create(server.controllerUri()), Duration.ofSeconds(30),
                    "logs");

            probe.require("FirstClass");
            probe.require("SecondClass");

            assertThat(client.streamManager().createScope(ControllerProbe.SCOPE)).as("created again").isFalse();
        }
    }

    @Test
    void aSilentControllerFailsTheFirstCallerAfterTheDeadlineAndEveryLaterOneAtOnce() throws Exception {
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept()); // kept open, never read nor answered
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            ControllerProbe probe = new ControllerProbe(URI.create("tcp://127.0.0.1:" + silent.getLocalPort()),
                    Duration.ofMillis(1_500), "where/the/logs/are");

            assertThatThrownBy(() -> probe.require("FirstClass"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("before FirstClass")
                    .hasMessageContaining("did not answer createScope " + ControllerProbe.SCOPE + " within 1500 ms")
                    .hasMessageContaining("DEADLINE_EXCEEDED")
                    .hasMessageContaining("where/the/logs/are");
            silent.close(); // a second call would now be refused at once, and say so (UNAVAILABLE)
            acceptor.join();

            assertThatThrownBy(() -> probe.require("SecondClass"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("the Pravega controller stopped answering earlier in this run, so "
                            + "SecondClass does not wait for it again: before FirstClass")
                    .hasMessageContaining("DEADLINE_EXCEEDED");
        } finally {
            for (Socket s : accepted) {
                s.close();
            }
        }
    }
}
