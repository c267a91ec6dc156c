package io.sluice.connection;

import java.util.Objects;
import java.util.function.LongFunction;

import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;
import io.sluice.errors.ProtocolException;
import io.sluice.wire.ErrorReply;
import io.sluice.wire.Reply;
import io.sluice.wire.Request;

/**
 * Request/reply over pooled connections: send one request on a leased flow and block until its reply, a
 * connection failure, or the deadline. The building block of metadata calls (segment info, attributes, seal,
 * truncate, merge, table commands). Thread-safe; each call leases its own flow.
 *
 * <pre>{@code
 * StreamSegmentInfo info = raw.call(endpoint, id -> new GetStreamSegmentInfo(id, segment, token),
 *         StreamSegmentInfo.class, Deadline.after(Duration.ofSeconds(30)));
 * }</pre>
 */
public final class RawClient {
    private final ConnectionPool pool;

    /** @param pool where connections come from */
    public RawClient(ConnectionPool pool) {
        this.pool = Objects.requireNonNull(pool, "pool");
    }

    /**
     * Sends the request built by {@code request} (given a fresh request id) and returns its reply as it came,
     * error replies included. Replies with another request id on the same flow are skipped.
     *
     * @throws io.sluice.errors.ConnectionFailedException if the connection fails first (retriable)
     * @throws io.sluice.errors.DeadlineExceededException if no reply comes in time
     */
    public Reply call(Endpoint endpoint, LongFunction<? extends Request> request, Deadline deadline) {
        try (Lease lease = pool.lease(endpoint, deadline)) {
            long id = lease.nextRequestId();
            Request r = request.apply(id);
            if (r.requestId() != id) {
                throw new IllegalArgumentException(r.type() + " must carry the request id it was given (" + id + ")");
            }
            lease.send(r);
            while (true) {
                Reply reply = lease.await(deadline);
                if (reply.requestId() == id) {
                    return reply;
                }
            }
        }
    }

    /**
     * Like {@link #call(Endpoint, LongFunction, Deadline)}, but returns only a reply of type {@code expected}: an
     * error reply becomes its exception ({@link ReplyErrors}), anything else a {@link ProtocolException}.
     */
    public <R extends Reply> R call(Endpoint endpoint, LongFunction<? extends Request> request, Class<R> expected,
                                    Deadline deadline) {
        Reply reply = call(endpoint, request, deadline);
        if (expected.isInstance(reply)) {
            return expected.cast(reply);
        }
        if (reply instanceof ErrorReply e) {
            throw ReplyErrors.toException(e);
        }
        throw new ProtocolException("segment store " + endpoint + " answered " + reply.type() + " where "
                + expected.getSimpleName() + " was expected");
    }
}
