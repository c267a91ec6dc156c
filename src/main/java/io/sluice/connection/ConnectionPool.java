package io.sluice.connection;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.StreamingInterruptedException;

/**
 * Shares a bounded number of connections per segment store among many flows. {@link #lease} hands out a flow on
 * the least-busy connection, opening a new connection while the endpoint has fewer than
 * {@code maxConnectionsPerEndpoint} and every existing one is busy; when every connection carries
 * {@code maxFlowsPerConnection} flows, it waits for one to be released. A connection that failed is dropped from
 * the pool, never handed out again.
 *
 * <pre>{@code
 * try (Lease lease = pool.lease(endpoint, deadline)) {
 *     lease.send(new GetStreamSegmentInfo(lease.nextRequestId(), segment, token));
 *     Reply reply = lease.await(deadline);
 * }
 * }</pre>
 * Thread-safe. Connections are opened outside the pool's lock.
 */
public final class ConnectionPool implements AutoCloseable {
    /** Pravega's default. */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_ENDPOINT = 10;
    /** Flows one connection carries before the pool prefers another (Pravega allows 2000 writers per connection). */
    public static final int DEFAULT_MAX_FLOWS_PER_CONNECTION = 2000;

    private final ConnectionFactory factory;
    private final int maxConnections;
    private final int maxFlows;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Guarded by {@link #lock}. */
    private final Map<Endpoint, EndpointConnections> endpoints = new HashMap<>();
    /** Guarded by {@link #lock}. */
    private boolean closed;

    /** Connections of one endpoint. All fields guarded by the pool's lock. */
    private static final class EndpointConnections {
        final List<Pooled> connections = new ArrayList<>();
        int opening;
    }

    /** A pooled connection and its number of leases. Guarded by the pool's lock. */
    static final class Pooled {
        final Connection connection;
        int leases;

        Pooled(Connection connection) {
            this.connection = connection;
        }
    }

    /** A pool with Pravega's default bounds. */
    public ConnectionPool(ConnectionFactory factory) {
        this(factory, DEFAULT_MAX_CONNECTIONS_PER_ENDPOINT, DEFAULT_MAX_FLOWS_PER_CONNECTION);
    }

    /**
     * @param factory opens the connections
     * @param maxConnectionsPerEndpoint connections per segment store, at least 1
     * @param maxFlowsPerConnection leases one connection carries at most, at least 1
     */
    public ConnectionPool(ConnectionFactory factory, int maxConnectionsPerEndpoint, int maxFlowsPerConnection) {
        this.factory = Objects.requireNonNull(factory, "factory");
        if (maxConnectionsPerEndpoint < 1) {
            throw new IllegalArgumentException("maxConnectionsPerEndpoint must be at least 1: " + maxConnectionsPerEndpoint);
        }
        if (maxFlowsPerConnection < 1) {
            throw new IllegalArgumentException("maxFlowsPerConnection must be at least 1: " + maxFlowsPerConnection);
        }
        this.maxConnections = maxConnectionsPerEndpoint;
        this.maxFlows = maxFlowsPerConnection;
    }

    /** @return the factory the pool opens connections with */
    public ConnectionFactory factory() {
        return factory;
    }

    /**
     * Leases a flow to {@code endpoint}. Blocks while a connection is being opened or, when every connection is full,
     * until a lease is released — up to {@code deadline}.
     *
     * @return the lease; close it to give the flow back
     * @throws ConnectionFailedException if a needed connection cannot be opened (retriable)
     * @throws DeadlineExceededException if every connection stayed full until the deadline
     * @throws IllegalStateException if the pool is closed
     */
    public Lease lease(Endpoint endpoint, Deadline deadline) {
        Objects.requireNonNull(endpoint, "endpoint");
        lock.lock();
        try {
            while (true) {
                if (closed) {
                    throw new IllegalStateException("the connection pool is closed");
                }
                EndpointConnections ec = endpoints.computeIfAbsent(endpoint, e -> new EndpointConnections());
                ec.connections.removeIf(p -> !p.connection.isOpen());
                Pooled best = null;
                for (Pooled p : ec.connections) {
                    if (p.leases < maxFlows && (best == null || p.leases < best.leases)) {
                        best = p;
                    }
                }
                int total = ec.connections.size() + ec.opening;
                if (best != null && (best.leases == 0 || total >= maxConnections)) {
                    return leaseOn(best);
                }
                if (total < maxConnections) {
                    Pooled opened = open(endpoint, ec, deadline);
                    return leaseOn(opened);
                }
                long left = deadline.remainingNanos();
                if (left <= 0) {
                    throw new DeadlineExceededException("connection pool exhausted: " + maxConnections
                            + " connections to segment store " + endpoint + " each carry " + maxFlows + " flows");
                }
                changed.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while waiting for a connection to " + endpoint, e);
        } finally {
            lock.unlock();
        }
    }

    /** Opens a connection with the lock released; returns with it held again. */
    private Pooled open(Endpoint endpoint, EndpointConnections ec, Deadline deadline) {
        ec.opening++;
        lock.unlock();
        Connection c = null;
        try {
            c = factory.connect(endpoint, deadline);
        } finally {
            lock.lock();
            ec.opening--;
            changed.signalAll();
        }
        Pooled p = new Pooled(c);
        if (closed) {
            c.close();
            throw new IllegalStateException("the connection pool is closed");
        }
        ec.connections.add(p);
        return p;
    }

    private Lease leaseOn(Pooled p) {
        Flow flow = p.connection.openFlow();
        p.leases++;
        return new Lease(this, p, flow);
    }

    void release(Pooled p) {
        boolean drop;
        lock.lock();
        try {
            p.leases--;
            drop = !p.connection.isOpen();
            if (drop) {
                EndpointConnections ec = endpoints.get(p.connection.endpoint());
                if (ec != null) {
                    ec.connections.remove(p);
                }
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (drop) {
            p.connection.close();
        }
    }

    /** @return the open connections the pool holds to {@code endpoint} (for tests and metrics) */
    public int connectionCount(Endpoint endpoint) {
        lock.lock();
        try {
            EndpointConnections ec = endpoints.get(endpoint);
            return ec == null ? 0 : (int) ec.connections.stream().filter(p -> p.connection.isOpen()).count();
        } finally {
            lock.unlock();
        }
    }

    /** Closes every connection; leases still out see their flows dropped. Idempotent. */
    @Override
    public void close() {
        List<Connection> all = new ArrayList<>();
        lock.lock();
        try {
            closed = true;
            for (EndpointConnections ec : endpoints.values()) {
                ec.connections.forEach(p -> all.add(p.connection));
            }
            endpoints.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        all.forEach(Connection::close);
    }
}
