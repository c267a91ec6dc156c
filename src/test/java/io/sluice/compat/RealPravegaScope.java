package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.sluice.admin.StreamManager;
import io.sluice.client.SluiceClient;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.StreamConfiguration;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a streaming compat test class shares: a Sluice client of the real Pravega ({@link RealPravega}), a scope of
 * its own with a name no earlier run used (so reruns against one server never collide), and virtual threads for
 * readers and writers. A JUnit extension: register it in a static field with {@code @RegisterExtension}; it connects
 * and creates the scope before the class's first test (after {@link CompatTest}'s reachability check) and closes the
 * client after the last; the scope and its streams stay on the server. Thread-safe once started.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RealPravegaScope real = new RealPravegaScope("compat-events");
 * }</pre>
 */
final class RealPravegaScope implements BeforeAllCallback, AfterAllCallback {
    private final String prefix;
    String scope;
    SluiceClient client;
    StreamManager streams;
    ExecutorService threads;

    /** @param prefix what the scope is for, e.g. {@code compat-events}; the scope is {@code prefix-<12 hex digits>} */
    RealPravegaScope(String prefix) {
        this.prefix = prefix;
    }

    /** Connects and creates the scope. Blocks for the controller. */
    @Override
    public void beforeAll(ExtensionContext context) {
        scope = RealPravega.uniqueName(prefix);
        client = SluiceClient.connect(RealPravega.controllerUri().toString());
        streams = client.streamManager();
        threads = Executors.newVirtualThreadPerTaskExecutor();
        assertThat(streams.createScope(scope)).as("scope %s created", scope).isTrue();
    }

    /** Stops the threads and closes the client (and the readers it made). */
    @Override
    public void afterAll(ExtensionContext context) {
        if (threads != null) {
            threads.shutdownNow();
        }
        if (client != null) {
            client.close();
        }
    }

    /** Creates stream {@code name} of this scope with {@code segments} fixed segments; fails if it existed. */
    ScopedStream createStream(String name, int segments) {
        assertThat(streams.createStream(scope, name, StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(segments)).build())).as("stream %s/%s created", scope, name)
                .isTrue();
        return ScopedStream.of(scope, name);
    }
}
