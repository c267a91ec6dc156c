package io.sluice.cli;

import io.sluice.controller.ControllerClient;
import io.sluice.controller.ControllerClientConfig;
import io.sluice.controller.GrpcControllerClient;

/**
 * Opens the controller client a command talks to. The command line uses {@link GrpcControllerClient#create}; tests
 * pass one that connects to an in-process controller. Implementations must be thread-safe.
 */
@FunctionalInterface
interface ControllerClientFactory {
    /** Connects over gRPC as {@code config} says. */
    ControllerClientFactory GRPC = GrpcControllerClient::create;

    /**
     * Opens a client; the caller closes it. Should not block (connections open on first use).
     *
     * @param config where the controller is, credentials, timeouts
     * @return the client
     * @throws IllegalArgumentException if the configuration cannot be used (e.g. an unreadable trust store)
     */
    ControllerClient open(ControllerClientConfig config);
}
