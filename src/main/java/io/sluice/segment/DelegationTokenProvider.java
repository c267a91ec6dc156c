package io.sluice.segment;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.auth.AccessOperation;
import io.sluice.common.Deadline;
import io.sluice.common.Jwt;
import io.sluice.common.TokenCache;
import io.sluice.controller.ControllerClient;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.stream.ScopedStream;

/**
 * Keeps the controller's delegation token for one (scope, stream, access) and hands it to every wire command that
 * carries one ({@code SetupAppend}, {@code ReadSegment}, ...). The segment store checks it; the client treats it as
 * opaque except for its expiry.
 *
 * <pre>{@code
 * DelegationTokenProvider tokens = new DelegationTokenProvider("scope", "stream", AccessOperation.READ_WRITE,
 *         () -> controller.getDelegationToken("scope", "stream", AccessOperation.READ_WRITE));
 * connection.send(new SetupAppend(requestId, writerId, segment, tokens.token()));
 * // on AuthTokenCheckFailed(TOKEN_EXPIRED) for a request that carried token t:
 * String fresh = tokens.refreshAfterExpired(t);
 * }</pre>
 *
 * <p><b>When it fetches.</b>
 * <ul>
 *   <li>On first use.</li>
 *   <li>Before expiry: a token that is a JWT (three base64url parts) with an {@code exp} claim is replaced once the
 *       time is within the refresh threshold of {@code exp} (5 s by default, as in Pravega's client; at most half the
 *       token's lifetime). Callers meanwhile wait for the one fetch; if it fails or is late while the old token is
 *       still valid, they keep the old token and the fetch is retried a second later.</li>
 *   <li>After the segment store answered {@code AuthTokenCheckFailed(TOKEN_EXPIRED)}:
 *       {@link #refreshAfterExpired(String)} fetches once, however many callers report the same stale token; a
 *       caller that reports a token already replaced gets the new one without a fetch.</li>
 * </ul>
 * A token that is not a JWT, or has no readable {@code exp}, is reused until the server says it expired. If {@code exp}
 * is already past when the token arrives (the clocks disagree), it is treated the same way, with a warning. The
 * empty token {@code ""} means the controller has auth disabled: it never expires and is never fetched again.
 *
 * <p>Thread-safe without locks: at most one fetch is in flight; it runs on its own virtual thread, never under a
 * lock; callers wait for it up to the fetch timeout (or the deadline they pass).
 */
public final class DelegationTokenProvider {
    private static final Logger LOG = LoggerFactory.getLogger(DelegationTokenProvider.class);

    /** Refresh a JWT this long before its {@code exp} (Pravega's {@code pravega.client.auth.token-refresh.threshold}). */
    public static final Duration DEFAULT_REFRESH_THRESHOLD = Duration.ofSeconds(5);
    /** How long callers wait for a fetch by default. The token source should give up sooner. */
    public static final Duration DEFAULT_FETCH_TIMEOUT = Duration.ofSeconds(60);

    /**
     * Fetches a delegation token from the controller, e.g. {@code getDelegationToken(scope, stream, READ_WRITE)}.
     * Called on a virtual thread of the provider's, one call at a time.
     */
    @FunctionalInterface
    public interface TokenSource {
        /**
         * @return a new token; {@code ""} if the controller has auth disabled
         * @throws SluiceException if it cannot get one (a retriable one for transient trouble)
         */
        String fetch();
    }

    private final String scope;
    private final String stream;
    private final AccessOperation access;
    private final TokenSource source;
    private final Duration refreshThreshold;
    private final Duration fetchTimeout;
    private final InstantSource clock;
    private final TokenCache cache;

    /**
     * A provider with the default refresh threshold (5 s), fetch timeout (60 s) and the system clock.
     *
     * @param scope the scope
     * @param stream the stream
     * @param access what the token is for
     * @param source fetches a token from the controller
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code scope} or {@code stream} is empty
     */
    public DelegationTokenProvider(String scope, String stream, AccessOperation access, TokenSource source) {
        this(scope, stream, access, source, DEFAULT_REFRESH_THRESHOLD, DEFAULT_FETCH_TIMEOUT, InstantSource.system());
    }

    /**
     * A provider of {@code controller}'s tokens for {@code stream} ({@code getDelegationToken}), with the defaults. If
     * the controller has already answered with the empty token ({@link ControllerClient#grantsEmptyTokens()}: it runs
     * without auth, for every stream), the provider starts with that token and never calls, as one that fetched it
     * would: the first request on the stream does not wait for a round trip to the controller.
     *
     * @param controller the controller to ask
     * @param stream the stream
     * @param access what the token is for
     * @return the provider
     * @throws NullPointerException if an argument is null
     */
    public static DelegationTokenProvider fromController(ControllerClient controller, ScopedStream stream,
                                                         AccessOperation access) {
        Objects.requireNonNull(controller, "controller");
        Objects.requireNonNull(access, "access");
        DelegationTokenProvider p = new DelegationTokenProvider(stream.scope(), stream.name(), access,
                () -> controller.delegationToken(stream, access));
        if (controller.grantsEmptyTokens()) {
            p.offer("");
        }
        return p;
    }

    /**
     * @param scope the scope
     * @param stream the stream
     * @param access what the token is for
     * @param source fetches a token from the controller
     * @param refreshThreshold how long before a JWT's {@code exp} to fetch a new one; zero or more
     * @param fetchTimeout how long {@link #token()} and {@link #refreshAfterExpired(String)} wait for a fetch
     * @param clock the time compared with {@code exp} (tests inject one)
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code scope} or {@code stream} is empty, the threshold is negative or the
     *                                  timeout not positive
     */
    public DelegationTokenProvider(String scope, String stream, AccessOperation access, TokenSource source,
                                   Duration refreshThreshold, Duration fetchTimeout, InstantSource clock) {
        this.scope = requireNonEmpty("scope", scope);
        this.stream = requireNonEmpty("stream", stream);
        this.access = Objects.requireNonNull(access, "access");
        this.source = Objects.requireNonNull(source, "source");
        this.refreshThreshold = Objects.requireNonNull(refreshThreshold, "refreshThreshold");
        this.fetchTimeout = Objects.requireNonNull(fetchTimeout, "fetchTimeout");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (refreshThreshold.isNegative()) {
            throw new IllegalArgumentException("refreshThreshold must not be negative: " + refreshThreshold);
        }
        if (fetchTimeout.isNegative() || fetchTimeout.isZero()) {
            throw new IllegalArgumentException("fetchTimeout must be positive: " + fetchTimeout);
        }
        this.cache = new TokenCache("delegation (" + scope + "/" + stream + ", " + access + ")", this::fetch, clock);
    }

    /**
     * Returns the token to put in a wire command; blocks only when a fetch is needed (first use, or near expiry),
     * up to the fetch timeout.
     *
     * @return the token; {@code ""} if auth is disabled
     * @throws DeadlineExceededException if a needed fetch did not finish in time
     * @throws StreamingInterruptedException if interrupted while waiting
     * @throws SluiceException whatever the token source threw
     */
    public String token() {
        return token(Deadline.after(fetchTimeout));
    }

    /**
     * As {@link #token()}, waiting for a fetch no longer than {@code deadline}.
     *
     * @param deadline how long to wait
     * @return the token
     * @throws DeadlineExceededException if a needed fetch did not finish in time
     * @throws StreamingInterruptedException if interrupted while waiting
     * @throws SluiceException whatever the token source threw
     */
    public String token(Deadline deadline) {
        return cache.get(Objects.requireNonNull(deadline, "deadline"));
    }

    /**
     * Called after the segment store answered {@code AuthTokenCheckFailed(TOKEN_EXPIRED)} to a command that carried
     * {@code staleToken}: returns a newer token. If the provider still holds {@code staleToken} it fetches a new one
     * (once, however many threads report it at the same time); if it already holds another, that is returned without
     * a fetch. The empty token is never refetched. Blocks up to the fetch timeout.
     *
     * @param staleToken the token the server turned down
     * @return the token to retry with
     * @throws NullPointerException if {@code staleToken} is null
     * @throws DeadlineExceededException if the fetch did not finish in time
     * @throws StreamingInterruptedException if interrupted while waiting
     * @throws SluiceException whatever the token source threw
     */
    public String refreshAfterExpired(String staleToken) {
        return refreshAfterExpired(staleToken, Deadline.after(fetchTimeout));
    }

    /**
     * As {@link #refreshAfterExpired(String)}, waiting no longer than {@code deadline}.
     *
     * @param staleToken the token the server turned down
     * @param deadline how long to wait
     * @return the token to retry with
     * @throws NullPointerException if an argument is null
     * @throws DeadlineExceededException if the fetch did not finish in time
     * @throws StreamingInterruptedException if interrupted while waiting
     * @throws SluiceException whatever the token source threw
     */
    public String refreshAfterExpired(String staleToken, Deadline deadline) {
        Objects.requireNonNull(staleToken, "staleToken");
        return cache.refreshAfterRejected(staleToken, Objects.requireNonNull(deadline, "deadline"));
    }

    /**
     * Offers a token that came with another controller answer (e.g. {@code getCurrentSegments} or
     * {@code createTransaction} return one), saving a fetch. It is taken if the provider holds none yet, if the held
     * one was reported expired, or if it expires later than the held one. Never blocks.
     *
     * @param token the token
     * @return true if it was taken
     * @throws NullPointerException if {@code token} is null
     */
    public boolean offer(String token) {
        Objects.requireNonNull(token, "token");
        return cache.offer(describe(token, clock.instant()));
    }

    /** @return the scope */
    public String scope() {
        return scope;
    }

    /** @return the stream */
    public String stream() {
        return stream;
    }

    /** @return what the token is for */
    public AccessOperation access() {
        return access;
    }

    /** @return the scope, stream and access, never the token */
    @Override
    public String toString() {
        return "DelegationTokenProvider[" + scope + "/" + stream + ", " + access + "]";
    }

    /** @return how many fetches were started (for tests) */
    int fetchCount() {
        return cache.fetchCount();
    }

    /** @return how many callers wait for a fetch (for tests) */
    int waitingCount() {
        return cache.waitingCount();
    }

    private TokenCache.Token fetch(Instant start) {
        String token = source.fetch();
        if (token == null) {
            throw new ProtocolException("the token source for " + scope + "/" + stream + " (" + access
                    + ") returned null instead of a delegation token");
        }
        return describe(token, start);
    }

    /** @return the token with its refresh and expiry times, counting from {@code now} */
    private TokenCache.Token describe(String token, Instant now) {
        if (token.isEmpty()) {
            return TokenCache.Token.permanent(token);
        }
        Instant exp = Jwt.expiry(token);
        if (exp == null) {
            return TokenCache.Token.untilRejected(token);
        }
        Duration lifetime = Duration.between(now, exp);
        if (lifetime.isNegative() || lifetime.isZero()) {
            LOG.warn("delegation token for {}/{} expired at {} but arrived at {} by the local clock; clocks differ?"
                    + " Using it until the server says it expired", scope, stream, exp, now);
            return TokenCache.Token.untilRejected(token);
        }
        Duration margin = refreshThreshold.compareTo(lifetime.dividedBy(2)) <= 0 ? refreshThreshold
                : lifetime.dividedBy(2);
        return new TokenCache.Token(token, exp.minus(margin), exp, false);
    }

    private static String requireNonEmpty(String what, String value) {
        Objects.requireNonNull(value, what);
        if (value.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        return value;
    }
}
