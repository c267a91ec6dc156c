package io.sluice.common;

/**
 * What the embedded server's connections and write log report, as plain calls with no metrics library in their
 * signatures (see {@link ClientMetrics} for why). {@link #NONE} does nothing: a server without a meter registry pays
 * one call to an empty method per append block, read or group commit, and allocates nothing. Implementations are
 * thread-safe.
 */
public interface ServerMetrics {
    /** Records nothing. */
    ServerMetrics NONE = new ServerMetrics() {
    };

    /**
     * An append (one block, or one conditional append) became durable and was acknowledged.
     *
     * @param events the events it held
     * @param bytes their bytes
     */
    default void appended(int events, long bytes) {
    }

    /**
     * A read was answered with data.
     *
     * @param bytes the bytes returned
     */
    default void read(long bytes) {
    }

    /**
     * The write log made a batch of records durable (one group commit: the write and, under fsync, the force).
     *
     * @param nanos how long the write and the force took
     */
    default void durableFlush(long nanos) {
    }
}
