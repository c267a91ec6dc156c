package io.sluice.errors;

/**
 * No answer arrived before the deadline. Retriable, but the request may have been applied.
 */
public class DeadlineExceededException extends RetriableException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public DeadlineExceededException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public DeadlineExceededException(String message, Throwable cause) {
        super(message, cause);
    }
}
