package io.sluice.server;

import io.sluice.wire.AuthTokenCheckFailed;

/**
 * Checks the delegation token a wire request carries. Thread-safe.
 */
@FunctionalInterface
public interface TokenVerifier {
    /** Accepts every token (auth off, as on a default Pravega standalone). */
    TokenVerifier ACCEPT_ALL = (token, segment, write) -> null;

    /**
     * @param token the request's delegation token ("" if none)
     * @param segment the segment the request is about
     * @param write true for appends and other changes (READ_UPDATE), false for reads (READ)
     * @return {@code null} if the token allows it, else why not (TOKEN_EXPIRED or TOKEN_CHECK_FAILED)
     */
    AuthTokenCheckFailed.ErrorCode check(String token, String segment, boolean write);
}
