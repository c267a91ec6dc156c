package io.sluice.errors;

/**
 * The table segment still holds keys, and the request required it to be empty.
 */
public class TableSegmentNotEmptyException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the table and key
     */
    public TableSegmentNotEmptyException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the table and key
     * @param cause the underlying failure
     */
    public TableSegmentNotEmptyException(String message, Throwable cause) {
        super(message, cause);
    }
}
