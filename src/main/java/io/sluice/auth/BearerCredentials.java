package io.sluice.auth;

import java.util.Objects;

/**
 * A fixed bearer token (RFC 6750), e.g. a JWT issued by an identity provider out of band: the header is
 * {@code authorization: Bearer <token>}. The token is never refreshed; when it expires the controller rejects calls
 * with {@code UNAUTHENTICATED}. For tokens that must be renewed use {@link OAuth2ClientCredentials}.
 *
 * <pre>{@code
 * Credentials credentials = new BearerCredentials(System.getenv("PRAVEGA_TOKEN"));
 * }</pre>
 *
 * <p>Immutable and thread-safe; nothing blocks. {@link #toString()} never shows the token.
 */
public final class BearerCredentials implements Credentials {
    /** The authentication method, {@value}. */
    public static final String METHOD = "Bearer";

    private final String token;

    /**
     * @param token the token; printable ASCII without spaces (it travels in a header)
     * @throws NullPointerException if {@code token} is null
     * @throws IllegalArgumentException if it is empty or has a character a header value cannot carry
     */
    public BearerCredentials(String token) {
        this.token = checkHeaderToken("bearer token", token);
    }

    /** @return {@value #METHOD} */
    @Override
    public String method() {
        return METHOD;
    }

    /** @return the token given to the constructor; never blocks */
    @Override
    public String token() {
        return token;
    }

    /** Equal if the tokens are equal. */
    @Override
    public boolean equals(Object o) {
        return o instanceof BearerCredentials other && token.equals(other.token);
    }

    @Override
    public int hashCode() {
        return token.hashCode();
    }

    /** @return a description that does not show the token */
    @Override
    public String toString() {
        return "BearerCredentials[" + token.length() + " characters]";
    }

    /**
     * Checks that a token can travel in an {@code authorization} header: not empty, visible ASCII only (no spaces,
     * no control characters, so it cannot break or extend the header).
     *
     * @param what what the token is, for the message
     * @param token the token
     * @return {@code token}
     * @throws NullPointerException if {@code token} is null
     * @throws IllegalArgumentException if it is empty or has another character
     */
    static String checkHeaderToken(String what, String token) {
        Objects.requireNonNull(token, what);
        if (token.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                throw new IllegalArgumentException(what + " has character U+" + String.format("%04X", (int) c)
                        + " at index " + i + "; only visible ASCII can travel in a header");
            }
        }
        return token;
    }
}
