package io.sluice.stream;

import java.util.List;
import java.util.UUID;

/**
 * One transaction: events written to it go, by routing key, to transaction segments of the stream's segments, and
 * become part of the stream all at once on {@link #commit()} (in the order written per routing key), or never on
 * {@link #abort()}. Writes are pipelined and exactly once across reconnects, like {@link EventStreamWriter}'s.
 *
 * <p>A transaction ends when it is committed or aborted, or when its lease runs out (its writer stopped pinging,
 * or the controller says it is gone): after that {@link #write}, {@link #flush()} and {@link #commit()} throw
 * {@link io.sluice.errors.TransactionFailedException} saying why. Thread-safe.
 *
 * @param <T> the event type
 */
public interface Transaction<T> {

    /** @return the transaction id */
    UUID id();

    /**
     * Queues an event with a routing key.
     *
     * @throws IllegalArgumentException if the serialized event is larger than 8 MiB
     * @throws io.sluice.errors.TransactionFailedException if the transaction ended
     */
    void write(String routingKey, T event);

    /** Queues an event without a routing key (spread evenly). See {@link #write(String, Object)}. */
    void write(T event);

    /**
     * Queues several events with one routing key, written atomically within the transaction, contiguous and in
     * order, as {@link EventStreamWriter#writeAll} does.
     *
     * @throws IllegalArgumentException if they exceed what one append carries (see {@link EventStreamWriter#writeAll})
     * @throws io.sluice.errors.TransactionFailedException if the transaction ended
     */
    void writeAll(String routingKey, List<T> events);

    /**
     * Blocks until everything written is durable in the transaction's segments.
     *
     * @throws io.sluice.errors.TransactionFailedException if the transaction ended or a write failed
     */
    void flush();

    /**
     * Flushes, commits, and blocks until the controller reports {@link TxnState#COMMITTED}.
     *
     * @throws io.sluice.errors.TransactionFailedException if the transaction ended (saying in what state) or the
     *     commit did not complete in time
     */
    void commit();

    /**
     * As {@link #commit()}, with a time for the stream's watermarks (e.g. the events' time in milliseconds).
     *
     * @param timestamp the time of the transaction's events, not negative
     * @throws IllegalArgumentException if {@code timestamp} is negative
     */
    void commit(long timestamp);

    /**
     * Aborts and blocks until the controller reports {@link TxnState#ABORTED}. Returns at once if it already is.
     *
     * @throws io.sluice.errors.TransactionFailedException if the transaction was committed, or the abort did not
     *     complete in time
     */
    void abort();

    /**
     * Asks the controller.
     *
     * @return the transaction's state now
     */
    TxnState status();
}
