package io.sluice.stream;

import java.util.List;

/**
 * Writes events to a stream. Events with the same routing key go to the same segment and are read in the order
 * they were written; events without a key are spread evenly. Every event is written exactly once, also across
 * reconnects, server restarts and scaling.
 *
 * <pre>{@code
 * try (EventStreamWriter<String> writer = client.newWriter("shop", "orders", Serializers.utf8())) {
 *     writer.write("customer-42", "order placed");      // queued; returns at once (blocks only for backpressure)
 *     writer.writeAndWait("customer-42", "paid");        // returns when durable
 *     writer.flush();                                    // returns when everything written is durable
 * }
 * }</pre>
 *
 * <p>Writes are pipelined: {@link #write} returns as soon as the event is queued, and a background virtual thread
 * per segment sends whatever has queued as one block while earlier blocks are in flight. Memory is bounded: when
 * the writer holds its configured maximum of unacknowledged bytes, {@code write} blocks until some are acknowledged,
 * and fails with {@link io.sluice.errors.BackpressureTimeoutException} if that takes longer than the configured
 * timeout. Thread-safe: any number of threads may write at once.
 *
 * @param <T> the event type
 */
public interface EventStreamWriter<T> extends AutoCloseable {

    /**
     * Queues an event with a routing key. An event over 8 MiB needs {@link WriterConfig#withLargeEvents
     * WriterConfig.withLargeEvents(true)}; it is then written in the background, and its handle completes once it
     * is merged into its segment (see there).
     *
     * @param routingKey events with the same key keep their order; {@code null} spreads events evenly
     * @return a handle that completes when the event is durable
     * @throws IllegalArgumentException if the serialized event is larger than 8 MiB and large events are off
     * @throws io.sluice.errors.BackpressureTimeoutException if the writer stayed full for the configured timeout
     * @throws io.sluice.errors.SluiceException if the writer failed or is closed
     */
    WriteHandle write(String routingKey, T event);

    /** Queues an event without a routing key. See {@link #write(String, Object)}. */
    WriteHandle write(T event);

    /**
     * Writes an event and waits until it is durable.
     *
     * @throws io.sluice.errors.SluiceException why it could not be written
     */
    void writeAndWait(String routingKey, T event);

    /**
     * Queues several events with one routing key, to be written atomically: all of them or none, contiguous in the
     * segment, in order. At most 16 MiB - 25 bytes together, 8 bytes of framing per event included (what one append
     * frame to the segment store can carry), unless large events are on ({@link WriterConfig#withLargeEvents}): then
     * a larger batch, or one with an event over 8 MiB, is written atomically as one large write in the background,
     * and the handle completes once it is merged.
     *
     * @return a handle that completes when all of them are durable
     * @throws IllegalArgumentException if, with large events off, one event is larger than 8 MiB or all of them
     *     exceed the limit above
     */
    WriteHandle writeAll(String routingKey, List<T> events);

    /**
     * Blocks until every event written before the call is durable.
     *
     * @throws io.sluice.errors.SluiceException if some of them failed (the first failure; the others are on
     *     their handles)
     */
    void flush();

    /**
     * Notes that every event this writer will write from now on has a time at least {@code timestamp} (e.g. event
     * time in milliseconds): the controller combines the notes of all writers into watermarks for readers
     * ({@link EventStreamReader#currentTimeWindow}; see docs/watermarks.md). The note carries the writer's position
     * (the offsets of its segments as last acknowledged). A writer that closes is taken out of the watermarks.
     *
     * @param timestamp a non-decreasing time, not negative
     * @throws IllegalArgumentException if {@code timestamp} is negative
     * @throws IllegalStateException if the writer notes the time automatically
     *     ({@link WriterConfig#automaticallyNoteTime()})
     */
    void noteTime(long timestamp);

    /** @return the configuration the writer was created with */
    WriterConfig config();

    /**
     * Flushes, then releases the writer's connections and threads. Writes that failed are not reported again here
     * (their handles and {@link #flush()} report them).
     */
    @Override
    void close();
}
