package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.common.Deadline;
import io.sluice.common.Threads;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.controller.ControllerClient;
import io.sluice.controller.StreamSegments;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.SegmentStores;
import io.sluice.server.EmbeddedServer;
import io.sluice.server.SegmentStoreServer;
import io.sluice.server.TokenVerifier;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.StreamConfiguration;
import io.sluice.wire.AuthTokenCheckFailed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The wait for changes of a reader group's state: when the segment store refuses its token as expired, it reports
 * the token it sent, so a refresh that another user of the same tokens made meanwhile is kept (reporting the current
 * token instead fetched yet another one).
 */
@Timeout(60)
class GroupStateWaitTest {

    /** Checks tokens like a segment store with auth on: refuses expired ones, and can hold one read until told. */
    private static final class GatedVerifier implements TokenVerifier {
        final Set<String> expired = ConcurrentHashMap.newKeySet();
        final List<String> readTokens = new CopyOnWriteArrayList<>();
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final AtomicBoolean holdNext = new AtomicBoolean();

        void holdNextRead() {
            holdNext.set(true);
        }

        @Override
        public AuthTokenCheckFailed.ErrorCode check(String token, String segment, boolean write) {
            if (!write) {
                readTokens.add(token);
                if (holdNext.compareAndSet(true, false)) {
                    held.countDown();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
            return expired.contains(token) ? AuthTokenCheckFailed.ErrorCode.TOKEN_EXPIRED : null;
        }
    }

    /**
     * @return {@code real}, but as a controller with auth: its segment lists carry the token "t1" and each delegation
     *     token it hands out is the next of "t2", "t3", ...
     */
    private static ControllerClient withTokens(ControllerClient real, AtomicInteger fetches) {
        return (ControllerClient) Proxy.newProxyInstance(ControllerClient.class.getClassLoader(),
                new Class<?>[] {ControllerClient.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "currentSegments" -> new StreamSegments(((StreamSegments) invoke(real, method, args)).ranges(),
                            "t1");
                    case "delegationToken" -> "t" + (1 + fetches.incrementAndGet());
                    // a controller with auth: it never grants the empty token
                    case "grantsEmptyTokens" -> false;
                    default -> invoke(real, method, args);
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Test
    void anExpiredTokenIsRefreshedPastTheTokenTheWaitSent() throws Exception {
        GatedVerifier verifier = new GatedVerifier();
        AtomicInteger fetches = new AtomicInteger();
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().build();
             SluiceClient direct = SluiceClient.connect(server.controllerUri());
             // the same segments behind a listener of its own that checks tokens as the test says
             SegmentStoreServer store = new SegmentStoreServer(server.segmentStore(),
                     new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null, verifier);
             // one flow per connection: the held wait must not hold up the other requests
             ConnectionPool pool = new ConnectionPool(new TcpConnectionFactory(), 8, 1);
             ExecutorService waiter = Threads.perTaskExecutor("group-wait-")) {
            direct.streamManager().createScope("shop");
            direct.streamManager().createStream("shop", "orders", StreamConfiguration.builder().build());
            direct.readerGroupManager("shop").createReaderGroup("billing", ReaderGroupConfig.builder()
                    .stream(ScopedStream.of("shop", "orders")).build()).close();

            try (GroupStateClient state = GroupStateClient.open("shop", "billing",
                    withTokens(ClientInternals.controller(direct), fetches),
                    SegmentStores.over(pool, SegmentLocator.fixed(store.endpoint())))) {
                assertThat(state.state()).isNotNull();
                assertThat(verifier.readTokens).isNotEmpty().containsOnly("t1");
                assertThat(fetches).hasValue(0);

                verifier.expired.add("t1");
                verifier.holdNextRead();
                Future<Boolean> wait = waiter.submit(() -> state.awaitChange(Deadline.after(Duration.ofSeconds(30))));
                assertThat(verifier.held.await(10, TimeUnit.SECONDS)).as("the wait's read arrived").isTrue();
                // meanwhile another user of the group's tokens has t1 refused, and refreshes it to t2
                state.fetch();
                assertThat(fetches).hasValue(1);
                verifier.release.countDown(); // the wait's read, which carried t1, is refused now

                assertThat(wait.get(10, TimeUnit.SECONDS)).as("the wait ends to be read again").isTrue();
                assertThat(fetches).as("t1 was replaced already: no second refresh").hasValue(1);
                int before = verifier.readTokens.size();
                assertThat(state.awaitChange(Deadline.afterMillis(300))).as("nothing changed").isFalse();
                assertThat(verifier.readTokens.subList(before, verifier.readTokens.size())).containsExactly("t2");
            }
        }
    }
}
