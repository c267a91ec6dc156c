package io.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;

import io.grpc.InsecureServerCredentials;
import io.sluice.common.Endpoint;
import io.sluice.common.Threads;
import io.sluice.connection.LoopbackProxy;
import io.sluice.connection.Outages;
import io.sluice.controller.grpc.v1.ExistsResponse;
import io.sluice.controller.grpc.v1.NodeUri;
import io.sluice.controller.grpc.v1.ServerResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 12, defect 9, on the controller's side: a controller that is down again and again for a few seconds must be
 * answering calls again soon after each return. Two backoffs are in the way: the client's retry policy (up to 20 s
 * between attempts) and the gRPC channel's own reconnect backoff (grpc-java: 1 s growing by 1.6 up to 120 s), during
 * which every call fails at once without trying to connect.
 */
@Timeout(120)
class ControllerReconnectTest {
    /** As in the segment-store test: at most 250 ms between attempts, the rest slack for a loaded machine. */
    private static final Duration BOUND = Duration.ofSeconds(2);
    private static final List<Duration> OUTAGES = List.of(Duration.ofMillis(1500), Duration.ofSeconds(3),
            Duration.ofMillis(1500), Duration.ofSeconds(3));

    private FakeController fake;
    private LoopbackProxy proxy;

    @AfterEach
    void stop() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        if (fake != null) {
            fake.close();
        }
    }

    @Test
    void callsAreAnsweredSoonAfterEachOutage() throws Exception {
        startBehindProxy();
        // the defaults: Pravega's retry policy, 5 minutes per attempt
        callThroughOutages("controller client", "tcp://" + proxy.endpoint());
    }

    @Test
    void callsAreAnsweredSoonAfterEachOutageWithDiscovery() throws Exception {
        startBehindProxy();
        // pravega://: the controller list comes from the seed (through the proxy too), and names the proxy
        fake.reply("getControllerServerList", ServerResponse.newBuilder()
                .addNodeURI(NodeUri.newBuilder().setEndpoint(proxy.endpoint().host()).setPort(proxy.endpoint().port()))
                .build());
        callThroughOutages("discovering controller client", "pravega://" + proxy.endpoint());
    }

    private void startBehindProxy() throws Exception {
        fake = new FakeController().startNetty(InsecureServerCredentials.create());
        fake.reply("checkScopeExists", ExistsResponse.newBuilder().setExists(true).build());
        proxy = new LoopbackProxy(new Endpoint(InetAddress.getLoopbackAddress().getHostAddress(), fake.port()));
    }

    private void callThroughOutages(String who, String uri) throws Exception {
        Outages.Progress answered = new Outages.Progress();
        try (GrpcControllerClient client = GrpcControllerClient.create(ControllerClientConfig.builder(uri).build())) {
            Thread caller = Threads.startVirtual("reconnect-test-caller", () -> {
                try {
                    while (!Thread.currentThread().isInterrupted()) {
                        if (client.scopeExists("sc")) {
                            answered.step();
                        }
                        // pacing (about 200 calls a second), not synchronisation: spares the shared machine
                        Thread.sleep(5);
                    }
                } catch (InterruptedException e) {
                    // done
                } catch (RuntimeException e) {
                    if (!Thread.currentThread().isInterrupted()) {
                        answered.fail(e);
                    }
                }
            });
            try {
                assertThat(answered.await(() -> answered.count() > 10, Duration.ofSeconds(10))).isTrue();
                Outages.run(proxy, who, answered, OUTAGES, BOUND);
            } finally {
                caller.interrupt();
                caller.join();
            }
        }
    }
}
