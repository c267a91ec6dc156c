package io.sluice.errors;

/**
 * The table key exists, but not at the version the conditional request named.
 */
public class BadKeyVersionException extends SluiceException {
    private static final long serialVersionUID = 1L;
    /** Whether an earlier attempt of the same request went unanswered, so the change may be in after all. */
    private final boolean possiblyApplied;

    /**
     * @param message what went wrong, naming the table and key
     */
    public BadKeyVersionException(String message) {
        this(message, false);
    }

    /**
     * @param message what went wrong, naming the table and key
     * @param possiblyApplied whether an earlier attempt of the same request went unanswered ({@link #possiblyApplied})
     */
    public BadKeyVersionException(String message, boolean possiblyApplied) {
        super(message);
        this.possiblyApplied = possiblyApplied;
    }

    /**
     * @param message what went wrong, naming the table and key
     * @param cause the underlying failure
     */
    public BadKeyVersionException(String message, Throwable cause) {
        super(message, cause);
        this.possiblyApplied = false;
    }

    /**
     * Whether the change may have been applied after all. A request whose reply was lost with its connection is sent
     * again; if the lost attempt had been applied, the retry finds its condition failed by that very change. When
     * this is true an earlier attempt went unanswered, so read the key to know (a value the caller can recognise as
     * its own tells); when false, nothing was changed.
     *
     * @return true if an earlier attempt of the request went unanswered
     */
    public boolean possiblyApplied() {
        return possiblyApplied;
    }
}
