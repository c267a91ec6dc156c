package io.sluice.connection;

import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;
import io.sluice.wire.Reply;
import io.sluice.wire.WireCommand;

/**
 * A flow borrowed from a {@link ConnectionPool}; use it in try-with-resources. Closing it unregisters the flow and
 * returns the connection to the pool — or destroys the connection if it failed meanwhile. Not meant to be shared
 * between threads that await concurrently.
 */
public final class Lease implements AutoCloseable {
    private final ConnectionPool pool;
    private final ConnectionPool.Pooled pooled;
    private final Flow flow;
    private boolean closed;

    Lease(ConnectionPool pool, ConnectionPool.Pooled pooled, Flow flow) {
        this.pool = pool;
        this.pooled = pooled;
        this.flow = flow;
    }

    /** @return the leased flow */
    public Flow flow() {
        return flow;
    }

    /** @return the segment store the flow talks to */
    public Endpoint endpoint() {
        return pooled.connection.endpoint();
    }

    /** @return a fresh request id of the flow */
    public long nextRequestId() {
        return flow.nextRequestId();
    }

    /** Sends on the flow. See {@link Flow#send}. */
    public void send(WireCommand command) {
        flow.send(command);
    }

    /** Sends on the flow, from the calling thread if the connection is idle. See {@link Flow#sendNow}. */
    public void sendNow(WireCommand command) {
        flow.sendNow(command);
    }

    /** Waits for the flow's next reply. See {@link Flow#await}. */
    public Reply await(Deadline deadline) {
        return flow.await(deadline);
    }

    /**
     * Marks the connection unusable (e.g. its replies broke the protocol): it is failed now, and every flow on it
     * is woken with {@code reason}.
     */
    public void invalidate(String reason) {
        pooled.connection.fail(reason);
    }

    /** Returns the flow and its connection to the pool. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            flow.close();
            pool.release(pooled);
        }
    }
}
