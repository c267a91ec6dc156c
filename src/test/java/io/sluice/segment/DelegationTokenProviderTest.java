package io.sluice.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.common.Await;
import io.sluice.common.MutableClock;
import io.sluice.auth.AccessOperation;
import io.sluice.common.TestJwts;
import io.sluice.common.TokenCache;
import io.sluice.common.Deadline;
import io.sluice.controller.ControllerClient;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.stream.ScopedStream;

@Timeout(30)
class DelegationTokenProviderTest {
    private final MutableClock clock = new MutableClock();

    /** A controller stand-in: answers each fetch with the next scripted answer. */
    private static final class ScriptedSource implements DelegationTokenProvider.TokenSource {
        private final BlockingQueue<Supplier<String>> answers = new LinkedBlockingQueue<>();
        private final AtomicInteger calls = new AtomicInteger();

        void answer(String token) {
            answers.add(() -> token);
        }

        void fail(RuntimeException e) {
            answers.add(() -> {
                throw e;
            });
        }

        /** The next fetch blocks until {@code gate} opens, then returns {@code token}. */
        void answerWhenOpen(CountDownLatch gate, String token) {
            answers.add(() -> {
                try {
                    if (!gate.await(10, TimeUnit.SECONDS)) {
                        throw new AssertionError("gate never opened");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
                return token;
            });
        }

        int calls() {
            return calls.get();
        }

        @Override
        public String fetch() {
            calls.incrementAndGet();
            Supplier<String> next = answers.poll();
            if (next == null) {
                throw new AssertionError("unexpected fetch #" + calls.get());
            }
            return next.get();
        }
    }

    private final ScriptedSource source = new ScriptedSource();

    private DelegationTokenProvider provider() {
        return new DelegationTokenProvider("scope", "stream", AccessOperation.READ_WRITE, source,
                DelegationTokenProvider.DEFAULT_REFRESH_THRESHOLD, Duration.ofSeconds(10), clock);
    }

    private String jwt(long expiresInSeconds, String id) {
        return TestJwts.expiringAt(clock.instant().plusSeconds(expiresInSeconds), id);
    }

    @Test
    void fetchesOnFirstUseAndCaches() {
        DelegationTokenProvider tokens = provider();
        String t1 = jwt(120, "t1");
        source.answer(t1);
        for (int i = 0; i < 10; i++) {
            assertThat(tokens.token()).isEqualTo(t1);
        }
        assertThat(source.calls()).isEqualTo(1);
    }

    /**
     * A controller that answers getDelegationToken from {@code source} and says whether it grants empty tokens; any
     * other call fails the test.
     */
    private static ControllerClient controller(ScriptedSource source, boolean grantsEmptyTokens) {
        return (ControllerClient) Proxy.newProxyInstance(ControllerClient.class.getClassLoader(),
                new Class<?>[] {ControllerClient.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "delegationToken" -> source.fetch();
                    case "grantsEmptyTokens" -> grantsEmptyTokens;
                    default -> throw new AssertionError("unexpected controller call " + method.getName());
                });
    }

    @Test
    void fromAControllerThatGrantsEmptyTokensStartsWithTheEmptyTokenAndNeverAsks() {
        DelegationTokenProvider tokens = DelegationTokenProvider.fromController(controller(source, true),
                ScopedStream.of("scope", "stream"), AccessOperation.READ);
        assertThat(tokens.token()).isEmpty();
        assertThat(tokens.token()).isEmpty();
        // as for an empty token fetched: it is the controller's answer for as long as it runs without auth
        assertThat(tokens.refreshAfterExpired("")).isEmpty();
        assertThat(source.calls()).as("no call to the controller").isZero();
    }

    @Test
    void fromAControllerNotKnownToGrantEmptyTokensAsksOnFirstUse() {
        DelegationTokenProvider tokens = DelegationTokenProvider.fromController(controller(source, false),
                ScopedStream.of("scope", "stream"), AccessOperation.READ);
        String t1 = jwt(120, "t1");
        source.answer(t1);
        assertThat(tokens.token()).isEqualTo(t1);
        assertThat(source.calls()).isEqualTo(1);
        assertThat(tokens.access()).isEqualTo(AccessOperation.READ);
        assertThat(tokens.stream()).isEqualTo("stream");
    }

    @Test
    void refreshesWithinTheThresholdBeforeExp() {
        DelegationTokenProvider tokens = provider();
        String t1 = jwt(120, "t1");
        source.answer(t1);
        tokens.token();

        clock.advanceSeconds(114); // 6 s before exp: outside the 5 s threshold
        assertThat(tokens.token()).isEqualTo(t1);
        assertThat(source.calls()).isEqualTo(1);

        String t2 = jwt(120, "t2");
        source.answer(t2);
        clock.advanceSeconds(1); // exactly 5 s before exp
        assertThat(tokens.token()).isEqualTo(t2);
        assertThat(tokens.token()).isEqualTo(t2);
        assertThat(source.calls()).isEqualTo(2);
    }

    @Test
    void aTokenShorterThanTwiceTheThresholdIsRefreshedAtHalfItsLifetime() {
        DelegationTokenProvider tokens = provider();
        source.answer(jwt(4, "short"));
        tokens.token();
        clock.advance(Duration.ofMillis(1999));
        tokens.token();
        assertThat(source.calls()).isEqualTo(1);
        clock.advance(Duration.ofMillis(1));
        source.answer(jwt(4, "short-2"));
        tokens.token();
        assertThat(source.calls()).isEqualTo(2);
    }

    @Test
    void refreshAfterExpiredFetchesExactlyOnceForManyConcurrentCallers() throws Exception {
        DelegationTokenProvider tokens = provider();
        String t1 = jwt(600, "t1");
        source.answer(t1);
        assertThat(tokens.token()).isEqualTo(t1);

        String t2 = jwt(600, "t2");
        CountDownLatch gate = new CountDownLatch(1);
        source.answerWhenOpen(gate, t2);
        int callers = 16;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                // half report the expiry, half just ask for a token meanwhile
                java.util.concurrent.Callable<String> call = i % 2 == 0 ? () -> tokens.refreshAfterExpired(t1)
                        : tokens::token;
                results.add(pool.submit(call));
            }
            Await.until("the reporters wait for the fetch", () -> tokens.waitingCount() >= callers / 2);
            gate.countDown();
            for (Future<String> result : results) {
                String got = result.get(10, TimeUnit.SECONDS);
                // a plain token() that ran before the first report may still have seen t1; nobody gets anything else
                assertThat(got).isIn(t1, t2);
            }
            for (int i = 0; i < callers; i += 2) {
                assertThat(results.get(i).get()).isEqualTo(t2);
            }
        } finally {
            gate.countDown();
            pool.shutdownNow();
        }
        assertThat(source.calls()).isEqualTo(2);
        assertThat(tokens.fetchCount()).isEqualTo(2);

        // a late report of the same stale token gets the new one without a fetch
        assertThat(tokens.refreshAfterExpired(t1)).isEqualTo(t2);
        assertThat(tokens.token()).isEqualTo(t2);
        assertThat(source.calls()).isEqualTo(2);
    }

    @Test
    void allConcurrentReportersWaitForTheOneFetch() throws Exception {
        DelegationTokenProvider tokens = provider();
        String t1 = jwt(600, "t1");
        source.answer(t1);
        tokens.token();
        String t2 = jwt(600, "t2");
        CountDownLatch gate = new CountDownLatch(1);
        source.answerWhenOpen(gate, t2);
        int callers = 12;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                results.add(pool.submit(() -> tokens.refreshAfterExpired(t1)));
            }
            Await.until("every caller waits", () -> tokens.waitingCount() == callers);
            gate.countDown();
            for (Future<String> result : results) {
                assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo(t2);
            }
        } finally {
            gate.countDown();
            pool.shutdownNow();
        }
        assertThat(source.calls()).isEqualTo(2);
    }

    @Test
    void reportingATokenThatWasAlreadyReplacedDoesNotFetch() {
        DelegationTokenProvider tokens = provider();
        String t1 = jwt(600, "t1");
        source.answer(t1);
        tokens.token();
        assertThat(tokens.refreshAfterExpired("some-older-token")).isEqualTo(t1);
        assertThat(source.calls()).isEqualTo(1);
    }

    @Test
    void theEmptyTokenNeverExpiresAndIsNeverRefetched() {
        DelegationTokenProvider tokens = provider();
        source.answer("");
        assertThat(tokens.token()).isEmpty();
        clock.advance(Duration.ofDays(3650));
        assertThat(tokens.token()).isEmpty();
        assertThat(tokens.refreshAfterExpired("")).isEmpty();
        assertThat(tokens.offer(jwt(60, "late"))).isFalse();
        assertThat(tokens.token()).isEmpty();
        assertThat(source.calls()).isEqualTo(1);
    }

    @Test
    void aTokenThatIsNotAJwtIsReusedUntilReportedExpired() {
        DelegationTokenProvider tokens = provider();
        source.answer("opaque-1");
        assertThat(tokens.token()).isEqualTo("opaque-1");
        clock.advance(Duration.ofDays(365));
        assertThat(tokens.token()).isEqualTo("opaque-1");
        assertThat(source.calls()).isEqualTo(1);

        source.answer("opaque-2");
        assertThat(tokens.refreshAfterExpired("opaque-1")).isEqualTo("opaque-2");
        assertThat(tokens.token()).isEqualTo("opaque-2");
        assertThat(source.calls()).isEqualTo(2);
    }

    @Test
    void aJwtAlreadyPastItsExpOnArrivalIsUsedUntilReported() {
        DelegationTokenProvider tokens = provider();
        String skewed = jwt(-30, "skewed"); // the controller's clock is behind ours
        source.answer(skewed);
        assertThat(tokens.token()).isEqualTo(skewed);
        assertThat(tokens.token()).isEqualTo(skewed);
        assertThat(source.calls()).isEqualTo(1);
    }

    @Test
    void aFailedFetchWithNoTokenPropagatesAndTheNextCallTriesAgain() {
        DelegationTokenProvider tokens = provider();
        source.fail(new ConnectionFailedException("controller at tcp://127.0.0.1:9090 unreachable"));
        assertThatThrownBy(tokens::token)
                .isInstanceOf(ConnectionFailedException.class).hasMessageContaining("unreachable");
        String t1 = jwt(60, "t1");
        source.answer(t1);
        assertThat(tokens.token()).isEqualTo(t1);
        assertThat(source.calls()).isEqualTo(2);
    }

    @Test
    void aFailedRefreshBeforeExpiryKeepsTheOldToken() {
        DelegationTokenProvider tokens = provider();
        String t1 = jwt(60, "t1");
        source.answer(t1);
        tokens.token();
        clock.advanceSeconds(56); // due (4 s left), still valid
        source.fail(new ConnectionFailedException("controller down"));
        assertThat(tokens.token()).isEqualTo(t1);
        assertThat(tokens.token()).isEqualTo(t1);
        assertThat(source.calls()).isEqualTo(2);

        clock.advance(TokenCache.FAILED_REFRESH_BACKOFF);
        String t2 = jwt(60, "t2");
        source.answer(t2);
        assertThat(tokens.token()).isEqualTo(t2);
        assertThat(source.calls()).isEqualTo(3);
    }

    @Test
    void anExpiredTokenIsNotServedWhenTheRefreshFails() {
        DelegationTokenProvider tokens = provider();
        source.answer(jwt(60, "t1"));
        tokens.token();
        clock.advanceSeconds(60);
        source.fail(new ConnectionFailedException("controller down"));
        assertThatThrownBy(tokens::token).isInstanceOf(ConnectionFailedException.class);
    }

    @Test
    void aNullFromTheSourceIsAProtocolError() {
        DelegationTokenProvider tokens = provider();
        source.answer(null);
        assertThatThrownBy(tokens::token)
                .isInstanceOf(ProtocolException.class).hasMessageContaining("scope/stream");
    }

    @Test
    void waitingForASlowFetchEndsAtTheDeadline() {
        DelegationTokenProvider tokens = provider();
        CountDownLatch gate = new CountDownLatch(1);
        String t1 = jwt(60, "t1");
        source.answerWhenOpen(gate, t1);
        try {
            assertThatThrownBy(() -> tokens.token(Deadline.afterMillis(100)))
                    .isInstanceOf(DeadlineExceededException.class)
                    .hasMessageContaining("scope/stream");
        } finally {
            gate.countDown();
        }
        // the fetch went on without the caller who gave up, and its token is used
        assertThat(tokens.token()).isEqualTo(t1);
        assertThat(source.calls()).isEqualTo(1);
    }

    @Test
    void anInterruptedWaiterGetsStreamingInterruptedWithTheFlagSet() {
        DelegationTokenProvider tokens = provider();
        CountDownLatch gate = new CountDownLatch(1);
        source.answerWhenOpen(gate, jwt(60, "t1"));
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(tokens::token).isInstanceOf(StreamingInterruptedException.class);
            assertThat(Thread.interrupted()).isTrue();
        } finally {
            gate.countDown();
        }
    }

    @Test
    void anOfferedTokenSavesAFetchAndALaterOneReplacesIt() {
        DelegationTokenProvider tokens = provider();
        String offered = jwt(60, "offered");
        assertThat(tokens.offer(offered)).isTrue();
        assertThat(tokens.token()).isEqualTo(offered);
        assertThat(source.calls()).isZero();

        assertThat(tokens.offer(jwt(30, "sooner"))).isFalse();
        String later = jwt(90, "later");
        assertThat(tokens.offer(later)).isTrue();
        assertThat(tokens.token()).isEqualTo(later);
        assertThat(source.calls()).isZero();
    }

    @Test
    void anOfferReplacesATokenReportedExpired() {
        DelegationTokenProvider tokens = provider();
        source.answer("opaque-1");
        tokens.token();
        source.fail(new ConnectionFailedException("controller down"));
        assertThatThrownBy(() -> tokens.refreshAfterExpired("opaque-1")).isInstanceOf(ConnectionFailedException.class);
        assertThat(tokens.offer("opaque-2")).isTrue();
        assertThat(tokens.token()).isEqualTo("opaque-2");
    }

    @Test
    void constructorChecksItsArguments() {
        assertThatThrownBy(() -> new DelegationTokenProvider("", "s", AccessOperation.READ, source))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("scope");
        assertThatThrownBy(() -> new DelegationTokenProvider("s", null, AccessOperation.READ, source))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("stream");
        assertThatThrownBy(() -> new DelegationTokenProvider("s", "t", AccessOperation.READ, source,
                Duration.ofSeconds(-1), Duration.ofSeconds(1), clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("refreshThreshold");
        assertThatThrownBy(() -> new DelegationTokenProvider("s", "t", AccessOperation.READ, source,
                Duration.ZERO, Duration.ZERO, clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fetchTimeout");
        DelegationTokenProvider tokens = new DelegationTokenProvider("s", "t", AccessOperation.READ, source);
        assertThat(tokens.toString()).isEqualTo("DelegationTokenProvider[s/t, READ]");
        assertThat(AccessOperation.READ_WRITE.protoNumber()).isEqualTo(5);
    }
}
