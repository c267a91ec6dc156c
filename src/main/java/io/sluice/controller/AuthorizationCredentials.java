package io.sluice.controller;

import java.util.Objects;
import java.util.concurrent.Executor;

import io.grpc.CallCredentials;
import io.grpc.Metadata;
import io.grpc.Status;
import io.sluice.auth.Credentials;

/**
 * Adds {@code authorization: <method> <token>} to every call, as Pravega's {@code PravegaCredentialsWrapper} does.
 * The token is fetched on gRPC's application executor (for blocking stubs: the calling thread), because
 * {@link Credentials#token()} may block to refresh it. A failure to get a token fails the call with
 * {@code UNAUTHENTICATED}. Thread-safe.
 */
final class AuthorizationCredentials extends CallCredentials {
    static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    private final Credentials credentials;

    AuthorizationCredentials(Credentials credentials) {
        this.credentials = Objects.requireNonNull(credentials, "credentials");
    }

    @Override
    public void applyRequestMetadata(RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {
        appExecutor.execute(() -> {
            String header;
            try {
                header = credentials.authorizationHeader();
            } catch (RuntimeException e) {
                applier.fail(Status.UNAUTHENTICATED.withDescription("could not get a token from the credentials: "
                        + e.getMessage()).withCause(e));
                return;
            }
            Metadata headers = new Metadata();
            headers.put(AUTHORIZATION, header);
            applier.apply(headers);
        });
    }
}
