package io.sluice.server.controller;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Where the controller keeps its metadata: an ordered log of {@link ControllerEvent}s. The controller applies each
 * event to its in-memory model and hands it to {@link #append}; after a restart it replays {@link #recover()}.
 *
 * <p>A durable implementation logs {@link ControllerEventCodec#encode encoded} events to a write log, and may
 * compact by writing a snapshot of equivalent events; {@link InMemoryControllerStore} keeps them in memory.
 *
 * <p>Implementations are thread-safe.
 */
public interface ControllerStore extends AutoCloseable {

    /**
     * Loads the events to replay, oldest first. Called once, before the first {@link #append}. May block on I/O.
     *
     * @return the events, possibly none
     */
    List<ControllerEvent> recover();

    /**
     * Appends an event. Must not block and must not do I/O on the calling thread: the controller calls it while
     * holding its metadata lock, so that the log order is the order in which events were applied. Events become
     * durable in the order of the calls.
     *
     * @return completes when this event and every earlier one are durable; completes exceptionally if that failed
     *         (the controller then accepts no changes until {@link #rewriteFailed()} succeeds)
     */
    CompletableFuture<Void> append(ControllerEvent event);

    /**
     * After appends failed (a full disk): makes the events whose appends failed durable after all, in their order,
     * once the store can write again, so the log again holds every event the controller applied. Called only while
     * no append is being made. Does not block.
     *
     * @return completes when every failed event is durable, or exceptionally if the store still cannot write (try
     *         again later); by default the store cannot recover
     */
    default CompletableFuture<Void> rewriteFailed() {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                "this controller store cannot recover from a failed append"));
    }

    /** Releases resources; further appends fail. Does not throw. */
    @Override
    void close();
}
