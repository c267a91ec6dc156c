package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import io.sluice.client.SluiceClient;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.StreamConfiguration;

/**
 * For interop tests that run on both servers: the real Pravega 0.13 (through a {@link RealPravegaScope}) and an
 * embedded Sluice server with the same scope, the one-segment streams a test created, and their deletion after it
 * (large data left behind fills the standalone's heap). Made in {@code @BeforeAll}, closed in {@code @AfterAll}.
 */
final class BothServers implements AutoCloseable {
    private final RealPravegaScope real;
    private final EmbeddedServer embedded;
    private final SluiceClient embeddedClient;
    /** Streams the running test created, deleted after it. */
    private final List<ScopedStream> created = new ArrayList<>();

    /** A server to run against: Sluice's client of it, its controller URI, a scope on it. */
    record Target(String name, SluiceClient client, String controllerUri, String scope, BothServers servers) {
        /** Creates a one-segment stream, deleted after the test. */
        ScopedStream createStream(String stream) {
            return createStream(stream, 1);
        }

        /** Creates a stream of {@code segments} fixed segments, deleted after the test. */
        ScopedStream createStream(String stream, int segments) {
            assertThat(client.streamManager().createStream(scope, stream, StreamConfiguration.builder()
                    .scalingPolicy(ScalingPolicy.fixed(segments)).build())).isTrue();
            ScopedStream s = ScopedStream.of(scope, stream);
            servers.created.add(s);
            return s;
        }
    }

    BothServers(RealPravegaScope real) {
        this.real = real;
        this.embedded = EmbeddedServer.builder().inMemory().build();
        this.embeddedClient = SluiceClient.connect(embedded.controllerUri());
        embeddedClient.streamManager().createScope(real.scope);
    }

    /** @param name {@code real} or {@code embedded} */
    Target target(String name) {
        return name.equals("real")
                ? new Target("real Pravega 0.13", real.client, RealPravega.controllerUri().toString(), real.scope, this)
                : new Target("Sluice embedded server", embeddedClient, embedded.controllerUri(), real.scope, this);
    }

    /** Seals and deletes what the test created, on whichever server holds it. */
    void deleteCreated() {
        for (ScopedStream stream : created) {
            for (SluiceClient c : List.of(real.client, embeddedClient)) {
                try {
                    if (c.streamManager().listStreams(stream.scope()).contains(stream.name())) {
                        c.streamManager().sealStream(stream.scope(), stream.name());
                        c.streamManager().deleteStream(stream.scope(), stream.name());
                    }
                } catch (RuntimeException e) {
                    System.err.println("could not delete " + stream + ": " + e);
                }
            }
        }
        created.clear();
    }

    /** Deletes the scope on the real server and stops the embedded one. */
    @Override
    public void close() {
        try {
            real.streams.deleteScopeRecursive(real.scope);
        } catch (RuntimeException e) {
            System.err.println("could not delete scope " + real.scope + ": " + e);
        }
        embeddedClient.close();
        embedded.close();
    }
}
