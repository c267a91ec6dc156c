package io.sluice.errors;

/**
 * The scope, stream, table or segment already exists.
 */
public class AlreadyExistsException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public AlreadyExistsException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public AlreadyExistsException(String message, Throwable cause) {
        super(message, cause);
    }
}
