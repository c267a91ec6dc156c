package io.sluice.errors;

/**
 * The requested offset lies before the segment's start: that data was truncated away.
 */
public class SegmentTruncatedException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the object involved
     */
    public SegmentTruncatedException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the object involved
     * @param cause the underlying failure
     */
    public SegmentTruncatedException(String message, Throwable cause) {
        super(message, cause);
    }
}
