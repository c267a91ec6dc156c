package io.sluice.errors;

/**
 * The table key does not exist (or no longer exists at the version the request named).
 */
public class NoSuchKeyException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the table and key
     */
    public NoSuchKeyException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the table and key
     * @param cause the underlying failure
     */
    public NoSuchKeyException(String message, Throwable cause) {
        super(message, cause);
    }
}
