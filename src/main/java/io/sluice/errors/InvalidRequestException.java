package io.sluice.errors;

/**
 * The server rejected the request's arguments (for example a key of the wrong length for a fixed-key table).
 */
public class InvalidRequestException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what was rejected, naming the object involved
     */
    public InvalidRequestException(String message) {
        super(message);
    }
}
