package io.sluice.common;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.StreamingInterruptedException;

/**
 * A cached token that is fetched again before it expires, shared by {@code io.sluice.auth.OAuth2ClientCredentials}
 * and {@code io.sluice.segment.DelegationTokenProvider}.
 *
 * <p>Rules:
 * <ul>
 *   <li>A token is returned as is until its refresh time. From then on the next caller starts a fetch; every caller
 *       that needs a token meanwhile waits for that one fetch (at most one fetch is in flight), each up to its own
 *       deadline.</li>
 *   <li>Fetches run on their own virtual thread, never under a lock and never on a caller's thread, so a caller that
 *       gives up (deadline, interrupt) does not abort the fetch for the others.</li>
 *   <li>If a refresh fails or is late while the old token has not yet expired, callers keep getting the old token and
 *       the next attempt waits {@link #FAILED_REFRESH_BACKOFF} (no retry storm against a struggling server).</li>
 *   <li>{@link #refreshAfterRejected(String, Deadline)}: the server said a token is no longer good. If the cache
 *       still holds that token it is dropped and a new one fetched; if it already holds another one (someone else
 *       refreshed), that one is returned without a fetch. A permanent token is never dropped.</li>
 * </ul>
 *
 * <p>Thread-safe and lock-free: the state is one {@link AtomicReference} to the current token and one to the
 * in-flight fetch. A fetch publishes its token before it clears the in-flight reference, so a caller that sees no
 * fetch in flight also sees that fetch's token.
 */
public final class TokenCache {
    private static final Logger LOG = LoggerFactory.getLogger(TokenCache.class);

    /** The least time between two failed refresh attempts while the old token is still valid. */
    public static final Duration FAILED_REFRESH_BACKOFF = Duration.ofSeconds(1);

    /**
     * A token and when to replace it.
     *
     * @param value the token
     * @param refreshAt from when a new token should be fetched; null = not because of time (only when rejected)
     * @param expiresAt from when the token must not be used; null = unknown (assumed valid until rejected)
     * @param permanent true if it must never be fetched again, even when rejected (the empty delegation token)
     */
    public record Token(String value, Instant refreshAt, Instant expiresAt, boolean permanent) {
        /** Checks that the value is present. */
        public Token {
            Objects.requireNonNull(value, "value");
        }

        /** @return a token that is never refetched */
        public static Token permanent(String value) {
            return new Token(value, null, null, true);
        }

        /** @return a token with no known expiry: used until rejected */
        public static Token untilRejected(String value) {
            return new Token(value, null, null, false);
        }

        boolean freshAt(Instant now) {
            return refreshAt == null || now.isBefore(refreshAt);
        }

        boolean usableAt(Instant now) {
            return expiresAt == null || now.isBefore(expiresAt);
        }

        /** @return this token marked as turned down by the server: due for refresh and unusable */
        Token rejected() {
            return new Token(value, Instant.MIN, Instant.MIN, false);
        }

        boolean isRejected() {
            return Instant.MIN.equals(expiresAt);
        }

        Token refreshDeferredTo(Instant when) {
            Instant at = expiresAt != null && expiresAt.isBefore(when) ? expiresAt : when;
            return new Token(value, at, expiresAt, permanent);
        }

        @Override
        public String toString() {
            // never print the token itself: it is a secret
            return "Token[refreshAt=" + refreshAt + ", expiresAt=" + expiresAt + ", permanent=" + permanent + "]";
        }
    }

    /** Gets a new token from the server; blocks; throws a {@link SluiceException} on failure. */
    @FunctionalInterface
    public interface Fetcher {
        /**
         * @param now the time the fetch starts, by the cache's clock (lifetimes count from here)
         * @return the new token
         */
        Token fetch(Instant now);
    }

    private final String name;
    private final Fetcher fetcher;
    private final InstantSource clock;
    private final AtomicReference<Token> current = new AtomicReference<>();
    private final AtomicReference<CompletableFuture<Token>> inFlight = new AtomicReference<>();
    private final AtomicInteger fetches = new AtomicInteger();
    private final AtomicInteger waiting = new AtomicInteger();

    /**
     * @param name what the token is for, used in thread names, logs and messages (never the token itself)
     * @param fetcher how to get a new token
     * @param clock decides when tokens are due for refresh
     */
    public TokenCache(String name, Fetcher fetcher, InstantSource clock) {
        this.name = Objects.requireNonNull(name, "name");
        this.fetcher = Objects.requireNonNull(fetcher, "fetcher");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Returns a token fit for use now; blocks only when a fetch is needed.
     *
     * @param deadline how long to wait for a fetch
     * @return the token
     * @throws DeadlineExceededException if a needed fetch did not finish in time and no valid token is held
     * @throws StreamingInterruptedException if interrupted while waiting
     * @throws SluiceException whatever the fetch threw, when no valid token is held
     */
    public String get(Deadline deadline) {
        Token token = current.get();
        if (token != null && token.freshAt(clock.instant())) {
            return token.value();
        }
        return awaitFetch(deadline);
    }

    /**
     * Called when the server rejected {@code rejected} as expired: returns a newer token, fetching one only if no one
     * else has yet.
     *
     * @param rejected the token the server turned down
     * @param deadline how long to wait for a fetch
     * @return a token other than {@code rejected} (or the permanent token)
     * @throws DeadlineExceededException if the fetch did not finish in time
     * @throws StreamingInterruptedException if interrupted while waiting
     * @throws SluiceException whatever the fetch threw
     */
    public String refreshAfterRejected(String rejected, Deadline deadline) {
        Objects.requireNonNull(rejected, "rejected token");
        while (true) {
            Token token = current.get();
            if (token == null || token.permanent() || !token.value().equals(rejected)) {
                break; // nothing to drop: either never fetched, permanent, or already replaced
            }
            if (token.isRejected()) {
                break; // already marked by another caller
            }
            // mark it, so that every caller, plain get() included, waits for a new one
            if (current.compareAndSet(token, token.rejected())) {
                LOG.debug("{}: token rejected by the server, fetching a new one", name);
                break;
            }
        }
        return get(deadline);
    }

    /**
     * Offers a token obtained some other way (e.g. with another server answer). It replaces the cached token only if
     * there is none yet, if the cached one was rejected and the offered one differs, or if the cached one is not
     * permanent and the offered one expires later.
     *
     * @param token the offered token
     * @return true if it was taken
     */
    public boolean offer(Token token) {
        Objects.requireNonNull(token, "token");
        while (true) {
            Token held = current.get();
            boolean better = held == null
                    || held.isRejected() && !held.value().equals(token.value())
                    || !held.permanent() && held.expiresAt() != null && token.expiresAt() != null
                    && token.expiresAt().isAfter(held.expiresAt());
            if (!better) {
                return false;
            }
            if (current.compareAndSet(held, token)) {
                return true;
            }
        }
    }

    /** @return how many fetches were started (for tests and diagnostics) */
    public int fetchCount() {
        return fetches.get();
    }

    /** @return how many callers are now waiting for a fetch (for tests and diagnostics) */
    public int waitingCount() {
        return waiting.get();
    }

    private String awaitFetch(Deadline deadline) {
        CompletableFuture<Token> fetch = joinOrStartFetch();
        waiting.incrementAndGet();
        try {
            long remaining = deadline.remainingNanos();
            if (remaining <= 0) {
                throw new TimeoutException();
            }
            return fetch.get(remaining, TimeUnit.NANOSECONDS).value();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while waiting for a " + name + " token", e);
        } catch (TimeoutException e) {
            return stillValidOr(new DeadlineExceededException(
                    "no " + name + " token: fetching one did not finish before the deadline"));
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Error error) {
                throw error;
            }
            RuntimeException failure = cause instanceof RuntimeException re ? re
                    : new SluiceException("fetching a " + name + " token failed: " + cause, cause);
            return stillValidOr(failure);
        } finally {
            waiting.decrementAndGet();
        }
    }

    /** After a late or failed refresh: the old token if it may still be used, else the failure. */
    private String stillValidOr(RuntimeException failure) {
        Token held = current.get();
        if (held != null && held.usableAt(clock.instant())) {
            return held.value();
        }
        throw failure;
    }

    private CompletableFuture<Token> joinOrStartFetch() {
        while (true) {
            CompletableFuture<Token> running = inFlight.get();
            if (running != null) {
                return running;
            }
            Token seen = current.get();
            if (seen != null && seen.freshAt(clock.instant())) {
                return CompletableFuture.completedFuture(seen); // a fetch finished since get() looked
            }
            CompletableFuture<Token> mine = new CompletableFuture<>();
            if (!inFlight.compareAndSet(null, mine)) {
                continue;
            }
            // A fetch may have finished between reading current and winning the CAS; then it published its token
            // before clearing inFlight, so it is visible here and must not be fetched again.
            Token now = current.get();
            if (now != seen && now != null && now.freshAt(clock.instant())) {
                inFlight.compareAndSet(mine, null);
                mine.complete(now);
                return mine;
            }
            fetches.incrementAndGet();
            try {
                Threads.startVirtual("sluice-token-fetch-" + name, () -> runFetch(mine));
            } catch (RuntimeException | Error e) {
                inFlight.compareAndSet(mine, null);
                mine.completeExceptionally(e);
            }
            return mine;
        }
    }

    private void runFetch(CompletableFuture<Token> mine) {
        Instant start = clock.instant();
        Token fetched;
        try {
            fetched = Objects.requireNonNull(fetcher.fetch(start), "fetcher returned null");
        } catch (RuntimeException | Error e) {
            Token held = current.get();
            if (held != null && held.usableAt(clock.instant())) {
                Instant retryAt = clock.instant().plus(FAILED_REFRESH_BACKOFF);
                current.compareAndSet(held, held.refreshDeferredTo(retryAt));
                LOG.warn("{}: refreshing the token failed; using the current one until it expires at {}, next try at"
                        + " {}: {}", name, held.expiresAt(), retryAt, e.toString());
            } else {
                LOG.debug("{}: fetching a token failed: {}", name, e.toString());
            }
            inFlight.compareAndSet(mine, null);
            mine.completeExceptionally(e);
            return;
        }
        LOG.debug("{}: fetched a token: {}", name, fetched);
        current.set(fetched); // publish before clearing inFlight (see the class comment)
        inFlight.compareAndSet(mine, null);
        mine.complete(fetched);
    }
}
