package io.sluice.auth;

/**
 * What a client presents to a Pravega controller: sent on every gRPC call as the header
 * {@code authorization: <method> <token>}. Implementations must be thread-safe; {@link #token()} may block
 * briefly to fetch or refresh a token.
 */
public interface Credentials {

    /** @return the authentication method, e.g. {@code "Basic"} or {@code "Bearer"} */
    String method();

    /** @return the current token for {@link #method()}; fresh enough to be accepted now */
    String token();

    /** @return the value of the {@code authorization} header */
    default String authorizationHeader() {
        return method() + " " + token();
    }
}
