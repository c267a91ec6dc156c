package io.sluice.server.controller;

import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.server.auth.AccessLevel;
import io.sluice.server.auth.DelegationTokens;

/**
 * Issues the delegation tokens the controller hands out with segments, transactions and on
 * {@code getDelegationToken}: signed for the calling user, or {@code ""} with authentication off (as in Pravega).
 * Thread-safe.
 */
final class TokenIssuer {
    private final DelegationTokens tokens;
    private final Authorizer auth;

    /** @param tokens the signer, or null with authentication off */
    TokenIssuer(DelegationTokens tokens, Authorizer auth) {
        this.tokens = tokens;
        this.auth = auth;
    }

    /** @return a token for {@code scope/stream} at {@code level} for the caller, "" with authentication off */
    String token(String scope, String stream, AccessLevel level) {
        if (tokens == null) {
            return "";
        }
        return tokens.create(Authorizer.callerName(), scope + "/" + stream, level);
    }

    /**
     * A delegation token for the stream (or key-value table), by Pravega 0.13's rules: READ for {@code READ} and
     * {@code NONE}, after a check for READ; READ_UPDATE for everything else, after a check for READ_UPDATE, except
     * that a reader group's state stream or a watermark stream needs only READ ({@link Authorizer#levelToWrite}) and
     * a request that leaves the operation unspecified (older clients) always READ_UPDATE; "" when authentication is
     * off.
     */
    String delegationToken(StreamInfo request) {
        StreamInfo.AccessOperation operation = request.getAccessOperation();
        AccessLevel granted = switch (operation) {
            case READ, NONE -> AccessLevel.READ;
            default -> AccessLevel.READ_UPDATE;
        };
        AccessLevel needed = granted == AccessLevel.READ ? AccessLevel.READ
                : operation == StreamInfo.AccessOperation.UNSPECIFIED ? AccessLevel.READ_UPDATE
                : Authorizer.levelToWrite(request.getStream());
        auth.authorize(Authorizer.streamOrGroup(request), needed);
        return token(request.getScope(), request.getStream(), granted);
    }
}
