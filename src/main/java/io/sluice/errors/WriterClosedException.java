package io.sluice.errors;

/**
 * The writer was closed (or failed) before the event was known to be durable; it may or may not have been written.
 */
public class WriterClosedException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what was closed
     */
    public WriterClosedException(String message) {
        super(message);
    }
}
