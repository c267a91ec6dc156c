package io.sluice.errors;

/**
 * The server did not accept the credentials (missing, wrong or malformed).
 */
public class AuthenticationException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public AuthenticationException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public AuthenticationException(String message, Throwable cause) {
        super(message, cause);
    }
}
