package io.sluice.errors;

/**
 * The server refused an operation because the object is not in the state the operation needs: deleting a scope
 * that is not empty, deleting a stream that is not sealed, updating or truncating a sealed stream, updating a reader
 * group whose configuration changed meanwhile (generation mismatch).
 */
public class PreconditionFailedException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public PreconditionFailedException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public PreconditionFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
