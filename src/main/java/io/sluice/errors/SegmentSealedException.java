package io.sluice.errors;

/**
 * The segment is sealed: it accepts no more appends.
 */
public class SegmentSealedException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public SegmentSealedException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public SegmentSealedException(String message, Throwable cause) {
        super(message, cause);
    }
}
