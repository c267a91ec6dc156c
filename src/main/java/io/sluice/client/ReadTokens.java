package io.sluice.client;

import java.util.concurrent.ConcurrentHashMap;

import io.sluice.auth.AccessOperation;
import io.sluice.segment.DelegationTokenProvider;
import io.sluice.controller.ControllerClient;
import io.sluice.stream.ScopedStream;

/**
 * A reader's delegation tokens for reading: one provider per stream, which asks the controller for a token when it
 * first needs one and again when the segment store refuses it. Shared by the reader's segment readers, its metadata
 * calls and {@code fetchEvent}. Thread-safe.
 */
final class ReadTokens {
    private final ControllerClient controller;
    private final ConcurrentHashMap<ScopedStream, DelegationTokenProvider> tokens = new ConcurrentHashMap<>();

    ReadTokens(ControllerClient controller) {
        this.controller = controller;
    }

    /** @return the provider of tokens to read {@code stream} (the same one every time) */
    DelegationTokenProvider forStream(ScopedStream stream) {
        return tokens.computeIfAbsent(stream, s -> DelegationTokenProvider.fromController(controller, s,
                AccessOperation.READ));
    }
}
