package io.sluice.errors;

/**
 * A write waited longer than the writer's backpressure timeout for room: the writer already held its maximum of
 * unacknowledged bytes, and the server did not acknowledge enough of them in time. Nothing was queued. Retriable:
 * the server may catch up.
 */
public class BackpressureTimeoutException extends RetriableException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message how long the writer waited and how much it holds
     */
    public BackpressureTimeoutException(String message) {
        super(message);
    }
}
