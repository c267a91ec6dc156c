package io.sluice.errors;

/**
 * The credentials are valid but do not allow the operation.
 */
public class AuthorizationException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public AuthorizationException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public AuthorizationException(String message, Throwable cause) {
        super(message, cause);
    }
}
