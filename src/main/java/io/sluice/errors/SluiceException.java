package io.sluice.errors;

/**
 * The root of every exception Sluice throws. Unchecked: callers catch what they can handle.
 *
 * <p>Failures that may succeed when retried extend {@link RetriableException}; everything else is terminal.
 */
public class SluiceException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public SluiceException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public SluiceException(String message, Throwable cause) {
        super(message, cause);
    }
}
