package io.sluice.errors;

/**
 * The segment does not exist: never created, deleted, or merged into another.
 */
public class NoSuchSegmentException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public NoSuchSegmentException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public NoSuchSegmentException(String message, Throwable cause) {
        super(message, cause);
    }
}
