package io.sluice.server.controller;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.sluice.common.Threads;
import io.sluice.controller.grpc.v1.BucketIds;
import io.sluice.controller.grpc.v1.ContinuationToken;
import io.sluice.controller.grpc.v1.ControllerServiceGrpc;
import io.sluice.controller.grpc.v1.ControllerToBucketMappingRequest;
import io.sluice.controller.grpc.v1.ControllerToBucketMappingResponse;
import io.sluice.controller.grpc.v1.CreateKeyValueTableStatus;
import io.sluice.controller.grpc.v1.CreateReaderGroupResponse;
import io.sluice.controller.grpc.v1.CreateScopeStatus;
import io.sluice.controller.grpc.v1.CreateStreamStatus;
import io.sluice.controller.grpc.v1.CreateTxnRequest;
import io.sluice.controller.grpc.v1.CreateTxnResponse;
import io.sluice.controller.grpc.v1.DelegationToken;
import io.sluice.controller.grpc.v1.DeleteKVTableStatus;
import io.sluice.controller.grpc.v1.DeleteReaderGroupStatus;
import io.sluice.controller.grpc.v1.DeleteScopeStatus;
import io.sluice.controller.grpc.v1.DeleteStreamStatus;
import io.sluice.controller.grpc.v1.ExistsResponse;
import io.sluice.controller.grpc.v1.GetEpochSegmentsRequest;
import io.sluice.controller.grpc.v1.GetSegmentsRequest;
import io.sluice.controller.grpc.v1.KVTablesInScopeRequest;
import io.sluice.controller.grpc.v1.KVTablesInScopeResponse;
import io.sluice.controller.grpc.v1.KeyValueTableConfig;
import io.sluice.controller.grpc.v1.KeyValueTableConfigResponse;
import io.sluice.controller.grpc.v1.KeyValueTableInfo;
import io.sluice.controller.grpc.v1.ListCompletedTxnRequest;
import io.sluice.controller.grpc.v1.ListCompletedTxnResponse;
import io.sluice.controller.grpc.v1.NodeUri;
import io.sluice.controller.grpc.v1.PingTxnRequest;
import io.sluice.controller.grpc.v1.PingTxnStatus;
import io.sluice.controller.grpc.v1.ReaderGroupConfigResponse;
import io.sluice.controller.grpc.v1.ReaderGroupConfiguration;
import io.sluice.controller.grpc.v1.ReaderGroupInfo;
import io.sluice.controller.grpc.v1.RemoveWriterRequest;
import io.sluice.controller.grpc.v1.RemoveWriterResponse;
import io.sluice.controller.grpc.v1.ScaleRequest;
import io.sluice.controller.grpc.v1.ScaleResponse;
import io.sluice.controller.grpc.v1.ScaleStatusRequest;
import io.sluice.controller.grpc.v1.ScaleStatusResponse;
import io.sluice.controller.grpc.v1.ScopeInfo;
import io.sluice.controller.grpc.v1.ScopesRequest;
import io.sluice.controller.grpc.v1.ScopesResponse;
import io.sluice.controller.grpc.v1.SegmentId;
import io.sluice.controller.grpc.v1.SegmentRange;
import io.sluice.controller.grpc.v1.SegmentRanges;
import io.sluice.controller.grpc.v1.SegmentValidityResponse;
import io.sluice.controller.grpc.v1.SegmentsAtTime;
import io.sluice.controller.grpc.v1.ServerRequest;
import io.sluice.controller.grpc.v1.ServerResponse;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.controller.grpc.v1.StreamCut;
import io.sluice.controller.grpc.v1.StreamCutRange;
import io.sluice.controller.grpc.v1.StreamCutRangeResponse;
import io.sluice.controller.grpc.v1.StreamCutValidityResponse;
import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.controller.grpc.v1.StreamsInScopeRequest;
import io.sluice.controller.grpc.v1.StreamsInScopeResponse;
import io.sluice.controller.grpc.v1.StreamsInScopeWithTagRequest;
import io.sluice.controller.grpc.v1.SubscriberStreamCut;
import io.sluice.controller.grpc.v1.SubscribersResponse;
import io.sluice.controller.grpc.v1.SuccessorResponse;
import io.sluice.controller.grpc.v1.TimestampFromWriter;
import io.sluice.controller.grpc.v1.TimestampResponse;
import io.sluice.controller.grpc.v1.TxnId;
import io.sluice.controller.grpc.v1.TxnRequest;
import io.sluice.controller.grpc.v1.TxnResponse;
import io.sluice.controller.grpc.v1.TxnState;
import io.sluice.controller.grpc.v1.TxnStatus;
import io.sluice.controller.grpc.v1.UpdateReaderGroupResponse;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;
import io.sluice.controller.grpc.v1.UpdateSubscriberStatus;
import io.sluice.errors.RetriableException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.server.auth.AccessLevel;
import io.sluice.server.auth.DelegationTokens;
import io.sluice.server.controller.BasicAuthInterceptor.Principal;
import io.sluice.server.controller.ControllerEvent.KeyRange;

/**
 * The embedded controller: Pravega's {@code ControllerService} gRPC API over metadata kept as a log of
 * {@link ControllerEvent}s in a {@link ControllerStore}, driving the embedded segment store through
 * {@link SegmentAdmin}. It answers the official Pravega 0.13 Java client and Sluice's own client alike.
 *
 * <p>Register {@link #serviceDefinition()} (not {@code this}) with a gRPC server: with authentication on it carries
 * the {@link BasicAuthInterceptor}. With authentication off every call is allowed and delegation tokens are
 * {@code ""}, as in Pravega.
 *
 * <p>Handlers block the gRPC thread until their change is durable and the segment store calls are done (use a
 * virtual-thread executor for the server). Thread-safe. {@link #close()} stops the lease and watermark timers and waits
 * for background work.
 */
public final class EmbeddedControllerService extends ControllerServiceGrpc.ControllerServiceImplBase
        implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedControllerService.class);
    /**
     * What creating, updating and deleting a reader group needs on its scope: READ, as in Pravega 0.13 with its
     * default {@code controller.security.auth.readerGroupStreams.writesWithReadPermissions.enable=true}, so a user
     * who may read a scope may read through a reader group of their own.
     */
    private static final AccessLevel READER_GROUP_CHANGE = AccessLevel.READ;
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final ControllerCore core;
    private final SerialExecutors executors;
    private final ControllerStore store;
    private final ControllerSettings settings;
    private final PasswordFile users;
    private final DelegationTokens tokens;
    private final CountDownLatch stopping = new CountDownLatch(1);
    private final Thread leaseTimer;
    private final Thread watermarkTimer;
    private final Retention retention;

    private EmbeddedControllerService(Builder b) {
        this.settings = b.settings;
        this.store = b.store;
        this.users = b.users;
        this.tokens = b.tokens;
        this.executors = new SerialExecutors();
        Journal journal = new Journal(store);
        int replayed = journal.recover();
        this.core = new ControllerCore(journal, executors, b.admin, b.clock, settings);
        if (replayed > 0) {
            LOG.info("controller metadata recovered from {} events", replayed);
            core.resumeUnfinishedWork();
        }
        if (settings.leaseCheckInterval().isZero()) {
            leaseTimer = null;
        } else {
            leaseTimer = Threads.startVirtual("sluice-controller-lease-timer", this::leaseLoop);
        }
        watermarkTimer = settings.watermarkInterval().isZero() ? null
                : Threads.startVirtual("sluice-controller-watermarks", this::watermarkLoop);
        retention = Retention.start(journal, executors, core, b.admin, b.clock, b.retentionInterval);
    }

    /**
     * Starts building a controller.
     *
     * @param admin the embedded segment store
     * @param settings endpoints, page size, lease bounds
     */
    public static Builder builder(SegmentAdmin admin, ControllerSettings settings) {
        return new Builder(admin, settings);
    }

    /** Builds an {@link EmbeddedControllerService}. Not thread-safe. */
    public static final class Builder {
        private final SegmentAdmin admin;
        private final ControllerSettings settings;
        private ControllerStore store = new InMemoryControllerStore();
        private Clock clock = Clock.systemUTC();
        private PasswordFile users;
        private DelegationTokens tokens;
        private Duration retentionInterval = Retention.DEFAULT_INTERVAL;

        private Builder(SegmentAdmin admin, ControllerSettings settings) {
            this.admin = Objects.requireNonNull(admin, "admin");
            this.settings = Objects.requireNonNull(settings, "settings");
        }

        /** Where metadata is logged; replayed on {@link #build()}. Default: a new {@link InMemoryControllerStore}. */
        public Builder store(ControllerStore controllerStore) {
            this.store = Objects.requireNonNull(controllerStore, "store");
            return this;
        }

        /** Source of time for leases, creation times and tokens. Default: the system clock. */
        public Builder clock(Clock newClock) {
            this.clock = Objects.requireNonNull(newClock, "clock");
            return this;
        }

        /**
         * Turns authentication on: Basic credentials checked against {@code passwordFile}, permissions from its
         * access control lists, delegation tokens signed by {@code delegationTokens}.
         */
        public Builder auth(PasswordFile passwordFile, DelegationTokens delegationTokens) {
            this.users = Objects.requireNonNull(passwordFile, "passwordFile");
            this.tokens = Objects.requireNonNull(delegationTokens, "delegationTokens");
            return this;
        }

        /** How often retention runs (default 30 min, as in Pravega); {@link Duration#ZERO}: no timer. */
        public Builder retentionInterval(Duration interval) {
            this.retentionInterval = Retention.checkInterval(interval);
            return this;
        }

        /**
         * Replays the store, resumes unfinished work in the background and starts the lease timer. Blocks while the
         * store is read.
         */
        public EmbeddedControllerService build() {
            return new EmbeddedControllerService(this);
        }
    }

    /** @return the service to register with a gRPC server (intercepted for authentication when it is on) */
    public ServerServiceDefinition serviceDefinition() {
        ServerServiceDefinition definition = bindService();
        return users == null ? definition : ServerInterceptors.intercept(definition, new BasicAuthInterceptor(users));
    }

    /** @return whether Basic authentication and delegation tokens are on */
    public boolean authEnabled() {
        return users != null;
    }

    /**
     * Aborts, in the background, every open transaction whose lease has expired. The lease timer calls this every
     * {@link ControllerSettings#leaseCheckInterval()}; tests with the timer off call it themselves.
     *
     * @return how many streams had transactions to abort
     */
    public int expireLeases() {
        return core.expireLeases();
    }

    /**
     * Queues again the background transaction work (merges, deletions) that failed earlier, for example because the
     * segment store was unavailable. The lease timer calls this too.
     *
     * @return how many streams were retried
     */
    public int retryFailedWork() {
        return core.retryFailedWork();
    }

    /**
     * Computes watermarks now: for every stream with writer marks, appends a watermark to its {@code _MARK} stream if
     * the marks allow one (see docs/watermarks.md). The watermark timer calls this every
     * {@link ControllerSettings#watermarkInterval()}; tests with the timer off call it themselves. Blocks.
     *
     * @return how many watermarks were written
     */
    public int computeWatermarks() {
        return core.watermarks().run();
    }

    /**
     * Runs retention now (see docs/retention.md); the retention timer calls this every retention interval. Blocks.
     *
     * @return how many streams were truncated
     */
    public int enforceRetention() {
        return retention.run();
    }

    /**
     * Waits until no controller work (foreground or background) is queued or running.
     *
     * @return false on timeout
     * @throws InterruptedException if interrupted
     */
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        return executors.awaitIdle(timeout);
    }

    /** Stops the lease timer, waits (up to 30 s) for queued work, closes the store. */
    @Override
    public void close() {
        stopping.countDown();
        retention.close();
        for (Thread timer : new Thread[] {leaseTimer, watermarkTimer}) {
            if (timer != null) {
                try {
                    timer.join(CLOSE_TIMEOUT.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        if (!executors.close(CLOSE_TIMEOUT)) {
            LOG.warn("controller work still running after {}", CLOSE_TIMEOUT);
        }
        store.close();
    }

    private void leaseLoop() {
        try {
            while (!stopping.await(settings.leaseCheckInterval().toMillis(), TimeUnit.MILLISECONDS)) {
                try {
                    core.expireLeases();
                    core.retryFailedWork();
                } catch (RuntimeException e) {
                    LOG.warn("checking transaction leases failed", e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void watermarkLoop() {
        try {
            while (!stopping.await(settings.watermarkInterval().toMillis(), TimeUnit.MILLISECONDS)) {
                try {
                    core.watermarks().run();
                } catch (RuntimeException e) {
                    LOG.warn("computing watermarks failed", e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ======================================================================= discovery

    @Override
    public void getControllerServerList(ServerRequest request, StreamObserver<ServerResponse> observer) {
        respond(observer, () -> ServerResponse.newBuilder().addNodeURI(nodeUri(settings.controller().host(),
                settings.controller().port())).build());
    }

    @Override
    public void getControllerToBucketMapping(ControllerToBucketMappingRequest request,
                                             StreamObserver<ControllerToBucketMappingResponse> observer) {
        respond(observer, () -> {
            authorize(AuthResource.cluster(), AccessLevel.READ_UPDATE);
            return ControllerToBucketMappingResponse.newBuilder().putMapping(settings.controller().toString(),
                    BucketIds.newBuilder().addId(0).build()).build();
        });
    }

    // ======================================================================= scopes

    @Override
    public void createScope(ScopeInfo request, StreamObserver<CreateScopeStatus> observer) {
        respond(observer, () -> {
            authorize(AuthResource.cluster(), AccessLevel.READ_UPDATE);
            return CreateScopeStatus.newBuilder().setStatus(core.createScope(request.getScope())).build();
        });
    }

    @Override
    public void checkScopeExists(ScopeInfo request, StreamObserver<ExistsResponse> observer) {
        respond(observer, () -> {
            authorize(AuthResource.scope(request.getScope()), AccessLevel.READ);
            return ExistsResponse.newBuilder().setExists(core.scopeExists(request.getScope())).build();
        });
    }

    @Override
    public void listScopes(ScopesRequest request, StreamObserver<ScopesResponse> observer) {
        respond(observer, () -> {
            authorize(AuthResource.cluster(), AccessLevel.READ);
            ControllerCore.Page page = core.listScopes(request.getContinuationToken().getToken(),
                    readable(AuthResource::scope));
            return ScopesResponse.newBuilder().addAllScopes(page.names())
                    .setContinuationToken(ContinuationToken.newBuilder().setToken(page.token())).build();
        });
    }

    @Override
    public void deleteScope(ScopeInfo request, StreamObserver<DeleteScopeStatus> observer) {
        respond(observer, () -> {
            authorize(AuthResource.cluster(), AccessLevel.READ_UPDATE);
            return DeleteScopeStatus.newBuilder().setStatus(core.deleteScope(request.getScope())).build();
        });
    }

    @Override
    public void deleteScopeRecursive(ScopeInfo request, StreamObserver<DeleteScopeStatus> observer) {
        respond(observer, () -> {
            authorize(AuthResource.cluster(), AccessLevel.READ_UPDATE);
            return DeleteScopeStatus.newBuilder().setStatus(core.deleteScopeRecursive(request.getScope())).build();
        });
    }

    // ======================================================================= streams

    @Override
    public void createStream(StreamConfig request, StreamObserver<CreateStreamStatus> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamInfo();
            authorize(AuthResource.scope(info.getScope()), levelToWrite(info.getStream()));
            return CreateStreamStatus.newBuilder()
                    .setStatus(core.createStream(info.getScope(), info.getStream(), request)).build();
        });
    }

    @Override
    public void updateStream(StreamConfig request, StreamObserver<UpdateStreamStatus> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamInfo();
            authorize(streamOrGroup(info), AccessLevel.READ_UPDATE);
            return UpdateStreamStatus.newBuilder()
                    .setStatus(core.updateStream(info.getScope(), info.getStream(), request)).build();
        });
    }

    @Override
    public void getStreamConfiguration(StreamInfo request, StreamObserver<StreamConfig> observer) {
        respond(observer, () -> {
            authorize(resource(request), AccessLevel.READ);
            return core.streamConfig(request.getScope(), request.getStream());
        });
    }

    @Override
    public void checkStreamExists(StreamInfo request, StreamObserver<ExistsResponse> observer) {
        respond(observer, () -> {
            authorize(resource(request), AccessLevel.READ);
            return ExistsResponse.newBuilder()
                    .setExists(core.streamExists(request.getScope(), request.getStream())).build();
        });
    }

    @Override
    public void listStreamsInScope(StreamsInScopeRequest request, StreamObserver<StreamsInScopeResponse> observer) {
        respond(observer, () -> listStreams(request.getScope().getScope(), request.getContinuationToken().getToken(),
                null));
    }

    @Override
    public void listStreamsInScopeForTag(StreamsInScopeWithTagRequest request,
                                         StreamObserver<StreamsInScopeResponse> observer) {
        respond(observer, () -> {
            if (request.getTag().isEmpty()) {
                throw Protos.invalid("tag must not be empty");
            }
            return listStreams(request.getScope().getScope(), request.getContinuationToken().getToken(),
                    request.getTag());
        });
    }

    private StreamsInScopeResponse listStreams(String scope, String token, String tag) {
        authorize(AuthResource.scope(scope), AccessLevel.READ);
        ControllerCore.Page page = core.listStreams(scope, token, tag,
                readable(stream -> AuthResource.stream(scope, stream)));
        if (page == null) {
            return StreamsInScopeResponse.newBuilder().setStatus(StreamsInScopeResponse.Status.SCOPE_NOT_FOUND)
                    .build();
        }
        StreamsInScopeResponse.Builder b = StreamsInScopeResponse.newBuilder()
                .setStatus(StreamsInScopeResponse.Status.SUCCESS)
                .setContinuationToken(ContinuationToken.newBuilder().setToken(page.token()));
        for (String name : page.names()) {
            b.addStreams(Protos.streamInfo(scope, name));
        }
        return b.build();
    }

    @Override
    public void truncateStream(StreamCut request, StreamObserver<UpdateStreamStatus> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamInfo();
            authorize(resource(info), AccessLevel.READ_UPDATE);
            return UpdateStreamStatus.newBuilder().setStatus(core.truncateStream(info.getScope(), info.getStream(),
                    Map.copyOf(request.getCutMap()))).build();
        });
    }

    @Override
    public void sealStream(StreamInfo request, StreamObserver<UpdateStreamStatus> observer) {
        respond(observer, () -> {
            authorize(resource(request), AccessLevel.READ_UPDATE);
            return UpdateStreamStatus.newBuilder()
                    .setStatus(core.sealStream(request.getScope(), request.getStream())).build();
        });
    }

    @Override
    public void deleteStream(StreamInfo request, StreamObserver<DeleteStreamStatus> observer) {
        respond(observer, () -> {
            authorize(resource(request), AccessLevel.READ_UPDATE);
            return DeleteStreamStatus.newBuilder()
                    .setStatus(core.deleteStream(request.getScope(), request.getStream())).build();
        });
    }

    // ======================================================================= segments

    @Override
    public void getCurrentSegments(StreamInfo request, StreamObserver<SegmentRanges> observer) {
        respond(observer, () -> {
            boolean wantsToken = request.getAccessOperation() != StreamInfo.AccessOperation.NONE;
            AccessLevel level = wantsToken ? AccessLevel.READ_UPDATE : AccessLevel.READ;
            authorize(streamOrGroup(request), level);
            SegmentRanges.Builder b = SegmentRanges.newBuilder()
                    .addAllSegmentRanges(core.currentSegments(request.getScope(), request.getStream()));
            if (wantsToken) {
                b.setDelegationToken(token(request.getScope(), request.getStream(), AccessLevel.READ_UPDATE));
            }
            return b.build();
        });
    }

    @Override
    public void getEpochSegments(GetEpochSegmentsRequest request, StreamObserver<SegmentRanges> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamInfo();
            authorize(resource(info), AccessLevel.READ_UPDATE);
            return SegmentRanges.newBuilder()
                    .addAllSegmentRanges(core.epochSegments(info.getScope(), info.getStream(), request.getEpoch()))
                    .setDelegationToken(token(info.getScope(), info.getStream(), AccessLevel.READ_UPDATE)).build();
        });
    }

    /** Segments at the head of the stream, whatever the timestamp (Pravega 0.13 ignores it too). */
    @Override
    public void getSegments(GetSegmentsRequest request, StreamObserver<SegmentsAtTime> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamInfo();
            boolean wantsToken = info.getAccessOperation() != StreamInfo.AccessOperation.NONE;
            authorize(resource(info), wantsToken ? AccessLevel.READ_UPDATE : AccessLevel.READ);
            SegmentsAtTime.Builder b = SegmentsAtTime.newBuilder();
            for (Map.Entry<Long, Long> e : core.head(info.getScope(), info.getStream()).entrySet()) {
                b.addSegments(SegmentsAtTime.SegmentLocation.newBuilder()
                        .setSegmentId(Protos.segmentId(info.getScope(), info.getStream(), e.getKey()))
                        .setOffset(e.getValue()));
            }
            if (wantsToken) {
                b.setDelegationToken(token(info.getScope(), info.getStream(), AccessLevel.READ_UPDATE));
            }
            return b.build();
        });
    }

    @Override
    public void getSegmentsImmediatelyFollowing(SegmentId request, StreamObserver<SuccessorResponse> observer) {
        respond(observer, () -> successors(request));
    }

    /** The deprecated, misspelled twin of {@link #getSegmentsImmediatelyFollowing}. */
    @Override
    public void getSegmentsImmediatlyFollowing(SegmentId request, StreamObserver<SuccessorResponse> observer) {
        respond(observer, () -> successors(request));
    }

    private SuccessorResponse successors(SegmentId request) {
        StreamInfo info = request.getStreamInfo();
        authorize(resource(info), AccessLevel.READ);
        SuccessorResponse.Builder b = SuccessorResponse.newBuilder();
        for (Map.Entry<SegmentRange, List<Long>> e
                : core.successors(info.getScope(), info.getStream(), request.getSegmentId()).entrySet()) {
            b.addSegments(SuccessorResponse.SegmentEntry.newBuilder().setSegment(e.getKey()).addAllValue(e.getValue()));
        }
        return b.build();
    }

    @Override
    public void getSegmentsBetween(StreamCutRange request, StreamObserver<StreamCutRangeResponse> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamInfo();
            authorize(resource(info), AccessLevel.READ);
            StreamCutRangeResponse.Builder b = StreamCutRangeResponse.newBuilder();
            for (long id : core.segmentsBetween(info.getScope(), info.getStream(), Map.copyOf(request.getFromMap()),
                    Map.copyOf(request.getToMap()))) {
                b.addSegments(Protos.segmentId(info.getScope(), info.getStream(), id));
            }
            return b.setDelegationToken(token(info.getScope(), info.getStream(), AccessLevel.READ)).build();
        });
    }

    /** The segment store endpoint, for any segment name; no existence check (as in Pravega). */
    @Override
    public void getURI(SegmentId request, StreamObserver<NodeUri> observer) {
        respond(observer, () -> {
            authorize(streamOrGroup(request.getStreamInfo()), AccessLevel.READ);
            return nodeUri(settings.segmentStore().host(), settings.segmentStore().port());
        });
    }

    @Override
    public void isSegmentValid(SegmentId request, StreamObserver<SegmentValidityResponse> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamInfo();
            authorize(resource(info), AccessLevel.READ);
            return SegmentValidityResponse.newBuilder().setResponse(core.isSegmentValid(info.getScope(),
                    info.getStream(), request.getSegmentId())).build();
        });
    }

    @Override
    public void isStreamCutValid(StreamCut request, StreamObserver<StreamCutValidityResponse> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamInfo();
            authorize(resource(info), AccessLevel.READ);
            return StreamCutValidityResponse.newBuilder().setResponse(core.isStreamCutValid(info.getScope(),
                    info.getStream(), Map.copyOf(request.getCutMap()))).build();
        });
    }

    // ======================================================================= scaling

    @Override
    public void scale(ScaleRequest request, StreamObserver<ScaleResponse> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamInfo();
            authorize(resource(info), AccessLevel.READ_UPDATE);
            List<KeyRange> ranges = new ArrayList<>();
            for (ScaleRequest.KeyRangeEntry r : request.getNewKeyRangesList()) {
                ranges.add(new KeyRange(r.getStart(), r.getEnd()));
            }
            return core.scale(info.getScope(), info.getStream(), request.getSealedSegmentsList(), ranges,
                    request.getScaleTimestamp());
        });
    }

    @Override
    public void checkScale(ScaleStatusRequest request, StreamObserver<ScaleStatusResponse> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamInfo();
            authorize(resource(info), AccessLevel.READ);
            return ScaleStatusResponse.newBuilder()
                    .setStatus(core.checkScale(info.getScope(), info.getStream(), request.getEpoch())).build();
        });
    }

    // ======================================================================= transactions

    @Override
    public void createTransaction(CreateTxnRequest request, StreamObserver<CreateTxnResponse> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamInfo();
            authorize(resource(info), AccessLevel.READ_UPDATE);
            ControllerCore.CreatedTxn txn = core.createTransaction(info.getScope(), info.getStream(),
                    request.getLease());
            return CreateTxnResponse.newBuilder().setTxnId(txnId(txn.id())).addAllActiveSegments(txn.segments())
                    .setDelegationToken(token(info.getScope(), info.getStream(), AccessLevel.READ_UPDATE)).build();
        });
    }

    @Override
    public void pingTransaction(PingTxnRequest request, StreamObserver<PingTxnStatus> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamInfo();
            authorize(resource(info), AccessLevel.READ_UPDATE);
            return PingTxnStatus.newBuilder().setStatus(core.pingTransaction(info.getScope(), info.getStream(),
                    uuid(request.getTxnId()), request.getLease())).build();
        });
    }

    @Override
    public void commitTransaction(TxnRequest request, StreamObserver<TxnStatus> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamInfo();
            authorize(resource(info), AccessLevel.READ_UPDATE);
            return TxnStatus.newBuilder().setStatus(core.commitTransaction(info.getScope(), info.getStream(),
                    uuid(request.getTxnId()), request.getWriterId(), request.getTimestamp())).build();
        });
    }

    @Override
    public void abortTransaction(TxnRequest request, StreamObserver<TxnStatus> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamInfo();
            authorize(resource(info), AccessLevel.READ_UPDATE);
            return TxnStatus.newBuilder().setStatus(core.abortTransaction(info.getScope(), info.getStream(),
                    uuid(request.getTxnId()))).build();
        });
    }

    @Override
    public void checkTransactionState(TxnRequest request, StreamObserver<TxnState> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamInfo();
            authorize(resource(info), AccessLevel.READ);
            return TxnState.newBuilder().setState(core.transactionState(info.getScope(), info.getStream(),
                    uuid(request.getTxnId()))).build();
        });
    }

    @Override
    public void listCompletedTransactions(ListCompletedTxnRequest request,
                                          StreamObserver<ListCompletedTxnResponse> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamInfo();
            authorize(resource(info), AccessLevel.READ);
            ListCompletedTxnResponse.Builder b = ListCompletedTxnResponse.newBuilder();
            core.completedTransactions(info.getScope(), info.getStream()).forEach((id, committed) ->
                    b.addResponse(TxnResponse.newBuilder().setTxnId(txnId(id)).setStatus(committed
                            ? TxnResponse.Status.COMMITTED : TxnResponse.Status.ABORTED)));
            return b.build();
        });
    }

    // ======================================================================= auth

    /**
     * A delegation token for the stream (or key-value table), by Pravega 0.13's rules: READ for {@code READ} and
     * {@code NONE}, after a check for READ; READ_UPDATE for everything else, after a check for READ_UPDATE, except
     * that a reader group's state stream or a watermark stream needs only READ ({@link #levelToWrite}) and a request
     * that leaves the operation unspecified (older clients) always READ_UPDATE; "" when authentication is off.
     */
    @Override
    public void getDelegationToken(StreamInfo request, StreamObserver<DelegationToken> observer) {
        respond(observer, () -> {
            StreamInfo.AccessOperation operation = request.getAccessOperation();
            AccessLevel granted = switch (operation) {
                case READ, NONE -> AccessLevel.READ;
                default -> AccessLevel.READ_UPDATE;
            };
            AccessLevel needed = granted == AccessLevel.READ ? AccessLevel.READ
                    : operation == StreamInfo.AccessOperation.UNSPECIFIED ? AccessLevel.READ_UPDATE
                    : levelToWrite(request.getStream());
            authorize(streamOrGroup(request), needed);
            return DelegationToken.newBuilder()
                    .setDelegationToken(token(request.getScope(), request.getStream(), granted)).build();
        });
    }

    // ======================================================================= watermarking

    @Override
    public void noteTimestampFromWriter(TimestampFromWriter request, StreamObserver<TimestampResponse> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getPosition().getStreamInfo();
            authorize(resource(info), AccessLevel.READ_UPDATE);
            return TimestampResponse.newBuilder().setResult(core.noteTimestampFromWriter(info.getScope(),
                    info.getStream(), request.getWriter(), request.getTimestamp(),
                    Map.copyOf(request.getPosition().getCutMap()))).build();
        });
    }

    @Override
    public void removeWriter(RemoveWriterRequest request, StreamObserver<RemoveWriterResponse> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStream();
            authorize(resource(info), AccessLevel.READ_UPDATE);
            return RemoveWriterResponse.newBuilder()
                    .setResult(core.removeWriter(info.getScope(), info.getStream(), request.getWriter())).build();
        });
    }

    // ======================================================================= reader groups and subscribers

    @Override
    public void createReaderGroup(ReaderGroupConfiguration request,
                                  StreamObserver<CreateReaderGroupResponse> observer) {
        respond(observer, () -> {
            authorize(AuthResource.scope(request.getScope()), READER_GROUP_CHANGE);
            return core.createReaderGroup(request);
        });
    }

    @Override
    public void getReaderGroupConfig(ReaderGroupInfo request, StreamObserver<ReaderGroupConfigResponse> observer) {
        respond(observer, () -> {
            authorize(AuthResource.scope(request.getScope()), AccessLevel.READ);
            return core.readerGroupConfig(request.getScope(), request.getReaderGroup());
        });
    }

    @Override
    public void updateReaderGroup(ReaderGroupConfiguration request,
                                  StreamObserver<UpdateReaderGroupResponse> observer) {
        respond(observer, () -> {
            authorize(AuthResource.scope(request.getScope()), READER_GROUP_CHANGE);
            return core.updateReaderGroup(request);
        });
    }

    @Override
    public void deleteReaderGroup(ReaderGroupInfo request, StreamObserver<DeleteReaderGroupStatus> observer) {
        respond(observer, () -> {
            authorize(AuthResource.scope(request.getScope()), READER_GROUP_CHANGE);
            return DeleteReaderGroupStatus.newBuilder().setStatus(core.deleteReaderGroup(request.getScope(),
                    request.getReaderGroup(), request.getReaderGroupId())).build();
        });
    }

    @Override
    public void listSubscribers(StreamInfo request, StreamObserver<SubscribersResponse> observer) {
        respond(observer, () -> {
            authorize(resource(request), AccessLevel.READ_UPDATE);
            return core.listSubscribers(request.getScope(), request.getStream());
        });
    }

    @Override
    public void updateSubscriberStreamCut(SubscriberStreamCut request,
                                          StreamObserver<UpdateSubscriberStatus> observer) {
        respond(observer, () -> {
            StreamInfo info = request.getStreamCut().getStreamInfo();
            authorize(resource(info), AccessLevel.READ_UPDATE);
            return UpdateSubscriberStatus.newBuilder().setStatus(core.updateSubscriberStreamCut(info.getScope(),
                    info.getStream(), request.getSubscriber(), request.getReaderGroupId(), request.getGeneration(),
                    Map.copyOf(request.getStreamCut().getCutMap()))).build();
        });
    }

    // ======================================================================= key-value tables

    @Override
    public void createKeyValueTable(KeyValueTableConfig request, StreamObserver<CreateKeyValueTableStatus> observer) {
        respond(observer, () -> {
            authorize(AuthResource.scope(request.getScope()), AccessLevel.READ_UPDATE);
            return CreateKeyValueTableStatus.newBuilder().setStatus(core.createKeyValueTable(request)).build();
        });
    }

    @Override
    public void getCurrentSegmentsKeyValueTable(KeyValueTableInfo request, StreamObserver<SegmentRanges> observer) {
        respond(observer, () -> {
            authorize(AuthResource.keyValueTable(request.getScope(), request.getKvtName()), AccessLevel.READ_UPDATE);
            return SegmentRanges.newBuilder()
                    .addAllSegmentRanges(core.kvtSegments(request.getScope(), request.getKvtName()))
                    .setDelegationToken(token(request.getScope(), request.getKvtName(), AccessLevel.READ_UPDATE))
                    .build();
        });
    }

    @Override
    public void listKeyValueTablesInScope(KVTablesInScopeRequest request,
                                          StreamObserver<KVTablesInScopeResponse> observer) {
        respond(observer, () -> {
            String scope = request.getScope().getScope();
            authorize(AuthResource.scope(scope), AccessLevel.READ);
            ControllerCore.Page page = core.listKvts(scope, request.getContinuationToken().getToken(),
                    readable(kvt -> AuthResource.keyValueTable(scope, kvt)));
            if (page == null) {
                return KVTablesInScopeResponse.newBuilder()
                        .setStatus(KVTablesInScopeResponse.Status.SCOPE_NOT_FOUND).build();
            }
            KVTablesInScopeResponse.Builder b = KVTablesInScopeResponse.newBuilder()
                    .setStatus(KVTablesInScopeResponse.Status.SUCCESS)
                    .setContinuationToken(ContinuationToken.newBuilder().setToken(page.token()));
            for (String name : page.names()) {
                b.addKvtables(KeyValueTableInfo.newBuilder().setScope(scope).setKvtName(name));
            }
            return b.build();
        });
    }

    @Override
    public void getKeyValueTableConfiguration(KeyValueTableInfo request,
                                              StreamObserver<KeyValueTableConfigResponse> observer) {
        respond(observer, () -> {
            authorize(AuthResource.keyValueTable(request.getScope(), request.getKvtName()), AccessLevel.READ);
            return core.kvtConfig(request.getScope(), request.getKvtName());
        });
    }

    @Override
    public void deleteKeyValueTable(KeyValueTableInfo request, StreamObserver<DeleteKVTableStatus> observer) {
        respond(observer, () -> {
            authorize(AuthResource.keyValueTable(request.getScope(), request.getKvtName()), AccessLevel.READ_UPDATE);
            return DeleteKVTableStatus.newBuilder()
                    .setStatus(core.deleteKeyValueTable(request.getScope(), request.getKvtName())).build();
        });
    }

    // ======================================================================= plumbing

    /** Runs a handler and maps its outcome to the gRPC answer. */
    private static <T> void respond(StreamObserver<T> observer, Supplier<T> handler) {
        T result;
        try {
            result = handler.get();
        } catch (StatusRuntimeException e) {
            observer.onError(e);
            return;
        } catch (RetriableException e) {
            observer.onError(Status.UNAVAILABLE.withDescription(e.getMessage()).withCause(e).asRuntimeException());
            return;
        } catch (StreamingInterruptedException e) {
            observer.onError(Status.CANCELLED.withDescription(e.getMessage()).asRuntimeException());
            return;
        } catch (RuntimeException e) {
            LOG.error("controller call failed", e);
            observer.onError(Status.INTERNAL.withDescription(e.toString()).withCause(e).asRuntimeException());
            return;
        }
        observer.onNext(result);
        observer.onCompleted();
    }

    /**
     * Checks that the caller may use the resource at the required level: UNAUTHENTICATED without an authenticated
     * user (no or foreign credentials), PERMISSION_DENIED if the user's access control list grants less.
     *
     * @throws StatusRuntimeException UNAUTHENTICATED or PERMISSION_DENIED
     */
    private void authorize(AuthResource resource, AccessLevel required) {
        if (users == null) {
            return;
        }
        Principal principal = BasicAuthInterceptor.PRINCIPAL.get();
        if (principal == null) {
            throw Status.UNAUTHENTICATED.withDescription("no authenticated user: the controller needs "
                    + "'authorization: Basic base64(user:password)'").asRuntimeException();
        }
        if (!principal.acl().permits(resource, required)) {
            throw Status.PERMISSION_DENIED.withDescription("user " + principal.user() + " lacks " + required
                    + " on " + resource.prn()).asRuntimeException();
        }
    }

    /** @return a filter that keeps the names the caller may read, given how a name maps to its resource */
    private Predicate<String> readable(Function<String, AuthResource> resourceOf) {
        if (users == null) {
            return name -> true;
        }
        Principal principal = BasicAuthInterceptor.PRINCIPAL.get();
        return name -> principal != null && principal.acl().permits(resourceOf.apply(name), AccessLevel.READ);
    }

    /**
     * What writing to (or creating) a stream needs, as Pravega 0.13 decides it with its default
     * {@code readerGroupStreams.writesWithReadPermissions.enable=true}: READ for a reader group's state stream and
     * for a watermark stream (readers update the one, the other is written for writers' marks), READ_UPDATE for
     * every other stream.
     */
    private static AccessLevel levelToWrite(String stream) {
        return stream.startsWith(Names.RG_STREAM_PREFIX) || stream.startsWith(Names.MARK_STREAM_PREFIX)
                ? AccessLevel.READ : AccessLevel.READ_UPDATE;
    }

    private String token(String scope, String stream, AccessLevel level) {
        if (tokens == null) {
            return "";
        }
        Principal principal = BasicAuthInterceptor.PRINCIPAL.get();
        return tokens.create(principal == null ? "" : principal.user(), scope + "/" + stream, level);
    }

    /** @return the stream as a resource, taken by its own name (Pravega's {@code ofStreamInScope}) */
    private static AuthResource resource(StreamInfo info) {
        return AuthResource.stream(info.getScope(), info.getStream());
    }

    /**
     * @return the stream as a resource with internal streams mapped (Pravega's {@code StreamAuthParams}): a reader
     *     group's state stream is the reader group, a watermark stream its stream
     */
    private static AuthResource streamOrGroup(StreamInfo info) {
        return AuthResource.ofStream(info.getScope(), info.getStream());
    }

    private static NodeUri nodeUri(String host, int port) {
        return NodeUri.newBuilder().setEndpoint(host).setPort(port).build();
    }

    private static TxnId txnId(UUID id) {
        return TxnId.newBuilder().setHighBits(id.getMostSignificantBits()).setLowBits(id.getLeastSignificantBits())
                .build();
    }

    private static UUID uuid(TxnId id) {
        return new UUID(id.getHighBits(), id.getLowBits());
    }
}
