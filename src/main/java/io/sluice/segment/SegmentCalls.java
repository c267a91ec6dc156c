package io.sluice.segment;

import java.time.Duration;
import java.util.Objects;

import io.sluice.segment.DelegationTokenProvider;
import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;
import io.sluice.common.Retry;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.Lease;
import io.sluice.connection.ReplyErrors;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.TokenExpiredException;
import io.sluice.errors.WrongHostException;
import io.sluice.wire.AuthTokenCheckFailed;
import io.sluice.wire.ErrorReply;
import io.sluice.wire.Reply;
import io.sluice.wire.Request;
import io.sluice.wire.WrongHost;

/**
 * The one place where a request reaches a segment. A call locates the segment store that serves the segment (the
 * {@link SegmentLocator}: the controller's {@code getURI}, cached), leases a flow there, sends the request with the
 * current delegation token and waits for its reply. Two error replies are acted on here and nowhere else:
 * <ul>
 *   <li>{@code WrongHost}: the cached endpoint is forgotten, so the next attempt asks the controller again;</li>
 *   <li>{@code AuthTokenCheckFailed(TOKEN_EXPIRED)}: the token provider is told which token the server refused
 *       (not whatever it holds now, which another thread may already have refreshed) and the next attempt carries
 *       the newer token.</li>
 * </ul>
 * Both then fail the attempt with a retriable exception, as do lost connections and request timeouts; the call is
 * retried with the configured {@link Retry} within the caller's deadline. Every other error reply goes through the
 * one error table, {@link ReplyErrors}.
 *
 * <p>Long-lived sessions (a segment writer's append session, a segment reader's flow) cannot be one request and one
 * reply; they {@link #lease} a flow here and hand every error reply they get to {@link #failure}, so WrongHost and
 * token expiry are handled by the same code.
 *
 * <pre>{@code
 * SegmentCalls calls = new SegmentCalls(pool, locator, SegmentCalls.Config.DEFAULT);
 * StreamSegmentInfo info = calls.call(segment, tokens, "info of " + segment,
 *         (id, token) -> new GetStreamSegmentInfo(id, segment, token), StreamSegmentInfo.class, null);
 * }</pre>
 *
 * <p>Thread-safe and stateless apart from the pool and the locator it shares; cheap to create.
 */
public final class SegmentCalls {

    /**
     * How calls are retried.
     *
     * @param retry which failures are retried and how long to wait between attempts (lost connections, wrong host,
     *     expired tokens and request timeouts are retriable)
     * @param requestTimeout how long one attempt may wait for its reply
     */
    public record Config(Retry retry, Duration requestTimeout) {
        /** Pravega's retry policy (1 ms, ×10, up to 20 s, 10 attempts) and 30 s per request. */
        public static final Config DEFAULT = new Config(Retry.withExpBackoff(Duration.ofMillis(1), 10, 10,
                Duration.ofSeconds(20)), Duration.ofSeconds(30));

        /** Checks the values. */
        public Config {
            Objects.requireNonNull(retry, "retry");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            if (requestTimeout.isNegative() || requestTimeout.isZero()) {
                throw new IllegalArgumentException("requestTimeout must be positive: " + requestTimeout);
            }
        }
    }

    /** Builds one request from the request id it must carry and the delegation token to send. */
    @FunctionalInterface
    public interface RequestBuilder {
        /**
         * @param requestId the request id the request must carry
         * @param token the delegation token ({@code ""} without auth)
         * @return the request
         */
        Request build(long requestId, String token);
    }

    private final ConnectionPool pool;
    private final SegmentLocator locator;
    private final Config config;

    /**
     * @param pool where connections come from (not closed by this object)
     * @param locator where segments live
     * @param config retries and the timeout of one attempt
     */
    public SegmentCalls(ConnectionPool pool, SegmentLocator locator, Config config) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.locator = Objects.requireNonNull(locator, "locator");
        this.config = Objects.requireNonNull(config, "config");
    }

    /** @return calls over the same connections and locator, retried as {@code other} says */
    public SegmentCalls withConfig(Config other) {
        return new SegmentCalls(pool, locator, other);
    }

    /** @return the retry policy and request timeout of these calls */
    public Config config() {
        return config;
    }

    /** @return the connection pool the calls lease from */
    public ConnectionPool pool() {
        return pool;
    }

    /**
     * Sends one request to the segment store of {@code segment} and returns its reply, retrying as configured.
     * {@code WrongHost} and expired tokens are acted on and retried; every other reply is returned as it came, error
     * replies included, so that a caller can take one (a failed condition, a missing key) as an answer.
     *
     * @param segment the qualified segment name the request is about (where it is sent)
     * @param tokens the delegation tokens for the segment's stream; {@code null} without auth
     * @param what the operation, for messages ("info of scope/stream/0.#epoch.0")
     * @param request builds the request from a request id and a token; called again for every attempt
     * @param deadline the caller's deadline (no attempt waits, and no backoff sleeps, past it); {@code null} for the
     *     retry policy's patience alone
     * @return the reply
     * @throws io.sluice.errors.RetriesExhaustedException if the retriable failures did not stop in time
     * @throws io.sluice.errors.AuthorizationException if the server refused the token for another reason than expiry
     */
    public Reply call(String segment, DelegationTokenProvider tokens, String what, RequestBuilder request,
                      Deadline deadline) {
        Objects.requireNonNull(segment, "segment");
        Objects.requireNonNull(request, "request");
        return config.retry().run(what, deadline, () -> callOnce(segment, tokens, request, attemptDeadline(deadline)));
    }

    /**
     * Like {@link #call(String, DelegationTokenProvider, String, RequestBuilder, Deadline)}, but returns only a
     * reply of type {@code expected}: an error reply becomes its exception through the error table, any other reply
     * a {@link ProtocolException}.
     */
    public <R extends Reply> R call(String segment, DelegationTokenProvider tokens, String what,
                                    RequestBuilder request, Class<R> expected, Deadline deadline) {
        Reply reply = call(segment, tokens, what, request, deadline);
        if (expected.isInstance(reply)) {
            return expected.cast(reply);
        }
        throw unexpected(segment, reply, what);
    }

    /**
     * One attempt of a call, not retried: for waits whose caller loops on its own (a long poll at the end of a
     * segment). A {@code WrongHost} or expired-token reply is acted on as in {@link #call} and thrown as its
     * (retriable) exception.
     *
     * @param deadline how long to wait for the reply
     * @return the reply, other error replies included
     * @throws io.sluice.errors.ConnectionFailedException if the connection failed first
     * @throws io.sluice.errors.DeadlineExceededException if no reply came in time, or the refresh of an expired
     *     token did not finish in time
     */
    public Reply callOnce(String segment, DelegationTokenProvider tokens, RequestBuilder request, Deadline deadline) {
        try (Lease lease = lease(segment, deadline)) {
            long id = lease.nextRequestId();
            String token = token(tokens, deadline);
            Request r = request.build(id, token);
            if (r.requestId() != id) {
                throw new IllegalArgumentException(r.type() + " must carry the request id it was given (" + id + ")");
            }
            lease.sendNow(r); // the caller waits for the reply and holds no lock: spare the writer thread's wake-up
            while (true) {
                Reply reply = lease.await(deadline);
                if (reply.requestId() != id) {
                    continue; // a keep-alive, or a late reply to an earlier request of this flow
                }
                if (reply instanceof WrongHost || (reply instanceof AuthTokenCheckFailed a && a.isTokenExpired())) {
                    throw failure(segment, tokens, token, (ErrorReply) reply, deadline, lease.endpoint());
                }
                return reply;
            }
        }
    }

    /**
     * Runs {@code attempt} with the configured retry policy within {@code deadline}: for sessions whose attempts
     * are more than one request.
     *
     * @param deadline {@code null} for the retry policy's patience alone
     */
    public <T> T retrying(String what, Deadline deadline, Retry.Attempt<T> attempt) {
        return config.retry().run(what, deadline, attempt);
    }

    /**
     * Leases a flow to the segment store that serves {@code segment} (asking the locator, which may ask the
     * controller). Close the lease when done. When the segment store cannot be reached, its cached endpoint is
     * forgotten (unless another thread fetched a newer one meanwhile), so the next attempt asks the controller again:
     * the segment may be served elsewhere now (a standby server took over the data directory on other ports).
     *
     * @throws io.sluice.errors.ConnectionFailedException if the segment store cannot be reached (retriable)
     */
    public Lease lease(String segment, Deadline deadline) {
        Endpoint endpoint = locator.endpoint(segment);
        try {
            return pool.lease(endpoint, deadline);
        } catch (ConnectionFailedException e) {
            locator.invalidate(segment, endpoint);
            throw e;
        }
    }

    /**
     * @param tokens the delegation tokens, {@code null} without auth
     * @return the token to send now ({@code ""} without auth); blocks only when the provider must fetch one
     */
    public String token(DelegationTokenProvider tokens, Deadline deadline) {
        return tokens == null ? "" : tokens.token(deadline);
    }

    /**
     * The one handler of error replies: what a caller throws for {@code error}. {@code WrongHost} forgets the
     * segment's cached endpoint; {@code AuthTokenCheckFailed(TOKEN_EXPIRED)} has {@code tokens} refresh past
     * {@code sentToken}, the token the refused request carried. Both give retriable exceptions. Every other error
     * reply maps through {@link ReplyErrors}.
     *
     * @param segment the segment the refused request was about
     * @param tokens the delegation tokens it was sent with, {@code null} without auth
     * @param sentToken the token the refused request carried
     * @param error the error reply
     * @return the exception to throw
     */
    public SluiceException failure(String segment, DelegationTokenProvider tokens, String sentToken, ErrorReply error) {
        return failure(segment, tokens, sentToken, error, null, null);
    }

    /**
     * As above; the token refresh waits no longer than {@code deadline} ({@code null}: the provider's timeout), and
     * a WrongHost from {@code from} forgets the cached endpoint only if it is still {@code from} ({@code null}: in
     * any case), so an answer another thread fetched meanwhile is kept.
     */
    private SluiceException failure(String segment, DelegationTokenProvider tokens, String sentToken, ErrorReply error,
                                    Deadline deadline, Endpoint from) {
        switch (error) {
            case WrongHost w -> {
                if (from == null) {
                    locator.invalidate(segment);
                } else {
                    locator.invalidate(segment, from);
                }
                return new WrongHostException("segment store does not own " + segment
                        + (w.correctHost().isEmpty() ? "" : " (it says " + w.correctHost() + " does)"));
            }
            case AuthTokenCheckFailed a when a.isTokenExpired() -> {
                if (tokens != null && deadline != null) {
                    tokens.refreshAfterExpired(sentToken, deadline);
                } else if (tokens != null) {
                    tokens.refreshAfterExpired(sentToken);
                }
                return new TokenExpiredException("the delegation token for " + segment + " expired");
            }
            default -> {
                return ReplyErrors.toException(error);
            }
        }
    }

    /**
     * @param what the operation that got {@code reply}
     * @return the exception for a reply that is not the expected one: an error reply through the error table
     *     (WrongHost and expired tokens never reach here from {@link #call}), anything else a protocol violation
     */
    public SluiceException unexpected(String segment, Reply reply, String what) {
        if (reply instanceof ErrorReply e && !(e instanceof WrongHost) && !(e instanceof AuthTokenCheckFailed a
                && a.isTokenExpired())) {
            return ReplyErrors.toException(e);
        }
        return new ProtocolException("segment store answered " + reply.type() + " to " + what + " (segment "
                + segment + ")");
    }

    private Deadline attemptDeadline(Deadline caller) {
        Deadline attempt = Deadline.after(config.requestTimeout());
        return caller == null ? attempt : attempt.min(caller);
    }
}
