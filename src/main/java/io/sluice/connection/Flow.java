package io.sluice.connection;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import io.sluice.common.Deadline;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.wire.Reply;
import io.sluice.wire.WireCommand;

/**
 * A conversation on a shared connection: the request ids it hands out carry its id in their high 32 bits, and
 * the connection routes every reply with such an id into this flow's queue. Sending is thread-safe; a flow is
 * meant to be awaited by one thread at a time.
 */
public final class Flow implements AutoCloseable {
    private static final AtomicInteger NEXT_ID = new AtomicInteger();
    /** Request sequence numbers use the low 28 bits, as Pravega's client does. */
    private static final long SEQUENCE_MASK = 0x0FFFFFFFL;

    private final int id;
    private final SocketConnection connection;
    private final BlockingQueue<Delivery> inbox = new LinkedBlockingQueue<>();
    private final AtomicInteger sequence = new AtomicInteger();
    private volatile Delivery.Dropped dropped;
    /** Offered every reply first, on the connection's reader thread; see {@link #intercept}. */
    private volatile Predicate<Reply> interceptor;

    Flow(SocketConnection connection) {
        this.connection = connection;
        this.id = nextId();
    }

    private static int nextId() {
        while (true) {
            int id = NEXT_ID.incrementAndGet();
            if (id > 0) {
                return id;
            }
            // wrapped around: 0 means "no flow" on the wire, and ids stay positive
            NEXT_ID.compareAndSet(id, 0);
        }
    }

    /** @return the flow id (positive) */
    public int id() {
        return id;
    }

    /** @return the connection the flow runs on */
    public Connection connection() {
        return connection;
    }

    /**
     * @param requestId a request id from the wire
     * @return the flow id it carries
     */
    public static int flowIdOf(long requestId) {
        return (int) (requestId >>> 32);
    }

    /** @return a fresh request id of this flow: {@code id << 32 | sequence} */
    public long nextRequestId() {
        return ((long) id << 32) | (sequence.getAndIncrement() & SEQUENCE_MASK);
    }

    /**
     * Queues a command on the connection.
     *
     * @throws ConnectionFailedException if the connection is gone
     */
    public void send(WireCommand command) {
        Delivery.Dropped d = dropped;
        if (d != null) {
            throw d.toException();
        }
        connection.send(command);
    }

    /**
     * Sends a command from the calling thread if the connection is idle, else queues it: see
     * {@link Connection#sendNow}. The caller must hold no lock.
     *
     * @throws ConnectionFailedException if the connection is gone
     */
    public void sendNow(WireCommand command) {
        Delivery.Dropped d = dropped;
        if (d != null) {
            throw d.toException();
        }
        connection.sendNow(command);
    }

    /**
     * Waits for the next reply routed to this flow.
     *
     * @return the reply (which may be an {@link io.sluice.wire.ErrorReply})
     * @throws ConnectionFailedException if the connection dropped (retriable)
     * @throws DeadlineExceededException if nothing arrived in time
     * @throws StreamingInterruptedException if the thread was interrupted
     */
    public Reply await(Deadline deadline) {
        Delivery d = inbox.poll();
        if (d == null) {
            Delivery.Dropped gone = dropped;
            if (gone != null) {
                throw gone.toException();
            }
            try {
                d = inbox.poll(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StreamingInterruptedException("interrupted while waiting for a reply from "
                        + connection.endpoint(), e);
            }
        }
        return switch (d) {
            case null -> throw new DeadlineExceededException("no reply from segment store " + connection.endpoint()
                    + " on flow " + id + " before the deadline");
            case Delivery.Received r -> r.reply();
            case Delivery.Dropped gone -> throw gone.toException();
        };
    }

    /**
     * @return the next reply if one is already queued, else {@code null}
     * @throws ConnectionFailedException if the connection dropped and no reply is left
     */
    public Reply poll() {
        return switch (inbox.poll()) {
            case null -> {
                Delivery.Dropped gone = dropped;
                if (gone != null) {
                    throw gone.toException();
                }
                yield null;
            }
            case Delivery.Received r -> r.reply();
            case Delivery.Dropped gone -> throw gone.toException();
        };
    }

    /**
     * Lets {@code handler} take replies before they are queued: the connection's reader thread offers it every reply
     * of this flow, in order, and queues only those it declines (returns false for). Spares the hand-over to the
     * awaiting thread for replies that need little work. The handler runs on the reader thread, so it must be quick
     * and must never block or do I/O: every flow of the connection waits for it.
     *
     * @param handler takes the replies it returns true for; {@code null} to queue everything again
     */
    public void intercept(Predicate<Reply> handler) {
        this.interceptor = handler;
    }

    /** Called by the reader thread; never blocks. */
    void deliver(Reply reply) {
        Predicate<Reply> handler = interceptor;
        if (handler != null && handler.test(reply)) {
            return;
        }
        inbox.add(new Delivery.Received(reply));
    }

    /** Called once when the connection ends; wakes a waiting caller. */
    void drop(Delivery.Dropped why) {
        if (dropped == null) {
            dropped = why;
            inbox.add(why);
        }
    }

    /** @return true once the connection under this flow ended */
    public boolean isDropped() {
        return dropped != null;
    }

    /** Unregisters the flow; later replies with its id are discarded. Idempotent. */
    @Override
    public void close() {
        connection.unregister(this);
    }

    @Override
    public String toString() {
        return "Flow[" + id + " on " + connection.endpoint() + "]";
    }
}
