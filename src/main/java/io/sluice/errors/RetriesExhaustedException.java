package io.sluice.errors;

/**
 * A retriable operation kept failing until its retry policy gave up; the cause is the last failure.
 */
public class RetriesExhaustedException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public RetriesExhaustedException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public RetriesExhaustedException(String message, Throwable cause) {
        super(message, cause);
    }
}
