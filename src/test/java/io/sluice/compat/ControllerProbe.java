package io.sluice.compat;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.sluice.controller.grpc.v1.ControllerServiceGrpc;
import io.sluice.controller.grpc.v1.CreateScopeStatus;
import io.sluice.controller.grpc.v1.ScopeInfo;

/**
 * Checks that a controller still answers, and remembers when it did not.
 *
 * <p>A server can accept connections but no longer answer: once in CI, the real standalone's controller let every
 * call run into its deadline. Without this check every later compat class spent its full retry budget, ten minutes,
 * on its first call, until CI's time ran out with nothing said. So the first probe that goes unanswered is
 * remembered, and every later probe of the same instance fails at once, naming the class that saw it first.
 *
 * <p>The call goes through the controller's metadata tables on the segment store, where a stuck server is stuck:
 * it creates scope {@value #SCOPE}, which the first probe creates and later probes find ("exists"). Thread-safe.
 */
final class ControllerProbe {
    /** The scope the probe creates, again and again. */
    static final String SCOPE = "sluice-compat-probe";

    private final URI controller;
    private final Duration deadline;
    private final String logs;
    private final AtomicReference<String> unanswered = new AtomicReference<>();

    /**
     * @param controller the controller's {@code tcp://host:port}
     * @param deadline how long one probe waits for the answer
     * @param logs where the server's logs are, named in the failure
     */
    ControllerProbe(URI controller, Duration deadline, String logs) {
        this.controller = controller;
        this.deadline = deadline;
        this.logs = logs;
    }

    /**
     * Asks the controller once. Blocks up to the deadline, or not at all once an earlier probe went unanswered.
     *
     * @param who the test class that asks, named in the failure
     * @throws IllegalStateException if the controller did not answer within the deadline, now or in an earlier probe
     *     of this instance, or answered something other than success or "exists"
     */
    void require(String who) {
        String earlier = unanswered.get();
        if (earlier != null) {
            throw new IllegalStateException("the Pravega controller stopped answering earlier in this run, so " + who
                    + " does not wait for it again: " + earlier);
        }
        ManagedChannel channel = Grpc.newChannelBuilderForAddress(controller.getHost(), controller.getPort(),
                InsecureChannelCredentials.create()).build();
        try {
            CreateScopeStatus.Status status = ControllerServiceGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
                    .createScope(ScopeInfo.newBuilder().setScope(SCOPE).build()).getStatus();
            if (status != CreateScopeStatus.Status.SUCCESS && status != CreateScopeStatus.Status.SCOPE_EXISTS) {
                throw new IllegalStateException("the Pravega controller at " + controller + " answered createScope "
                        + SCOPE + " with " + status);
            }
        } catch (StatusRuntimeException e) {
            String reason = "before " + who + ", the controller at " + controller + " did not answer createScope "
                    + SCOPE + " within " + deadline.toMillis() + " ms (" + e.getStatus() + "). The server's logs: "
                    + logs;
            unanswered.compareAndSet(null, reason);
            throw new IllegalStateException(reason, e);
        } finally {
            channel.shutdownNow();
        }
    }
}
