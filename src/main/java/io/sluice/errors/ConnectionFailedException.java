package io.sluice.errors;

/**
 * A connection could not be opened, or dropped while a request was waiting on it. Retriable: a new
 * connection may succeed.
 */
public class ConnectionFailedException extends RetriableException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public ConnectionFailedException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public ConnectionFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
