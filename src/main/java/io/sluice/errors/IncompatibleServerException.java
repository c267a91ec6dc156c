package io.sluice.errors;

/**
 * The server speaks a protocol version this client cannot talk to.
 */
public class IncompatibleServerException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public IncompatibleServerException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public IncompatibleServerException(String message, Throwable cause) {
        super(message, cause);
    }
}
