package io.sluice.errors;

/**
 * A transaction cannot be used any more: it was already committed or aborted, its lease or maximum execution time
 * ran out, or the controller does not know it.
 */
public class TransactionFailedException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public TransactionFailedException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public TransactionFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
