package io.sluice.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;

import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;
import io.sluice.errors.StreamingInterruptedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A thread interrupted while it opens a connection (as a reader's prefetcher is when the reader closes) gets an
 * exception and leaves nothing open: before the fix the socket stayed connected, without a Hello and without an
 * owner, with its reader thread waiting for ever (found by ClientReplyFuzzTest: a connection still open after the
 * client closed).
 */
@Timeout(30)
class InterruptedConnectTest {

    /** Connects on an interrupted thread: fails as an interrupt and keeps the interrupt; clears it afterwards. */
    private static void connectInterrupted(ConnectionConfig config, Endpoint endpoint) {
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> new TcpConnectionFactory(config).connect(endpoint,
                    Deadline.after(Duration.ofSeconds(10))))
                    .isInstanceOf(StreamingInterruptedException.class);
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept").isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void anInterruptedOpenerClosesTheSocket() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Endpoint endpoint = new Endpoint(server.getInetAddress().getHostAddress(), server.getLocalPort());
            // a platform thread: its blocking connect ignores the interrupt, queueing the Hello does not
            connectInterrupted(ConnectionConfig.DEFAULT.withCallerReads(false), endpoint);
            try (Socket accepted = server.accept()) {
                accepted.setSoTimeout(10_000);
                InputStream in = accepted.getInputStream();
                assertThat(in.read()).as("the client closed the socket it could not use").isEqualTo(-1);
            }
        }
    }

    @Test
    void anInterruptedOpenerOfAChannelConnectsNothing() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Endpoint endpoint = new Endpoint(server.getInetAddress().getHostAddress(), server.getLocalPort());
            // a socket channel's connect ends at once on an interrupted thread
            connectInterrupted(ConnectionConfig.DEFAULT.withCallerReads(true), endpoint);
            // connections are accepted in the order they were made: if the interrupted opener had connected, the
            // first one accepted would be its (and it must then be closed)
            try (Socket probe = new Socket(endpoint.host(), endpoint.port());
                 Socket accepted = server.accept()) {
                if (accepted.getPort() != probe.getLocalPort()) {
                    accepted.setSoTimeout(10_000);
                    assertThat(accepted.getInputStream().read()).as("the client closed the socket it could not use")
                            .isEqualTo(-1);
                }
            }
        }
    }
}
