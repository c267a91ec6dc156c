package io.sluice.auth;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;

/**
 * User name and password for HTTP Basic authentication (RFC 7617), what Pravega's controller accepts with its
 * default password-file auth handler: the header is {@code authorization: Basic base64(user ":" password)}, with the
 * user and password encoded as UTF-8 (as Pravega's own client does).
 *
 * <pre>{@code
 * Credentials credentials = new BasicCredentials("admin", "1111_aaaa");
 * }</pre>
 *
 * <p>Immutable and thread-safe; nothing blocks. {@link #toString()} never shows the password.
 */
public final class BasicCredentials implements Credentials {
    /** The authentication method, {@value}. */
    public static final String METHOD = "Basic";

    private final String user;
    private final String token;

    /**
     * @param user the user name; not empty, no {@code ':'} (RFC 7617 cannot carry one)
     * @param password the password; may be empty
     * @throws NullPointerException if either is null
     * @throws IllegalArgumentException if {@code user} is empty or contains {@code ':'}
     */
    public BasicCredentials(String user, String password) {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        if (user.isEmpty()) {
            throw new IllegalArgumentException("user must not be empty");
        }
        if (user.indexOf(':') >= 0) {
            throw new IllegalArgumentException("user must not contain ':' (Basic authentication cannot carry it): '"
                    + user + "'");
        }
        this.user = user;
        this.token = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /** @return the user name */
    public String user() {
        return user;
    }

    /** @return {@value #METHOD} */
    @Override
    public String method() {
        return METHOD;
    }

    /** @return base64 of {@code user:password} (UTF-8); never blocks */
    @Override
    public String token() {
        return token;
    }

    /** Equal if user and password are equal. */
    @Override
    public boolean equals(Object o) {
        return o instanceof BasicCredentials other && token.equals(other.token);
    }

    @Override
    public int hashCode() {
        return token.hashCode();
    }

    /** @return the user name only, never the password */
    @Override
    public String toString() {
        return "BasicCredentials[user=" + user + "]";
    }
}
