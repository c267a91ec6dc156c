package io.sluice.errors;

/**
 * The controller answered that it failed to carry out the request (its {@code FAILURE} status, an internal error on
 * its side that it did not report as a gRPC error), or answered with a status this client does not know. Terminal:
 * the controller already retried internally.
 */
public class ControllerFailureException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public ControllerFailureException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public ControllerFailureException(String message, Throwable cause) {
        super(message, cause);
    }
}
