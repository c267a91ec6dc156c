package io.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.Status;
import io.grpc.SynchronizationContext;
import io.sluice.common.Endpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Static and discovery resolution, driven through a real synchronization context; no sleeps. */
@Timeout(30)
class ControllerNameResolverTest {
    private final SynchronizationContext sync = new SynchronizationContext((t, e) -> {
        throw new AssertionError("uncaught in sync context", e);
    });
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final BlockingQueue<Object> results = new LinkedBlockingQueue<>();
    private ControllerNameResolver resolver;

    private final NameResolver.Listener2 listener = new NameResolver.Listener2() {
        @Override
        public void onResult(NameResolver.ResolutionResult result) {
            results.add(result);
        }

        @Override
        public void onError(Status error) {
            results.add(error);
        }
    };

    @AfterEach
    void stop() {
        if (resolver != null) {
            sync.execute(resolver::shutdown);
        }
        timer.shutdownNow();
    }

    private ControllerNameResolver start(List<Endpoint> seeds, Supplier<List<Endpoint>> discovery,
                                         Duration refresh, Duration retry) {
        resolver = new ControllerNameResolver(seeds, discovery, sync, timer, refresh, retry, Duration.ZERO);
        sync.execute(() -> resolver.start(listener));
        return resolver;
    }

    private Object next() throws InterruptedException {
        Object result = results.poll(10, TimeUnit.SECONDS);
        assertThat(result).as("a resolution").isNotNull();
        return result;
    }

    private List<EquivalentAddressGroup> nextGroups() throws InterruptedException {
        Object result = next();
        assertThat(result).isInstanceOf(NameResolver.ResolutionResult.class);
        return ((NameResolver.ResolutionResult) result).getAddresses();
    }

    private static String authority(EquivalentAddressGroup group) {
        return group.getAttributes().get(EquivalentAddressGroup.ATTR_AUTHORITY_OVERRIDE);
    }

    @Test
    void staticEndpointsBecomeOneGroupEachWithTheirAuthority() throws Exception {
        start(List.of(new Endpoint("127.0.0.1", 9090), new Endpoint("localhost", 9091)), null,
                Duration.ofMinutes(2), Duration.ofSeconds(10));
        assertThat(resolver.getServiceAuthority()).isEqualTo("127.0.0.1:9090");
        List<EquivalentAddressGroup> groups = nextGroups();
        assertThat(groups).hasSize(2);
        assertThat(groups).extracting(ControllerNameResolverTest::authority)
                .containsExactly("127.0.0.1:9090", "localhost:9091");
        assertThat(groups.get(0).getAddresses()).containsExactly(new InetSocketAddress("127.0.0.1", 9090));
        assertThat(groups.get(1).getAddresses()).isNotEmpty().allSatisfy(a ->
                assertThat(((InetSocketAddress) a).getPort()).isEqualTo(9091));
    }

    @Test
    void refreshResolvesAgain() throws Exception {
        start(List.of(new Endpoint("127.0.0.1", 9090)), null, Duration.ofMinutes(2), Duration.ofSeconds(10));
        nextGroups();
        sync.execute(resolver::refresh);
        assertThat(nextGroups()).extracting(ControllerNameResolverTest::authority).containsExactly("127.0.0.1:9090");
    }

    @Test
    void discoveryUsesTheControllerListAndRefreshesPeriodically() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Supplier<List<Endpoint>> discovery = () -> calls.incrementAndGet() == 1
                ? List.of(new Endpoint("127.0.0.1", 1), new Endpoint("127.0.0.1", 2))
                : List.of(new Endpoint("127.0.0.1", 3));
        start(List.of(new Endpoint("seed", 9090)), discovery, Duration.ofMillis(20), Duration.ofSeconds(10));
        assertThat(resolver.getServiceAuthority()).isEqualTo("seed:9090");
        assertThat(nextGroups()).extracting(ControllerNameResolverTest::authority)
                .containsExactly("127.0.0.1:1", "127.0.0.1:2");
        assertThat(nextGroups()).extracting(ControllerNameResolverTest::authority).containsExactly("127.0.0.1:3");
    }

    @Test
    void failedDiscoveryIsReportedAndRetried() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Supplier<List<Endpoint>> discovery = () -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("seed down");
            }
            return List.of(new Endpoint("127.0.0.1", 4));
        };
        start(List.of(new Endpoint("seed", 9090)), discovery, Duration.ofMinutes(2), Duration.ofMillis(20));
        Object first = next();
        assertThat(first).isInstanceOf(Status.class);
        assertThat(((Status) first).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(((Status) first).getDescription()).contains("seed down");
        assertThat(nextGroups()).extracting(ControllerNameResolverTest::authority).containsExactly("127.0.0.1:4");
    }

    @Test
    void anEmptyControllerListIsAnError() throws Exception {
        start(List.of(new Endpoint("seed", 9090)), List::of, Duration.ofMinutes(2), Duration.ofMinutes(2));
        Object first = next();
        assertThat(first).isInstanceOf(Status.class);
        assertThat(((Status) first).getDescription()).contains("controller list is empty");
    }

    @Test
    void shutdownStopsPeriodicDiscovery() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        start(List.of(new Endpoint("seed", 9090)), () -> {
            calls.incrementAndGet();
            return List.of(new Endpoint("127.0.0.1", 5));
        }, Duration.ofMillis(20), Duration.ofMillis(20));
        nextGroups();
        sync.execute(resolver::shutdown);
        results.clear();
        int after = calls.get();
        assertThat(results.poll(200, TimeUnit.MILLISECONDS)).isNull();
        assertThat(calls.get()).isLessThanOrEqualTo(after + 1);
    }
}
