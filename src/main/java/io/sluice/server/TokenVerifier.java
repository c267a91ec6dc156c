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

    /** The expiry of a token that never expires. */
    java.util.function.BooleanSupplier NEVER = () -> false;

    /**
     * How an append session learns that the token of its {@code SetupAppend} has expired since: appends carry no
     * token, so without this a writer could append forever on one connection (Pravega's segment store closes the
     * connection when the token expires, its issue 4691).
     *
     * @param token a token {@link #check} accepted
     * @return whether it has expired by now, asked cheaply on each append; {@link #NEVER} if it does not expire
     */
    default java.util.function.BooleanSupplier expiry(String token) {
        return NEVER;
    }
}
