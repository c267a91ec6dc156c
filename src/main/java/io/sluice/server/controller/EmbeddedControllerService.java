package io.sluice.server.controller;

import static io.sluice.server.controller.GrpcResponses.respond;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.StreamObserver;
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
import io.sluice.controller.grpc.v1.TxnRequest;
import io.sluice.controller.grpc.v1.TxnState;
import io.sluice.controller.grpc.v1.TxnStatus;
import io.sluice.controller.grpc.v1.UpdateReaderGroupResponse;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;
import io.sluice.controller.grpc.v1.UpdateSubscriberStatus;
import io.sluice.server.auth.DelegationTokens;

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
 *
 * <p>This class only wires things together: each RPC goes to the handler class of its area
 * ({@link ScopeStreamHandlers}, {@link SegmentScaleHandlers}, {@link TransactionHandlers},
 * {@link ReaderGroupHandlers}, {@link KeyValueTableHandlers}, {@link DiscoveryHandlers}), which checks the caller's
 * rights ({@link Authorizer}), issues tokens ({@link TokenIssuer}) and calls {@link ControllerCore};
 * {@link GrpcResponses} maps the outcome to a gRPC status; {@link ControllerTimers} runs the lease and watermark
 * timers.
 */
public final class EmbeddedControllerService extends ControllerServiceGrpc.ControllerServiceImplBase
        implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedControllerService.class);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final ControllerCore core;
    private final SerialExecutors executors;
    private final ControllerStore store;
    private final java.util.function.Supplier<PasswordFile> users;
    private final ControllerTimers timers;
    private final ScopeStreamHandlers scopes;
    private final SegmentScaleHandlers segments;
    private final TransactionHandlers txns;
    private final ReaderGroupHandlers groups;
    private final KeyValueTableHandlers kvts;
    private final DiscoveryHandlers discovery;
    private final Retention retention;

    private EmbeddedControllerService(Builder b) {
        this.store = b.store;
        this.users = b.users;
        this.executors = new SerialExecutors();
        Journal journal = new Journal(store);
        int replayed = journal.recover();
        this.core = new ControllerCore(journal, executors, b.admin, b.clock, b.settings);
        if (replayed > 0) {
            LOG.info("controller metadata recovered from {} events", replayed);
            core.resumeUnfinishedWork();
        }
        Authorizer auth = new Authorizer(b.users);
        ServiceContext ctx = new ServiceContext(core, b.settings, auth, new TokenIssuer(b.tokens, auth));
        this.scopes = new ScopeStreamHandlers(ctx);
        this.segments = new SegmentScaleHandlers(ctx);
        this.txns = new TransactionHandlers(ctx);
        this.groups = new ReaderGroupHandlers(ctx);
        this.kvts = new KeyValueTableHandlers(ctx);
        this.discovery = new DiscoveryHandlers(ctx);
        this.timers = new ControllerTimers(core, b.settings);
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
        private java.util.function.Supplier<PasswordFile> users;
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
            Objects.requireNonNull(passwordFile, "passwordFile");
            return auth(() -> passwordFile, delegationTokens);
        }

        /**
         * As {@link #auth(PasswordFile, DelegationTokens)}, with users that may change while the controller runs
         * (e.g. a {@link ReloadingPasswordFile}): every authenticated call asks {@code passwordFile} for them.
         */
        public Builder auth(java.util.function.Supplier<PasswordFile> passwordFile,
                            DelegationTokens delegationTokens) {
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

    /** @return a new auto-scaler scaling this controller's streams on the segment store's requests (docs/scaling.md) */
    public ScaleRequestListener autoScaler(Duration window, java.util.function.LongSupplier clockMillis) {
        return new AutoScaler(core, window, clockMillis);
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
        retention.close();
        timers.stop(CLOSE_TIMEOUT);
        if (!executors.close(CLOSE_TIMEOUT)) {
            LOG.warn("controller work still running after {}", CLOSE_TIMEOUT);
        }
        store.close();
    }

    // ======================================================================= handlers, by area

    // --------------------------------------------------------- discovery and delegation tokens (DiscoveryHandlers)

    @Override public void getControllerServerList(ServerRequest request, StreamObserver<ServerResponse> observer) {
        respond(observer, () -> discovery.getControllerServerList());
    }
    @Override public void getControllerToBucketMapping(ControllerToBucketMappingRequest request,
                                                       StreamObserver<ControllerToBucketMappingResponse> observer) {
        respond(observer, () -> discovery.getControllerToBucketMapping());
    }
    @Override public void getURI(SegmentId request, StreamObserver<NodeUri> observer) {
        respond(observer, () -> discovery.getURI(request));
    }
    @Override public void getDelegationToken(StreamInfo request, StreamObserver<DelegationToken> observer) {
        respond(observer, () -> discovery.getDelegationToken(request));
    }

    // -------------------------------------------------------------------- scopes and streams (ScopeStreamHandlers)

    @Override public void createScope(ScopeInfo request, StreamObserver<CreateScopeStatus> observer) {
        respond(observer, () -> scopes.createScope(request));
    }
    @Override public void checkScopeExists(ScopeInfo request, StreamObserver<ExistsResponse> observer) {
        respond(observer, () -> scopes.checkScopeExists(request));
    }
    @Override public void listScopes(ScopesRequest request, StreamObserver<ScopesResponse> observer) {
        respond(observer, () -> scopes.listScopes(request));
    }
    @Override public void deleteScope(ScopeInfo request, StreamObserver<DeleteScopeStatus> observer) {
        respond(observer, () -> scopes.deleteScope(request));
    }
    @Override public void deleteScopeRecursive(ScopeInfo request, StreamObserver<DeleteScopeStatus> observer) {
        respond(observer, () -> scopes.deleteScopeRecursive(request));
    }
    @Override public void createStream(StreamConfig request, StreamObserver<CreateStreamStatus> observer) {
        respond(observer, () -> scopes.createStream(request));
    }
    @Override public void updateStream(StreamConfig request, StreamObserver<UpdateStreamStatus> observer) {
        respond(observer, () -> scopes.updateStream(request));
    }
    @Override public void getStreamConfiguration(StreamInfo request, StreamObserver<StreamConfig> observer) {
        respond(observer, () -> scopes.getStreamConfiguration(request));
    }
    @Override public void checkStreamExists(StreamInfo request, StreamObserver<ExistsResponse> observer) {
        respond(observer, () -> scopes.checkStreamExists(request));
    }
    @Override public void listStreamsInScope(StreamsInScopeRequest request,
                                             StreamObserver<StreamsInScopeResponse> observer) {
        respond(observer, () -> scopes.listStreamsInScope(request));
    }
    @Override public void listStreamsInScopeForTag(StreamsInScopeWithTagRequest request,
                                                   StreamObserver<StreamsInScopeResponse> observer) {
        respond(observer, () -> scopes.listStreamsInScopeForTag(request));
    }
    @Override public void truncateStream(StreamCut request, StreamObserver<UpdateStreamStatus> observer) {
        respond(observer, () -> scopes.truncateStream(request));
    }
    @Override public void sealStream(StreamInfo request, StreamObserver<UpdateStreamStatus> observer) {
        respond(observer, () -> scopes.sealStream(request));
    }
    @Override public void deleteStream(StreamInfo request, StreamObserver<DeleteStreamStatus> observer) {
        respond(observer, () -> scopes.deleteStream(request));
    }

    // ----------------------------------------------------------------- segments and scaling (SegmentScaleHandlers)

    @Override public void getCurrentSegments(StreamInfo request, StreamObserver<SegmentRanges> observer) {
        respond(observer, () -> segments.getCurrentSegments(request));
    }
    @Override public void getEpochSegments(GetEpochSegmentsRequest request, StreamObserver<SegmentRanges> observer) {
        respond(observer, () -> segments.getEpochSegments(request));
    }
    @Override public void getSegments(GetSegmentsRequest request, StreamObserver<SegmentsAtTime> observer) {
        respond(observer, () -> segments.getSegments(request));
    }
    @Override public void getSegmentsImmediatelyFollowing(SegmentId request,
                                                          StreamObserver<SuccessorResponse> observer) {
        respond(observer, () -> segments.successors(request));
    }
    @Override public void getSegmentsImmediatlyFollowing(SegmentId request,
                                                         StreamObserver<SuccessorResponse> observer) {
        respond(observer, () -> segments.successors(request));
    }
    @Override public void getSegmentsBetween(StreamCutRange request, StreamObserver<StreamCutRangeResponse> observer) {
        respond(observer, () -> segments.getSegmentsBetween(request));
    }
    @Override public void isSegmentValid(SegmentId request, StreamObserver<SegmentValidityResponse> observer) {
        respond(observer, () -> segments.isSegmentValid(request));
    }
    @Override public void isStreamCutValid(StreamCut request, StreamObserver<StreamCutValidityResponse> observer) {
        respond(observer, () -> segments.isStreamCutValid(request));
    }
    @Override public void scale(ScaleRequest request, StreamObserver<ScaleResponse> observer) {
        respond(observer, () -> segments.scale(request));
    }
    @Override public void checkScale(ScaleStatusRequest request, StreamObserver<ScaleStatusResponse> observer) {
        respond(observer, () -> segments.checkScale(request));
    }

    // ------------------------------------------------------- transactions and writers' marks (TransactionHandlers)

    @Override public void createTransaction(CreateTxnRequest request, StreamObserver<CreateTxnResponse> observer) {
        respond(observer, () -> txns.createTransaction(request));
    }
    @Override public void pingTransaction(PingTxnRequest request, StreamObserver<PingTxnStatus> observer) {
        respond(observer, () -> txns.pingTransaction(request));
    }
    @Override public void commitTransaction(TxnRequest request, StreamObserver<TxnStatus> observer) {
        respond(observer, () -> txns.commitTransaction(request));
    }
    @Override public void abortTransaction(TxnRequest request, StreamObserver<TxnStatus> observer) {
        respond(observer, () -> txns.abortTransaction(request));
    }
    @Override public void checkTransactionState(TxnRequest request, StreamObserver<TxnState> observer) {
        respond(observer, () -> txns.checkTransactionState(request));
    }
    @Override public void listCompletedTransactions(ListCompletedTxnRequest request,
                                                    StreamObserver<ListCompletedTxnResponse> observer) {
        respond(observer, () -> txns.listCompletedTransactions(request));
    }
    @Override public void noteTimestampFromWriter(TimestampFromWriter request,
                                                  StreamObserver<TimestampResponse> observer) {
        respond(observer, () -> txns.noteTimestampFromWriter(request));
    }
    @Override public void removeWriter(RemoveWriterRequest request, StreamObserver<RemoveWriterResponse> observer) {
        respond(observer, () -> txns.removeWriter(request));
    }

    // --------------------------------------------------------- reader groups and subscribers (ReaderGroupHandlers)

    @Override public void createReaderGroup(ReaderGroupConfiguration request,
                                            StreamObserver<CreateReaderGroupResponse> observer) {
        respond(observer, () -> groups.createReaderGroup(request));
    }
    @Override public void getReaderGroupConfig(ReaderGroupInfo request,
                                               StreamObserver<ReaderGroupConfigResponse> observer) {
        respond(observer, () -> groups.getReaderGroupConfig(request));
    }
    @Override public void updateReaderGroup(ReaderGroupConfiguration request,
                                            StreamObserver<UpdateReaderGroupResponse> observer) {
        respond(observer, () -> groups.updateReaderGroup(request));
    }
    @Override public void deleteReaderGroup(ReaderGroupInfo request, StreamObserver<DeleteReaderGroupStatus> observer) {
        respond(observer, () -> groups.deleteReaderGroup(request));
    }
    @Override public void listSubscribers(StreamInfo request, StreamObserver<SubscribersResponse> observer) {
        respond(observer, () -> groups.listSubscribers(request));
    }
    @Override public void updateSubscriberStreamCut(SubscriberStreamCut request,
                                                    StreamObserver<UpdateSubscriberStatus> observer) {
        respond(observer, () -> groups.updateSubscriberStreamCut(request));
    }

    // -------------------------------------------------------------------- key-value tables (KeyValueTableHandlers)

    @Override public void createKeyValueTable(KeyValueTableConfig request,
                                              StreamObserver<CreateKeyValueTableStatus> observer) {
        respond(observer, () -> kvts.createKeyValueTable(request));
    }
    @Override public void getCurrentSegmentsKeyValueTable(KeyValueTableInfo request,
                                                          StreamObserver<SegmentRanges> observer) {
        respond(observer, () -> kvts.getCurrentSegmentsKeyValueTable(request));
    }
    @Override public void listKeyValueTablesInScope(KVTablesInScopeRequest request,
                                                    StreamObserver<KVTablesInScopeResponse> observer) {
        respond(observer, () -> kvts.listKeyValueTablesInScope(request));
    }
    @Override public void getKeyValueTableConfiguration(KeyValueTableInfo request,
                                                        StreamObserver<KeyValueTableConfigResponse> observer) {
        respond(observer, () -> kvts.getKeyValueTableConfiguration(request));
    }
    @Override public void deleteKeyValueTable(KeyValueTableInfo request, StreamObserver<DeleteKVTableStatus> observer) {
        respond(observer, () -> kvts.deleteKeyValueTable(request));
    }
}
