package io.sluice.errors;

/**
 * The peer sent something the protocol does not allow here (an unexpected reply, a malformed frame).
 */
public class ProtocolException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public ProtocolException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public ProtocolException(String message, Throwable cause) {
        super(message, cause);
    }
}
