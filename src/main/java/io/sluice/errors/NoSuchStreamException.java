package io.sluice.errors;

/**
 * The stream (or key-value table, or reader group) does not exist.
 */
public class NoSuchStreamException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public NoSuchStreamException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public NoSuchStreamException(String message, Throwable cause) {
        super(message, cause);
    }
}
