package io.sluice.errors;

/**
 * A transient failure: the same operation may succeed if it is tried again (a dropped connection, a
 * server that moved a segment, a deadline that passed). Retry policies key on this type.
 */
public class RetriableException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public RetriableException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public RetriableException(String message, Throwable cause) {
        super(message, cause);
    }
}
