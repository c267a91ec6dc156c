package io.sluice.common;

/**
 * What a client's writers and reader groups report, as plain calls with no metrics library in their signatures: the
 * library behind them (Micrometer) is optional, and a class that loads without it must not name its types. The
 * constant {@link #NONE} does nothing and is what a client without a meter registry uses, so the hot paths pay one
 * call to an empty method (per block, never per event) and allocate nothing. Implementations are thread-safe.
 */
public interface ClientMetrics {
    /** Records nothing. */
    ClientMetrics NONE = new ClientMetrics() {
    };

    /**
     * @param segment the fully qualified segment a writer appends to ({@code scope/stream/number.#epoch.n})
     * @param source what the writer has queued or in flight, read when the gauges are read (not on the hot path)
     * @return the writer's meters; {@link Appends#NONE} when nothing is recorded
     */
    default Appends appends(String segment, InFlight source) {
        return Appends.NONE;
    }

    /**
     * A checkpoint of a reader group completed.
     *
     * @param readerGroup {@code scope/name}
     * @param nanos from its initiation to its completion
     */
    default void checkpoint(String readerGroup, long nanos) {
    }

    /**
     * A reader group was opened in this process: its lag (unread bytes) becomes a gauge.
     *
     * @param readerGroup {@code scope/name}
     * @param unreadBytes computes the bytes between the group's position and the streams' tails; it calls the
     *     controller and the segment stores, so it is called off the caller's thread, at most now and then
     * @return what unregisters the gauge when the group is closed
     */
    default Runnable readerGroup(String readerGroup, java.util.function.LongSupplier unreadBytes) {
        return () -> { };
    }

    /** The events a segment writer holds: queued, or sent and not yet acknowledged. */
    interface InFlight {
        /** @return events queued or in flight */
        long inFlightEvents();

        /** @return their bytes (as framed on the wire) */
        long inFlightBytes();
    }

    /** One segment writer's meters. */
    interface Appends extends AutoCloseable {
        /** Records nothing; {@link #enabled()} is false. */
        Appends NONE = new Appends() {
        };

        /** @return whether anything is recorded (a writer stamps its blocks' send times only then) */
        default boolean enabled() {
            return false;
        }

        /**
         * One append block was sent.
         *
         * @param events the events in it
         * @param bytes their framed bytes
         */
        default void block(int events, long bytes) {
        }

        /**
         * A block was acknowledged.
         *
         * @param nanos from the moment it was sent (first sent, if it was resent after a reconnect) to its acknowledgement
         */
        default void acknowledged(long nanos) {
        }

        /** The writer's connection broke and it reconnects. */
        default void reconnect() {
        }

        /** The writer is done: its in-flight events leave the gauges. */
        @Override
        default void close() {
        }
    }
}
