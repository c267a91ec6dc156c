package io.sluice.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.sluice.auth.AccessOperation;
import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;
import io.sluice.common.Retry;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.ReplyErrors;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.errors.AuthorizationException;
import io.sluice.errors.BadKeyVersionException;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.InvalidRequestException;
import io.sluice.errors.NoSuchKeyException;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.RetriesExhaustedException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.TableSegmentNotEmptyException;
import io.sluice.errors.TokenExpiredException;
import io.sluice.errors.WrongHostException;
import io.sluice.wire.AuthTokenCheckFailed;
import io.sluice.wire.ErrorMessage;
import io.sluice.wire.ErrorReply;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.InvalidEventNumber;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.OperationUnsupported;
import io.sluice.wire.Reply;
import io.sluice.wire.SegmentAlreadyExists;
import io.sluice.wire.SegmentCreated;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentIsTruncated;
import io.sluice.wire.StreamSegmentInfo;
import io.sluice.wire.TableKeyBadVersion;
import io.sluice.wire.TableKeyDoesNotExist;
import io.sluice.wire.TableSegmentNotEmpty;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WrongHost;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The segment-call layer against scripted segment stores: WrongHost forgets the endpoint, an expired token is
 * refreshed past the refused one, every other error reply goes through the error table, lost connections and
 * timeouts are retried, and the caller's deadline bounds it all.
 */
@Timeout(60)
class SegmentCallsTest {
    private static final String SEG = "scope/stream/0.#epoch.0";
    /** Quick retries, plenty of them: a test that wants fewer says so. */
    private static final SegmentCalls.Config FAST = new SegmentCalls.Config(
            Retry.withExpBackoff(Duration.ofMillis(1), 2, 10, Duration.ofMillis(20)), Duration.ofSeconds(10));

    /** @return {@link #FAST} with {@code attempts} attempts in all */
    private static SegmentCalls.Config fast(int attempts) {
        return new SegmentCalls.Config(FAST.retry().withMaxAttempts(attempts), FAST.requestTimeout());
    }

    private final ConnectionPool pool = new ConnectionPool(new TcpConnectionFactory());
    private final List<ScriptedSegmentStore> stores = new ArrayList<>();

    @AfterEach
    void stop() throws IOException {
        pool.close();
        for (ScriptedSegmentStore s : stores) {
            s.close();
        }
    }

    // ------------------------------------------------------------------ fixtures

    /** A locator that answers its endpoints in turn, moving to the next one each time it is told to forget. */
    static final class CountingLocator implements SegmentLocator {
        private final List<Endpoint> answers;
        private final AtomicInteger lookups = new AtomicInteger();
        private final List<String> invalidated = new CopyOnWriteArrayList<>();

        CountingLocator(Endpoint... answers) {
            this.answers = List.of(answers);
        }

        @Override
        public Endpoint endpoint(String segment) {
            lookups.incrementAndGet();
            return answers.get(Math.min(invalidated.size(), answers.size() - 1));
        }

        @Override
        public void invalidate(String segment) {
            invalidated.add(segment);
        }

        int lookups() {
            return lookups.get();
        }

        List<String> invalidated() {
            return List.copyOf(invalidated);
        }
    }

    /** A controller stand-in for tokens: answers each fetch with the next scripted answer and counts the fetches. */
    static final class CountingSource implements DelegationTokenProvider.TokenSource {
        private final BlockingQueue<Supplier<String>> answers = new LinkedBlockingQueue<>();
        private final AtomicInteger fetches = new AtomicInteger();

        CountingSource answer(String... tokens) {
            for (String t : tokens) {
                answers.add(() -> t);
            }
            return this;
        }

        /** The next fetch waits for {@code gate} (at most 30 s) and then returns {@code token}. */
        CountingSource answerWhenOpen(CountDownLatch gate, String token) {
            answers.add(() -> {
                try {
                    gate.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return token;
            });
            return this;
        }

        int fetches() {
            return fetches.get();
        }

        @Override
        public String fetch() {
            int n = fetches.incrementAndGet();
            Supplier<String> next = answers.poll();
            if (next == null) {
                throw new SluiceException("unexpected token fetch #" + n);
            }
            return next.get();
        }
    }

    /** @return a JWT-shaped token (unsigned: the client never checks) valid for an hour by the local clock */
    static String jwt(String id) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        long exp = Instant.now().plus(Duration.ofHours(1)).getEpochSecond();
        String payload = "{\"sub\":\"" + id + "\",\"aud\":\"segmentstore\",\"exp\":" + exp + "}";
        return b64.encodeToString("{\"alg\":\"HS512\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(payload.getBytes(StandardCharsets.UTF_8)) + ".c2lnbmF0dXJl";
    }

    private static DelegationTokenProvider provider(CountingSource source) {
        return new DelegationTokenProvider("scope", "stream", AccessOperation.READ, source,
                DelegationTokenProvider.DEFAULT_REFRESH_THRESHOLD, Duration.ofSeconds(20), InstantSource.system());
    }

    private ScriptedSegmentStore store(ScriptedSegmentStore.Script script) throws IOException {
        ScriptedSegmentStore s = new ScriptedSegmentStore(script);
        stores.add(s);
        return s;
    }

    /** @return a store that answers every GetStreamSegmentInfo with a segment of {@code length} bytes */
    private ScriptedSegmentStore infoStore(long length) throws IOException {
        return store((conn, request, peer) -> {
            if (request instanceof GetStreamSegmentInfo g) {
                peer.send(info(g.requestId(), length));
            }
        });
    }

    /** @return a store that answers every GetStreamSegmentInfo with {@code error} */
    private ScriptedSegmentStore failingStore(LongFunction<? extends WireCommand> error) throws IOException {
        return store((conn, request, peer) -> {
            if (request instanceof GetStreamSegmentInfo g) {
                peer.send(error.apply(g.requestId()));
            }
        });
    }

    private static StreamSegmentInfo info(long requestId, long length) {
        return new StreamSegmentInfo(requestId, SEG, true, false, false, 0, length, 0);
    }

    private static SegmentCalls.RequestBuilder getInfo() {
        return (id, token) -> new GetStreamSegmentInfo(id, SEG, token);
    }

    private static StreamSegmentInfo callInfo(SegmentCalls calls, DelegationTokenProvider tokens, Deadline deadline) {
        return calls.call(SEG, tokens, "info of " + SEG, getInfo(), StreamSegmentInfo.class, deadline);
    }

    private static List<String> tokensSent(ScriptedSegmentStore store) {
        return store.received().stream().map(c -> ((GetStreamSegmentInfo) c).delegationToken()).toList();
    }

    private static Deadline tenSeconds() {
        return Deadline.after(Duration.ofSeconds(10));
    }

    // ------------------------------------------------------------------ WrongHost

    @Test
    void wrongHostForgetsTheEndpointAndTheRetryGoesToTheNewOne() throws IOException {
        ScriptedSegmentStore old = failingStore(id -> new WrongHost(id, SEG, "", ""));
        ScriptedSegmentStore moved = infoStore(42);
        CountingLocator locator = new CountingLocator(old.endpoint(), moved.endpoint());
        SegmentCalls calls = new SegmentCalls(pool, locator, FAST);

        assertThat(callInfo(calls, null, tenSeconds()).writeOffset()).isEqualTo(42);
        assertThat(locator.invalidated()).containsExactly(SEG);
        assertThat(locator.lookups()).isEqualTo(2);
        assertThat(old.received()).hasSize(1);
        assertThat(moved.received()).hasSize(1);
    }

    @Test
    void wrongHostOnEveryAttemptExhaustsTheRetries() throws IOException {
        ScriptedSegmentStore old = failingStore(id -> new WrongHost(id, SEG, "10.0.0.9:12345", ""));
        CountingLocator locator = new CountingLocator(old.endpoint());
        SegmentCalls calls = new SegmentCalls(pool, locator, fast(3));

        assertThatThrownBy(() -> callInfo(calls, null, tenSeconds())).isInstanceOf(RetriesExhaustedException.class)
                .hasMessageContaining("info of " + SEG).hasMessageContaining("3 attempts")
                .cause().isInstanceOf(WrongHostException.class).hasMessageContaining("10.0.0.9:12345");
        assertThat(locator.invalidated()).containsExactly(SEG, SEG, SEG);
        assertThat(old.received()).hasSize(3);
    }

    // ------------------------------------------------------------------ tokens

    @Test
    void anExpiredTokenIsRefreshedAndTheRetryCarriesTheNewOne() throws IOException {
        String t1 = jwt("t1");
        String t2 = jwt("t2");
        CountingSource source = new CountingSource().answer(t1, t2);
        DelegationTokenProvider tokens = provider(source);
        ScriptedSegmentStore store = store((conn, request, peer) -> {
            GetStreamSegmentInfo g = (GetStreamSegmentInfo) request;
            peer.send(g.delegationToken().equals(t1)
                    ? new AuthTokenCheckFailed(g.requestId(), "", AuthTokenCheckFailed.ErrorCode.TOKEN_EXPIRED)
                    : info(g.requestId(), 7));
        });
        SegmentCalls calls = new SegmentCalls(pool, new CountingLocator(store.endpoint()), FAST);

        assertThat(callInfo(calls, tokens, tenSeconds()).writeOffset()).isEqualTo(7);
        assertThat(tokensSent(store)).containsExactly(t1, t2);
        assertThat(source.fetches()).isEqualTo(2);
        assertThat(tokens.token()).isEqualTo(t2);
    }

    @Test
    void aRefreshByAnotherCallerMeanwhileIsNotUndone() throws IOException {
        String t1 = jwt("t1");
        String t2 = jwt("t2");
        String t3 = jwt("t3");
        CountingSource source = new CountingSource().answer(t1, t2, t3);
        DelegationTokenProvider tokens = provider(source);
        ScriptedSegmentStore store = store((conn, request, peer) -> {
            GetStreamSegmentInfo g = (GetStreamSegmentInfo) request;
            if (g.delegationToken().equals(t1)) {
                // another caller had t1 refused a moment ago and refreshed it: the provider holds t2 now
                tokens.refreshAfterExpired(t1);
                peer.send(new AuthTokenCheckFailed(g.requestId(), "", AuthTokenCheckFailed.ErrorCode.TOKEN_EXPIRED));
            } else {
                peer.send(info(g.requestId(), 7));
            }
        });
        SegmentCalls calls = new SegmentCalls(pool, new CountingLocator(store.endpoint()), FAST);

        assertThat(callInfo(calls, tokens, tenSeconds()).writeOffset()).isEqualTo(7);
        // reporting t1 (the refused token) finds t2 already there; reporting the current token would fetch t3
        assertThat(tokensSent(store)).containsExactly(t1, t2);
        assertThat(source.fetches()).isEqualTo(2);
        assertThat(tokens.token()).isEqualTo(t2);
    }

    @Test
    void aTokenRefusedForAnotherReasonIsNotRetried() throws IOException {
        CountingSource source = new CountingSource().answer(jwt("t1"));
        DelegationTokenProvider tokens = provider(source);
        ScriptedSegmentStore store = failingStore(id -> new AuthTokenCheckFailed(id, "no READ on scope/stream",
                AuthTokenCheckFailed.ErrorCode.TOKEN_CHECK_FAILED));
        CountingLocator locator = new CountingLocator(store.endpoint());
        SegmentCalls calls = new SegmentCalls(pool, locator, FAST);

        assertThatThrownBy(() -> callInfo(calls, tokens, tenSeconds())).isInstanceOf(AuthorizationException.class)
                .isNotInstanceOf(RetriesExhaustedException.class);
        assertThat(store.received()).hasSize(1);
        assertThat(source.fetches()).isEqualTo(1);
        assertThat(locator.invalidated()).isEmpty();
    }

    @Test
    void aTokenRefreshDoesNotOutlastTheCallersDeadline() throws IOException {
        String t1 = jwt("t1");
        CountDownLatch never = new CountDownLatch(1);
        CountingSource source = new CountingSource().answer(t1).answerWhenOpen(never, jwt("late"));
        DelegationTokenProvider tokens = provider(source); // waits up to 20 s for a fetch of its own accord
        ScriptedSegmentStore store = failingStore(id -> new AuthTokenCheckFailed(id, "",
                AuthTokenCheckFailed.ErrorCode.TOKEN_EXPIRED));
        SegmentCalls calls = new SegmentCalls(pool, new CountingLocator(store.endpoint()), FAST);
        try {
            long start = System.nanoTime();
            assertThatThrownBy(() -> callInfo(calls, tokens, Deadline.afterMillis(500)))
                    .isInstanceOf(RetriesExhaustedException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            assertThat(source.fetches()).isEqualTo(2);
        } finally {
            never.countDown();
        }
    }

    // ------------------------------------------------------------------ the error table

    static Stream<Arguments> errorReplies() {
        UUID writer = new UUID(1, 2);
        return Stream.of(
                reply(id -> new SegmentIsSealed(id, SEG, "", 5), SegmentSealedException.class),
                reply(id -> new SegmentAlreadyExists(id, SEG, ""), AlreadyExistsException.class),
                reply(id -> new NoSuchSegment(id, SEG, "", -1), NoSuchSegmentException.class),
                reply(id -> new SegmentIsTruncated(id, SEG, 100, "", 40), SegmentTruncatedException.class),
                reply(id -> new InvalidEventNumber(writer, id, "", 9, false), ProtocolException.class),
                reply(id -> new OperationUnsupported(id, "getStreamSegmentInfo", ""), ProtocolException.class),
                reply(id -> new AuthTokenCheckFailed(id, "", AuthTokenCheckFailed.ErrorCode.TOKEN_CHECK_FAILED),
                        AuthorizationException.class),
                reply(id -> new AuthTokenCheckFailed(id, "", AuthTokenCheckFailed.ErrorCode.UNSPECIFIED),
                        AuthorizationException.class),
                reply(id -> new ErrorMessage(id, SEG, "bad offset", ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION),
                        InvalidRequestException.class),
                reply(id -> new ErrorMessage(id, SEG, "boom", ErrorMessage.ErrorCode.UNSPECIFIED),
                        SluiceException.class),
                reply(id -> new TableSegmentNotEmpty(id, SEG, ""), TableSegmentNotEmptyException.class),
                reply(id -> new TableKeyDoesNotExist(id, SEG, ""), NoSuchKeyException.class),
                reply(id -> new TableKeyBadVersion(id, SEG, ""), BadKeyVersionException.class));
    }

    private static Arguments reply(LongFunction<ErrorReply> error, Class<? extends SluiceException> expected) {
        return Arguments.of(error.apply(0).type(), error, expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("errorReplies")
    void otherErrorRepliesMapThroughTheTableAndAreNotRetried(Object type, LongFunction<ErrorReply> error,
                                                             Class<? extends SluiceException> expected)
            throws IOException {
        ScriptedSegmentStore store = failingStore(error::apply);
        CountingLocator locator = new CountingLocator(store.endpoint());
        SegmentCalls calls = new SegmentCalls(pool, locator, FAST);
        ErrorReply sample = error.apply(1);
        SluiceException tabled = ReplyErrors.toException(sample);
        assertThat(tabled).isExactlyInstanceOf(expected);

        // an untyped call hands the reply back: a caller may take it as an answer
        Reply answer = calls.call(SEG, null, "info of " + SEG, getInfo(), tenSeconds());
        assertThat(answer).isInstanceOf(sample.getClass());
        // a typed call throws what the table says
        assertThatThrownBy(() -> callInfo(calls, null, tenSeconds())).isExactlyInstanceOf(expected)
                .hasMessage(tabled.getMessage());
        assertThat(calls.failure(SEG, null, "", sample)).isExactlyInstanceOf(expected)
                .hasMessage(tabled.getMessage());
        assertThat(calls.unexpected(SEG, sample, "GetStreamSegmentInfo")).isExactlyInstanceOf(expected);
        assertThat(store.received()).as("one request per call: none was retried").hasSize(2);
        assertThat(locator.invalidated()).isEmpty();
    }

    @Test
    void aReplyOfTheWrongKindIsAProtocolViolation() throws IOException {
        ScriptedSegmentStore store = failingStore(id -> new SegmentCreated(id, SEG));
        SegmentCalls calls = new SegmentCalls(pool, new CountingLocator(store.endpoint()), FAST);

        assertThatThrownBy(() -> callInfo(calls, null, tenSeconds())).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("SEGMENT_CREATED").hasMessageContaining("info of " + SEG);
        assertThat(store.received()).hasSize(1);
    }

    // ------------------------------------------------------------------ retries and deadlines

    @Test
    void lostConnectionsAreRetried() throws IOException {
        ScriptedSegmentStore store = store((conn, request, peer) -> {
            if (conn < 3) {
                peer.hangUp();
            } else if (request instanceof GetStreamSegmentInfo g) {
                peer.send(info(g.requestId(), 3));
            }
        });
        CountingLocator locator = new CountingLocator(store.endpoint());
        SegmentCalls calls = new SegmentCalls(pool, locator, FAST);

        assertThat(callInfo(calls, null, tenSeconds()).writeOffset()).isEqualTo(3);
        assertThat(store.connections()).isEqualTo(3);
        assertThat(locator.invalidated()).as("a lost connection is no reason to forget the endpoint").isEmpty();
    }

    @Test
    void anAttemptThatTimesOutIsRetriedWithinTheCallersDeadline() throws IOException {
        AtomicInteger seen = new AtomicInteger();
        ScriptedSegmentStore store = store((conn, request, peer) -> {
            if (request instanceof GetStreamSegmentInfo g && seen.incrementAndGet() >= 3) {
                peer.send(info(g.requestId(), 5));
            }
        });
        SegmentCalls calls = new SegmentCalls(pool, new CountingLocator(store.endpoint()),
                new SegmentCalls.Config(FAST.retry(), Duration.ofMillis(200)));

        assertThat(callInfo(calls, null, tenSeconds()).writeOffset()).isEqualTo(5);
        assertThat(store.received()).hasSize(3);
    }

    @Test
    void theCallersDeadlineBoundsAnAttemptThatNeverGetsAnAnswer() throws IOException {
        ScriptedSegmentStore store = store((conn, request, peer) -> { });
        SegmentCalls calls = new SegmentCalls(pool, new CountingLocator(store.endpoint()), FAST); // 10 s per attempt

        long start = System.nanoTime();
        assertThatThrownBy(() -> callInfo(calls, null, Deadline.afterMillis(300)))
                .isInstanceOf(RetriesExhaustedException.class).hasMessageContaining("deadline")
                .cause().isInstanceOf(DeadlineExceededException.class);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(250)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void theCallersDeadlineStopsTheRetriesBeforeTheAttemptsRunOut() throws IOException {
        ScriptedSegmentStore store = failingStore(id -> new WrongHost(id, SEG, "", ""));
        Retry patient = new Retry(Duration.ofMillis(100), 1, 1000, Duration.ofMillis(100), 0,
                SluiceException.class::isInstance);
        SegmentCalls calls = new SegmentCalls(pool, new CountingLocator(store.endpoint()),
                new SegmentCalls.Config(patient, Duration.ofSeconds(10)));

        long start = System.nanoTime();
        assertThatThrownBy(() -> callInfo(calls, null, Deadline.afterMillis(500)))
                .isInstanceOf(RetriesExhaustedException.class)
                .hasMessageContaining("its deadline leaves no time to retry")
                .cause().isInstanceOf(WrongHostException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(store.received().size()).isBetween(2, 10);
    }

    @Test
    void withoutADeadlineTheRetryPolicyAloneBoundsTheCall() throws IOException {
        ScriptedSegmentStore store = store((conn, request, peer) -> peer.hangUp());
        SegmentCalls calls = new SegmentCalls(pool, new CountingLocator(store.endpoint()), fast(4));

        assertThatThrownBy(() -> callInfo(calls, null, null)).isInstanceOf(RetriesExhaustedException.class)
                .cause().isInstanceOf(ConnectionFailedException.class);
        assertThat(store.connections()).isGreaterThanOrEqualTo(4);
    }

    // ------------------------------------------------------------------ callOnce

    @Test
    void callOnceActsOnWrongHostButDoesNotRetry() throws IOException {
        ScriptedSegmentStore store = failingStore(id -> new WrongHost(id, SEG, "", ""));
        CountingLocator locator = new CountingLocator(store.endpoint());
        SegmentCalls calls = new SegmentCalls(pool, locator, FAST);

        assertThatThrownBy(() -> calls.callOnce(SEG, null, getInfo(), tenSeconds()))
                .isInstanceOf(WrongHostException.class).hasMessageContaining(SEG);
        assertThat(locator.invalidated()).containsExactly(SEG);
        assertThat(store.received()).hasSize(1);
    }

    @Test
    void callOnceRefreshesAnExpiredTokenButDoesNotRetry() throws IOException {
        String t1 = jwt("t1");
        String t2 = jwt("t2");
        CountingSource source = new CountingSource().answer(t1, t2);
        DelegationTokenProvider tokens = provider(source);
        ScriptedSegmentStore store = failingStore(id -> new AuthTokenCheckFailed(id, "",
                AuthTokenCheckFailed.ErrorCode.TOKEN_EXPIRED));
        SegmentCalls calls = new SegmentCalls(pool, new CountingLocator(store.endpoint()), FAST);

        assertThatThrownBy(() -> calls.callOnce(SEG, tokens, getInfo(), tenSeconds()))
                .isInstanceOf(TokenExpiredException.class).hasMessageContaining(SEG);
        assertThat(tokensSent(store)).containsExactly(t1);
        assertThat(source.fetches()).isEqualTo(2);
        assertThat(tokens.token()).isEqualTo(t2);
    }

    @Test
    void callOnceReturnsOtherErrorRepliesAndReportsLostConnectionsAndTimeouts() throws IOException {
        ScriptedSegmentStore missing = failingStore(id -> new NoSuchSegment(id, SEG, "", -1));
        ScriptedSegmentStore hangsUp = store((conn, request, peer) -> peer.hangUp());
        ScriptedSegmentStore silent = store((conn, request, peer) -> { });

        assertThat(new SegmentCalls(pool, new CountingLocator(missing.endpoint()), FAST)
                .callOnce(SEG, null, getInfo(), tenSeconds())).isInstanceOf(NoSuchSegment.class);
        assertThatThrownBy(() -> new SegmentCalls(pool, new CountingLocator(hangsUp.endpoint()), FAST)
                .callOnce(SEG, null, getInfo(), tenSeconds())).isInstanceOf(ConnectionFailedException.class);
        assertThat(hangsUp.connections()).isEqualTo(1);
        assertThatThrownBy(() -> new SegmentCalls(pool, new CountingLocator(silent.endpoint()), FAST)
                .callOnce(SEG, null, getInfo(), Deadline.afterMillis(200)))
                .isInstanceOf(DeadlineExceededException.class);
        assertThat(silent.received()).hasSize(1);
    }

    // ------------------------------------------------------------------ request ids

    @Test
    void repliesWithAnotherRequestIdAreSkipped() throws IOException {
        ScriptedSegmentStore store = store((conn, request, peer) -> {
            if (request instanceof GetStreamSegmentInfo g) {
                // a late answer to an earlier request of the same flow, then the answer
                peer.send(info(g.requestId() + 1, 1));
                peer.send(new NoSuchSegment(g.requestId() + 2, SEG, "", -1));
                peer.send(info(g.requestId(), 42));
            }
        });
        SegmentCalls calls = new SegmentCalls(pool, new CountingLocator(store.endpoint()), FAST);

        assertThat(callInfo(calls, null, tenSeconds()).writeOffset()).isEqualTo(42);
        assertThat(calls.callOnce(SEG, null, getInfo(), tenSeconds())).isEqualTo(info(
                ((GetStreamSegmentInfo) store.received().get(1)).requestId(), 42));
        assertThat(store.received()).hasSize(2);
    }

    @Test
    void aRequestMustCarryTheIdItWasGiven() throws IOException {
        ScriptedSegmentStore store = infoStore(1);
        SegmentCalls calls = new SegmentCalls(pool, new CountingLocator(store.endpoint()), FAST);

        assertThatThrownBy(() -> calls.call(SEG, null, "info", (id, token) -> new GetStreamSegmentInfo(id + 1, SEG,
                token), tenSeconds())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must carry the request id");
        assertThat(store.received()).isEmpty();
    }
}
