package io.sluice.errors;

/**
 * The server does not own the segment (any more); ask the controller where it lives and retry there.
 */
public class WrongHostException extends RetriableException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public WrongHostException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public WrongHostException(String message, Throwable cause) {
        super(message, cause);
    }
}
