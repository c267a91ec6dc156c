package io.sluice.errors;

/**
 * The table key exists, but not at the version the conditional request named.
 */
public class BadKeyVersionException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the table and key
     */
    public BadKeyVersionException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the table and key
     * @param cause the underlying failure
     */
    public BadKeyVersionException(String message, Throwable cause) {
        super(message, cause);
    }
}
