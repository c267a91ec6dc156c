package io.sluice.server.controller;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.sluice.common.Endpoint;
import io.sluice.common.Threads;
import io.sluice.controller.grpc.v1.ControllerServiceGrpc;
import io.sluice.controller.grpc.v1.CreateScopeStatus;
import io.sluice.controller.grpc.v1.CreateStreamStatus;
import io.sluice.controller.grpc.v1.ScalingPolicy;
import io.sluice.controller.grpc.v1.ScopeInfo;
import io.sluice.controller.grpc.v1.SegmentId;
import io.sluice.controller.grpc.v1.SegmentRange;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.controller.grpc.v1.TxnId;
import io.sluice.server.auth.DelegationTokens;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An {@link EmbeddedControllerService} on an in-process gRPC server with a {@link FakeSegmentAdmin}, a settable
 * clock, no lease or watermark timer, and a blocking stub. Close it after the test.
 */
final class ControllerHarness implements AutoCloseable {
    static final Endpoint SEGMENT_STORE = new Endpoint("127.0.0.1", 12345);
    static final Endpoint CONTROLLER = new Endpoint("127.0.0.1", 9090);
    static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    final FakeSegmentAdmin admin;
    final InMemoryControllerStore store;
    final MutableClock clock;
    final EmbeddedControllerService service;
    final ControllerServiceGrpc.ControllerServiceBlockingStub stub;
    private final Server server;
    private final ManagedChannel channel;
    private final ExecutorService executor = Threads.perTaskExecutor("controller-test-grpc-");

    ControllerHarness() {
        this(new FakeSegmentAdmin(), new InMemoryControllerStore(), new MutableClock(START), null, null, 1000);
    }

    static ControllerHarness withPageSize(int pageSize) {
        return new ControllerHarness(new FakeSegmentAdmin(), new InMemoryControllerStore(), new MutableClock(START),
                null, null, pageSize);
    }

    static ControllerHarness withAuth(PasswordFile users, DelegationTokens tokens, MutableClock clock) {
        return new ControllerHarness(new FakeSegmentAdmin(), new InMemoryControllerStore(), clock, users, tokens,
                1000);
    }

    /** A controller restarted on the same store and segment store (the old one must be closed). */
    static ControllerHarness restart(ControllerHarness old) {
        old.store.reopen();
        return new ControllerHarness(old.admin, old.store, old.clock, null, null, 1000);
    }

    /** A controller whose lease timer runs every {@code interval}. */
    static ControllerHarness withLeaseTimer(Duration interval) {
        return new ControllerHarness(new FakeSegmentAdmin(), new InMemoryControllerStore(), new MutableClock(START),
                null, null, 1000, interval);
    }

    ControllerHarness(FakeSegmentAdmin admin, InMemoryControllerStore store, MutableClock clock, PasswordFile users,
                      DelegationTokens tokens, int pageSize) {
        this(admin, store, clock, users, tokens, pageSize, Duration.ZERO);
    }

    ControllerHarness(FakeSegmentAdmin admin, InMemoryControllerStore store, MutableClock clock, PasswordFile users,
                      DelegationTokens tokens, int pageSize, Duration leaseCheckInterval) {
        this.admin = admin;
        this.store = store;
        this.clock = clock;
        ControllerSettings settings = ControllerSettings.defaults(SEGMENT_STORE, CONTROLLER)
                .withPageSize(pageSize).withLeaseCheckInterval(leaseCheckInterval)
                .withWatermarkInterval(Duration.ZERO);
        EmbeddedControllerService.Builder builder = EmbeddedControllerService.builder(admin, settings)
                .store(store).clock(clock);
        if (users != null) {
            builder.auth(users, tokens);
        }
        this.service = builder.build();
        String name = "controller-" + UUID.randomUUID();
        try {
            this.server = InProcessServerBuilder.forName(name).executor(executor)
                    .addService(service.serviceDefinition()).build().start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.channel = InProcessChannelBuilder.forName(name).executor(executor).build();
        this.stub = ControllerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    ManagedChannel channel() {
        return channel;
    }

    /** Waits until the controller has no queued work (background commits and aborts included). */
    void awaitIdle() throws InterruptedException {
        assertThat(service.awaitIdle(Duration.ofSeconds(30))).as("controller became idle").isTrue();
    }

    @Override
    public void close() {
        channel.shutdownNow();
        server.shutdownNow();
        try {
            server.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        service.close();
        executor.shutdownNow();
    }

    // ------------------------------------------------------------------ request helpers

    static StreamInfo info(String scope, String stream) {
        return StreamInfo.newBuilder().setScope(scope).setStream(stream).build();
    }

    static SegmentId segmentId(String scope, String stream, long id) {
        return SegmentId.newBuilder().setStreamInfo(info(scope, stream)).setSegmentId(id).build();
    }

    static StreamConfig fixed(String scope, String stream, int segments) {
        return StreamConfig.newBuilder().setStreamInfo(info(scope, stream))
                .setScalingPolicy(ScalingPolicy.newBuilder()
                        .setScaleType(ScalingPolicy.ScalingPolicyType.FIXED_NUM_SEGMENTS).setMinNumSegments(segments))
                .build();
    }

    static long id(int number, int epoch) {
        return ((long) epoch << 32) | number;
    }

    static TxnId txnId(UUID id) {
        return TxnId.newBuilder().setHighBits(id.getMostSignificantBits()).setLowBits(id.getLeastSignificantBits())
                .build();
    }

    void createScope(String scope) {
        assertThat(stub.createScope(ScopeInfo.newBuilder().setScope(scope).build()).getStatus())
                .isEqualTo(CreateScopeStatus.Status.SUCCESS);
    }

    void createStream(String scope, String stream, int segments) {
        assertThat(stub.createStream(fixed(scope, stream, segments)).getStatus())
                .isEqualTo(CreateStreamStatus.Status.SUCCESS);
    }

    List<SegmentRange> currentSegments(String scope, String stream) {
        return stub.getCurrentSegments(info(scope, stream)).getSegmentRangesList();
    }

    List<Long> currentSegmentIds(String scope, String stream) {
        return currentSegments(scope, stream).stream().map(r -> r.getSegmentId().getSegmentId()).toList();
    }

    /** A Clock whose instant tests move by hand. */
    static final class MutableClock extends java.time.Clock {
        private volatile Instant now;

        MutableClock(Instant start) {
            this.now = start;
        }

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public java.time.Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    static Map<Long, Long> cut(Object... idOffsetPairs) {
        java.util.HashMap<Long, Long> m = new java.util.HashMap<>();
        for (int i = 0; i < idOffsetPairs.length; i += 2) {
            m.put(((Number) idOffsetPairs[i]).longValue(), ((Number) idOffsetPairs[i + 1]).longValue());
        }
        return m;
    }
}
