package io.sluice.errors;

/**
 * The calling thread was interrupted while it waited; the interrupt flag is set again.
 */
public class StreamingInterruptedException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public StreamingInterruptedException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public StreamingInterruptedException(String message, Throwable cause) {
        super(message, cause);
    }
}
