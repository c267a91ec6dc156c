package io.sluice.errors;

/**
 * The scope does not exist.
 */
public class NoSuchScopeException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public NoSuchScopeException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public NoSuchScopeException(String message, Throwable cause) {
        super(message, cause);
    }
}
