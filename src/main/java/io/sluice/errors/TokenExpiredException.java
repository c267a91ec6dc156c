package io.sluice.errors;

/**
 * The delegation token expired; a fresh one from the controller will do.
 */
public class TokenExpiredException extends RetriableException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public TokenExpiredException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public TokenExpiredException(String message, Throwable cause) {
        super(message, cause);
    }
}
