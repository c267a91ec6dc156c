package io.sluice.errors;

/**
 * A server (controller or segment store) answered that it cannot serve the request right now.
 */
public class ServiceUnavailableException extends RetriableException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public ServiceUnavailableException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public ServiceUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
