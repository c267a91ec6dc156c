package io.sluice.controller;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.sluice.auth.AccessOperation;
import io.sluice.common.Certificates;
import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;
import io.sluice.controller.grpc.v1.ContinuationToken;
import io.sluice.controller.grpc.v1.ControllerServiceGrpc;
import io.sluice.controller.grpc.v1.ControllerServiceGrpc.ControllerServiceBlockingStub;
import io.sluice.controller.grpc.v1.CreateTxnRequest;
import io.sluice.controller.grpc.v1.GetEpochSegmentsRequest;
import io.sluice.controller.grpc.v1.GetSegmentsRequest;
import io.sluice.controller.grpc.v1.KVTablesInScopeRequest;
import io.sluice.controller.grpc.v1.KeyValueTableConfig;
import io.sluice.controller.grpc.v1.KeyValueTableInfo;
import io.sluice.controller.grpc.v1.ListCompletedTxnRequest;
import io.sluice.controller.grpc.v1.PingTxnRequest;
import io.sluice.controller.grpc.v1.ReaderGroupConfiguration;
import io.sluice.controller.grpc.v1.ReaderGroupInfo;
import io.sluice.controller.grpc.v1.RemoveWriterRequest;
import io.sluice.controller.grpc.v1.ScaleRequest;
import io.sluice.controller.grpc.v1.ScaleStatusRequest;
import io.sluice.controller.grpc.v1.ScopesRequest;
import io.sluice.controller.grpc.v1.ScopesResponse;
import io.sluice.controller.grpc.v1.ServerRequest;
import io.sluice.controller.grpc.v1.StreamCutRange;
import io.sluice.controller.grpc.v1.StreamsInScopeRequest;
import io.sluice.controller.grpc.v1.StreamsInScopeWithTagRequest;
import io.sluice.controller.grpc.v1.SubscriberStreamCut;
import io.sluice.controller.grpc.v1.TimestampFromWriter;
import io.sluice.controller.grpc.v1.TxnRequest;
import io.sluice.errors.CertificateRejectedException;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.stream.KeyRange;
import io.sluice.stream.Names;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.StreamCut;
import io.sluice.stream.TransactionInfo;
import io.sluice.stream.TxnState;
import io.sluice.table.KeyValueTableConfiguration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ControllerClient} over grpc-java blocking stubs: each call runs on the caller's (virtual) thread with a
 * fresh deadline per attempt ({@link ControllerClientConfig#rpcTimeout()}, cut to what is left of
 * {@link ControllerClientConfig#operationTimeout()}), is retried by {@link ControllerClientConfig#retry()} when it
 * fails with a {@link io.sluice.errors.RetriableException} (see {@link ProtoMapper#toException} for which gRPC
 * statuses those are), and carries the {@code authorization} header when credentials are configured. Messages are
 * mapped by {@link ProtoMapper} only.
 *
 * <p>When the controller is unreachable ({@code UNAVAILABLE}), the channels' connect backoff is reset before the
 * retry: gRPC's own (1 s growing by 1.6 up to 2 minutes, during which calls fail at once) would otherwise outlast a
 * controller that restarts; with the retry's reconnect cap ({@link io.sluice.common.Retry#maxReconnectBackoff()})
 * a call gets through within about half a second of the controller being back.
 *
 * <pre>{@code
 * try (GrpcControllerClient controller = GrpcControllerClient.create(
 *         ControllerClientConfig.builder("tcp://localhost:9090").build())) {
 *     controller.createScope("examples");
 *     controller.createStream(ScopedStream.of("examples", "orders"), StreamConfiguration.builder().build());
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@link #close()} shuts the channels down.
 */
public final class GrpcControllerClient implements ControllerClient {
    private static final Logger LOG = LoggerFactory.getLogger(GrpcControllerClient.class);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final ControllerClientConfig config;
    private final ControllerServiceBlockingStub stub;
    private final List<ManagedChannel> channels;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Set once the controller answered with an empty delegation token: it runs without auth. */
    private volatile boolean grantsEmptyTokens;

    /**
     * A client on a channel built elsewhere (tests use an in-process channel). The client owns the channel and
     * shuts it down on {@link #close()}. The configuration's URI and TLS settings are not used.
     *
     * @param channel the channel
     * @param config timeouts, retry policy and credentials
     */
    public GrpcControllerClient(ManagedChannel channel, ControllerClientConfig config) {
        this(List.of(channel), channel, config);
    }

    private GrpcControllerClient(List<ManagedChannel> channels, ManagedChannel main, ControllerClientConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.channels = List.copyOf(channels);
        ControllerServiceBlockingStub s = ControllerServiceGrpc.newBlockingStub(Objects.requireNonNull(main, "main"));
        if (config.credentials().isPresent()) {
            s = s.withCallCredentials(new AuthorizationCredentials(config.credentials().get()));
        }
        this.stub = s;
    }

    /**
     * Connects to the controller(s) of {@code config.controllerUri()}: directly for {@code tcp://}, {@code tls://}
     * and {@code ssl://}; for {@code pravega://} and {@code pravegas://} through a second channel to the seed
     * endpoints, which is asked for the controller list. Does not block: connections open on first use.
     *
     * @param config the configuration
     * @return the client
     * @throws IllegalArgumentException if the TLS trust store cannot be read
     */
    public static GrpcControllerClient create(ControllerClientConfig config) {
        if (!config.controllerUri().discovery()) {
            ManagedChannel channel = ControllerChannels.build(config, null);
            LOG.info("controller client for {}", config.controllerUri());
            return new GrpcControllerClient(List.of(channel), channel, config);
        }
        ManagedChannel seeds = ControllerChannels.build(config, null);
        ControllerServiceBlockingStub seedStub = ControllerServiceGrpc.newBlockingStub(seeds);
        if (config.credentials().isPresent()) {
            seedStub = seedStub.withCallCredentials(new AuthorizationCredentials(config.credentials().get()));
        }
        ControllerServiceBlockingStub discoveryStub = seedStub;
        Supplier<List<Endpoint>> discovery = () -> ProtoMapper.endpoints(discoveryStub
                .withDeadlineAfter(config.rpcTimeout().toNanos(), TimeUnit.NANOSECONDS)
                .getControllerServerList(ServerRequest.getDefaultInstance()));
        ManagedChannel main = ControllerChannels.build(config, discovery);
        LOG.info("controller client discovering controllers through {}", config.controllerUri());
        return new GrpcControllerClient(List.of(main, seeds), main, config);
    }

    /** @return the configuration */
    public ControllerClientConfig config() {
        return config;
    }

    // =================================================================================================
    // The call path
    // =================================================================================================

    private <T> T call(String rpc, Object subject, Supplier<? extends RuntimeException> notFound,
                       Function<ControllerServiceBlockingStub, T> invocation) {
        String what = (rpc + " " + subject).strip();
        Deadline operation = Deadline.after(config.operationTimeout());
        return config.retry().run(what, operation, () -> {
            if (closed.get()) {
                throw new IllegalStateException("controller client is closed (" + what + ")");
            }
            long nanos = Math.min(config.rpcTimeout().toNanos(), operation.remainingNanos());
            if (nanos <= 0) {
                throw new DeadlineExceededException(what + " did not complete before its deadline");
            }
            try {
                return invocation.apply(stub.withDeadlineAfter(nanos, TimeUnit.NANOSECONDS));
            } catch (StatusRuntimeException e) {
                // gRPC reports a refused certificate as UNAVAILABLE ("io exception"), which would be retried until
                // the deadline and then name neither the controller nor the certificate
                java.util.Optional<String> refused = Certificates.rejection(e);
                if (refused.isPresent()) {
                    throw new CertificateRejectedException(what + ": the TLS certificate of the controller at "
                            + config.controllerUri() + " was refused: " + refused.get() + " ("
                            + Certificates.trusted(config.trustStore().orElse(null))
                            + (config.validateHostname() ? ", host names verified" : ", host names not verified")
                            + ")", e);
                }
                RuntimeException mapped = ProtoMapper.toException(e, what, notFound);
                LOG.debug("{}", mapped.getMessage());
                if (mapped instanceof ConnectionFailedException) {
                    reconnectNow();
                }
                throw mapped;
            }
        });
    }

    /**
     * The controller is unreachable: make the channels try to connect again now rather than when gRPC's own
     * reconnect backoff (1 s growing by 1.6 up to 2 minutes, during which every call fails at once) runs out, so the
     * next attempt, at most {@link io.sluice.common.Retry#maxReconnectBackoff()} away, finds the controller as soon
     * as it is back.
     */
    private void reconnectNow() {
        for (ManagedChannel channel : channels) {
            channel.resetConnectBackoff();
        }
    }

    private Supplier<RuntimeException> streamNotFound(ScopedStream stream) {
        return () -> ProtoMapper.noSuchStream(stream);
    }

    /** Pages through a listing lazily; stops at the first empty page, as Pravega's iterator does. */
    private static final class PagingIterator<T> implements Iterator<T> {
        private final Function<ContinuationToken, ProtoMapper.Page<T>> fetch;
        private final ArrayDeque<T> buffer = new ArrayDeque<>();
        private ContinuationToken token = ContinuationToken.getDefaultInstance();
        private boolean done;

        PagingIterator(Function<ContinuationToken, ProtoMapper.Page<T>> fetch) {
            this.fetch = fetch;
        }

        @Override
        public boolean hasNext() {
            while (buffer.isEmpty() && !done) {
                ProtoMapper.Page<T> page = fetch.apply(token);
                if (page.items().isEmpty()) {
                    done = true;
                } else {
                    buffer.addAll(page.items());
                    token = page.next();
                }
            }
            return !buffer.isEmpty();
        }

        @Override
        public T next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return buffer.poll();
        }
    }

    // =================================================================================================
    // Scopes
    // =================================================================================================

    @Override
    public boolean createScope(String scope) {
        Names.validateUserScope(scope);
        return ProtoMapper.createScopeResult(call("createScope", scope, null,
                s -> s.createScope(ProtoMapper.scopeInfo(scope))), scope);
    }

    @Override
    public boolean scopeExists(String scope) {
        Objects.requireNonNull(scope, "scope");
        return call("checkScopeExists", scope, null, s -> s.checkScopeExists(ProtoMapper.scopeInfo(scope)))
                .getExists();
    }

    @Override
    public Iterator<String> scopeIterator() {
        return new PagingIterator<>(token -> {
            ScopesResponse response = call("listScopes", "", null,
                    s -> s.listScopes(ScopesRequest.newBuilder().setContinuationToken(token).build()));
            return new ProtoMapper.Page<>(List.copyOf(response.getScopesList()), response.getContinuationToken());
        });
    }

    @Override
    public boolean deleteScope(String scope) {
        Objects.requireNonNull(scope, "scope");
        return ProtoMapper.deleteScopeResult(call("deleteScope", scope, null,
                s -> s.deleteScope(ProtoMapper.scopeInfo(scope))), scope, false);
    }

    @Override
    public boolean deleteScopeRecursive(String scope) {
        Objects.requireNonNull(scope, "scope");
        return ProtoMapper.deleteScopeResult(call("deleteScopeRecursive", scope, null,
                s -> s.deleteScopeRecursive(ProtoMapper.scopeInfo(scope))), scope, true);
    }

    // =================================================================================================
    // Streams
    // =================================================================================================

    @Override
    public boolean createStream(ScopedStream stream, StreamConfiguration config) {
        Names.validateUserStream(stream.name());
        Objects.requireNonNull(config, "config");
        return ProtoMapper.createStreamResult(call("createStream", stream, null,
                s -> s.createStream(ProtoMapper.toProto(stream, config))), stream);
    }

    @Override
    public void updateStream(ScopedStream stream, StreamConfiguration config) {
        Objects.requireNonNull(config, "config");
        ProtoMapper.updateStreamResult(call("updateStream", stream, streamNotFound(stream),
                s -> s.updateStream(ProtoMapper.toProto(stream, config))), "updateStream", stream);
    }

    @Override
    public StreamConfiguration streamConfiguration(ScopedStream stream) {
        return ProtoMapper.streamConfiguration(call("getStreamConfiguration", stream, streamNotFound(stream),
                s -> s.getStreamConfiguration(ProtoMapper.streamInfo(stream))));
    }

    @Override
    public boolean streamExists(ScopedStream stream) {
        return call("checkStreamExists", stream, null, s -> s.checkStreamExists(ProtoMapper.streamInfo(stream)))
                .getExists();
    }

    @Override
    public Iterator<ScopedStream> streamIterator(String scope) {
        Objects.requireNonNull(scope, "scope");
        return new PagingIterator<>(token -> ProtoMapper.streamsPage(call("listStreamsInScope", scope,
                () -> ProtoMapper.noSuchScope(scope), s -> s.listStreamsInScope(StreamsInScopeRequest.newBuilder()
                        .setScope(ProtoMapper.scopeInfo(scope)).setContinuationToken(token).build())), scope));
    }

    @Override
    public Iterator<ScopedStream> streamIterator(String scope, String tag) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(tag, "tag");
        return new PagingIterator<>(token -> ProtoMapper.streamsPage(call("listStreamsInScopeForTag",
                scope + " tag " + tag, () -> ProtoMapper.noSuchScope(scope),
                s -> s.listStreamsInScopeForTag(StreamsInScopeWithTagRequest.newBuilder()
                        .setScope(ProtoMapper.scopeInfo(scope)).setTag(tag).setContinuationToken(token).build())),
                scope));
    }

    @Override
    public void sealStream(ScopedStream stream) {
        ProtoMapper.updateStreamResult(call("sealStream", stream, streamNotFound(stream),
                s -> s.sealStream(ProtoMapper.streamInfo(stream))), "sealStream", stream);
    }

    @Override
    public boolean deleteStream(ScopedStream stream) {
        return ProtoMapper.deleteStreamResult(call("deleteStream", stream, null,
                s -> s.deleteStream(ProtoMapper.streamInfo(stream))), stream);
    }

    @Override
    public void truncateStream(ScopedStream stream, StreamCut cut) {
        if (cut.isUnbounded()) {
            throw new IllegalArgumentException("cannot truncate stream " + stream + " at the unbounded stream cut");
        }
        io.sluice.controller.grpc.v1.StreamCut request = ProtoMapper.toProto(stream, cut);
        ProtoMapper.updateStreamResult(call("truncateStream", stream, streamNotFound(stream),
                s -> s.truncateStream(request)), "truncateStream", stream);
    }

    // =================================================================================================
    // Segments
    // =================================================================================================

    @Override
    public StreamSegments currentSegments(ScopedStream stream) {
        StreamSegments segments = ProtoMapper.streamSegments(call("getCurrentSegments", stream, streamNotFound(stream),
                s -> s.getCurrentSegments(ProtoMapper.streamInfo(stream))));
        noteToken(segments.delegationToken());
        return segments;
    }

    @Override
    public StreamCut segmentsAtTime(ScopedStream stream, long timestampMillis) {
        return ProtoMapper.segmentsAtTime(stream, call("getSegments", stream, streamNotFound(stream),
                s -> s.getSegments(GetSegmentsRequest.newBuilder().setStreamInfo(ProtoMapper.streamInfo(stream))
                        .setTimestamp(timestampMillis).build())));
    }

    @Override
    public SegmentSuccessors successors(Segment segment) {
        return ProtoMapper.successors(call("getSegmentsImmediatelyFollowing", segment, null,
                s -> s.getSegmentsImmediatelyFollowing(ProtoMapper.segmentId(segment))));
    }

    @Override
    public SegmentSet segmentsBetween(ScopedStream stream, StreamCut from, StreamCut to) {
        StreamCutRange request = ProtoMapper.streamCutRange(stream, from, to);
        return ProtoMapper.segmentSet(call("getSegmentsBetween", stream, streamNotFound(stream),
                s -> s.getSegmentsBetween(request)));
    }

    @Override
    public StreamSegments epochSegments(ScopedStream stream, int epoch) {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must not be negative: " + epoch);
        }
        return ProtoMapper.streamSegments(call("getEpochSegments", stream + " epoch " + epoch, streamNotFound(stream),
                s -> s.getEpochSegments(GetEpochSegmentsRequest.newBuilder()
                        .setStreamInfo(ProtoMapper.streamInfo(stream)).setEpoch(epoch).build())));
    }

    @Override
    public Endpoint endpointFor(Segment segment) {
        return ProtoMapper.endpoint(call("getURI", segment, null, s -> s.getURI(ProtoMapper.segmentId(segment))));
    }

    @Override
    public boolean isSegmentValid(Segment segment) {
        return call("isSegmentValid", segment, null, s -> s.isSegmentValid(ProtoMapper.segmentId(segment)))
                .getResponse();
    }

    @Override
    public boolean isStreamCutValid(ScopedStream stream, StreamCut cut) {
        io.sluice.controller.grpc.v1.StreamCut request = ProtoMapper.toProto(stream, cut);
        return call("isStreamCutValid", stream, streamNotFound(stream), s -> s.isStreamCutValid(request))
                .getResponse();
    }

    // =================================================================================================
    // Scaling
    // =================================================================================================

    @Override
    public ScaleResult scale(ScopedStream stream, List<Segment> sealed, List<KeyRange> newRanges) {
        ScaleRequest request = ProtoMapper.scaleRequest(stream, sealed, newRanges, System.currentTimeMillis());
        return ProtoMapper.scaleResult(call("scale", stream, streamNotFound(stream), s -> s.scale(request)), stream);
    }

    @Override
    public boolean checkScale(ScopedStream stream, int epoch) {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must not be negative: " + epoch);
        }
        return ProtoMapper.checkScaleResult(call("checkScale", stream + " epoch " + epoch, streamNotFound(stream),
                s -> s.checkScale(ScaleStatusRequest.newBuilder().setStreamInfo(ProtoMapper.streamInfo(stream))
                        .setEpoch(epoch).build())), stream, epoch);
    }

    // =================================================================================================
    // Transactions
    // =================================================================================================

    @Override
    public TxnSegments createTransaction(ScopedStream stream, Duration lease) {
        long leaseMillis = positiveMillis("lease", lease);
        return ProtoMapper.txnSegments(call("createTransaction", stream, streamNotFound(stream),
                s -> s.createTransaction(CreateTxnRequest.newBuilder().setStreamInfo(ProtoMapper.streamInfo(stream))
                        .setLease(leaseMillis).build())));
    }

    @Override
    public TxnState pingTransaction(ScopedStream stream, UUID txnId, Duration lease) {
        Objects.requireNonNull(txnId, "txnId");
        long leaseMillis = positiveMillis("lease", lease);
        return ProtoMapper.pingResult(call("pingTransaction", stream + " " + txnId, streamNotFound(stream),
                s -> s.pingTransaction(PingTxnRequest.newBuilder().setStreamInfo(ProtoMapper.streamInfo(stream))
                        .setTxnId(ProtoMapper.txnId(txnId)).setLease(leaseMillis).build())), stream, txnId);
    }

    @Override
    public void commitTransaction(ScopedStream stream, UUID txnId, String writerId, OptionalLong timestamp) {
        Objects.requireNonNull(txnId, "txnId");
        Objects.requireNonNull(writerId, "writerId");
        TxnRequest request = TxnRequest.newBuilder().setStreamInfo(ProtoMapper.streamInfo(stream))
                .setTxnId(ProtoMapper.txnId(txnId)).setWriterId(writerId)
                .setTimestamp(timestamp.orElse(ProtoMapper.NO_TIMESTAMP)).build();
        ProtoMapper.txnResult(call("commitTransaction", stream + " " + txnId, streamNotFound(stream),
                s -> s.commitTransaction(request)), true, stream, txnId);
    }

    @Override
    public void abortTransaction(ScopedStream stream, UUID txnId) {
        Objects.requireNonNull(txnId, "txnId");
        TxnRequest request = TxnRequest.newBuilder().setStreamInfo(ProtoMapper.streamInfo(stream))
                .setTxnId(ProtoMapper.txnId(txnId)).build();
        ProtoMapper.txnResult(call("abortTransaction", stream + " " + txnId, streamNotFound(stream),
                s -> s.abortTransaction(request)), false, stream, txnId);
    }

    @Override
    public TxnState transactionState(ScopedStream stream, UUID txnId) {
        Objects.requireNonNull(txnId, "txnId");
        TxnRequest request = TxnRequest.newBuilder().setStreamInfo(ProtoMapper.streamInfo(stream))
                .setTxnId(ProtoMapper.txnId(txnId)).build();
        return ProtoMapper.txnState(call("checkTransactionState", stream + " " + txnId, streamNotFound(stream),
                s -> s.checkTransactionState(request)), stream, txnId);
    }

    @Override
    public List<TransactionInfo> listCompletedTransactions(ScopedStream stream) {
        return ProtoMapper.completedTransactions(stream, call("listCompletedTransactions", stream,
                streamNotFound(stream),
                s -> s.listCompletedTransactions(ListCompletedTxnRequest.newBuilder()
                        .setStreamInfo(ProtoMapper.streamInfo(stream)).build())));
    }

    // =================================================================================================
    // Reader groups and subscribers
    // =================================================================================================

    @Override
    public ReaderGroupConfig createReaderGroup(String scope, String group, ReaderGroupConfig config) {
        Objects.requireNonNull(scope, "scope");
        Names.validateReaderGroup(group);
        Objects.requireNonNull(config, "config");
        ReaderGroupConfiguration request = ProtoMapper.toProto(scope, group, config);
        return ProtoMapper.createReaderGroupResult(call("createReaderGroup", scope + "/" + group,
                () -> ProtoMapper.noSuchScope(scope), s -> s.createReaderGroup(request)), scope, group);
    }

    @Override
    public ReaderGroupConfig readerGroupConfig(String scope, String group) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(group, "group");
        return ProtoMapper.readerGroupConfigResult(call("getReaderGroupConfig", scope + "/" + group,
                () -> ProtoMapper.noSuchReaderGroup(scope, group),
                s -> s.getReaderGroupConfig(ProtoMapper.readerGroupInfo(scope, group, "", 0))), scope, group);
    }

    @Override
    public long updateReaderGroup(String scope, String group, ReaderGroupConfig config) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(config, "config");
        ReaderGroupConfiguration request = ProtoMapper.toProto(scope, group, config);
        return ProtoMapper.updateReaderGroupResult(call("updateReaderGroup", scope + "/" + group,
                () -> ProtoMapper.noSuchReaderGroup(scope, group), s -> s.updateReaderGroup(request)), scope, group);
    }

    @Override
    public boolean deleteReaderGroup(String scope, String group, UUID readerGroupId) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(readerGroupId, "readerGroupId");
        ReaderGroupInfo request = ProtoMapper.readerGroupInfo(scope, group, readerGroupId.toString(), 0);
        return ProtoMapper.deleteReaderGroupResult(call("deleteReaderGroup", scope + "/" + group, null,
                s -> s.deleteReaderGroup(request)), scope, group);
    }

    @Override
    public List<String> listSubscribers(ScopedStream stream) {
        return ProtoMapper.subscribersResult(call("listSubscribers", stream, streamNotFound(stream),
                s -> s.listSubscribers(ProtoMapper.streamInfo(stream))), stream);
    }

    @Override
    public void updateSubscriberStreamCut(ScopedStream stream, String subscriber, UUID readerGroupId, long generation,
                                          StreamCut cut) {
        Objects.requireNonNull(subscriber, "subscriber");
        Objects.requireNonNull(readerGroupId, "readerGroupId");
        SubscriberStreamCut request = SubscriberStreamCut.newBuilder().setSubscriber(subscriber)
                .setGeneration(generation).setReaderGroupId(readerGroupId.toString())
                .setStreamCut(ProtoMapper.toProto(stream, cut)).build();
        ProtoMapper.updateSubscriberResult(call("updateSubscriberStreamCut", stream + " subscriber " + subscriber,
                streamNotFound(stream), s -> s.updateSubscriberStreamCut(request)), stream, subscriber);
    }

    // =================================================================================================
    // Watermarks
    // =================================================================================================

    @Override
    public void noteTimestampFromWriter(String writerId, ScopedStream stream, long timestamp, StreamCut position) {
        Objects.requireNonNull(writerId, "writerId");
        if (position.isUnbounded()) {
            throw new IllegalArgumentException("writer position on " + stream + " must name its segments");
        }
        TimestampFromWriter request = TimestampFromWriter.newBuilder().setWriter(writerId)
                .setPosition(ProtoMapper.toProto(stream, position)).setTimestamp(timestamp).build();
        ProtoMapper.noteTimestampResult(call("noteTimestampFromWriter", stream + " writer " + writerId,
                streamNotFound(stream), s -> s.noteTimestampFromWriter(request)), writerId, stream, timestamp);
    }

    @Override
    public boolean removeWriter(String writerId, ScopedStream stream) {
        Objects.requireNonNull(writerId, "writerId");
        RemoveWriterRequest request = RemoveWriterRequest.newBuilder().setWriter(writerId)
                .setStream(ProtoMapper.streamInfo(stream)).build();
        return ProtoMapper.removeWriterResult(call("removeWriter", stream + " writer " + writerId,
                streamNotFound(stream), s -> s.removeWriter(request)), writerId, stream);
    }

    // =================================================================================================
    // Key-value tables
    // =================================================================================================

    @Override
    public boolean createKeyValueTable(String scope, String table, KeyValueTableConfiguration config) {
        Objects.requireNonNull(scope, "scope");
        Names.validateKeyValueTable(table);
        Objects.requireNonNull(config, "config");
        KeyValueTableConfig request = ProtoMapper.toProto(scope, table, config);
        return ProtoMapper.createKeyValueTableResult(call("createKeyValueTable", scope + "/" + table,
                () -> ProtoMapper.noSuchScope(scope), s -> s.createKeyValueTable(request)), scope, table);
    }

    @Override
    public StreamSegments keyValueTableSegments(String scope, String table) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(table, "table");
        KeyValueTableInfo request = ProtoMapper.keyValueTableInfo(scope, table);
        return ProtoMapper.streamSegments(call("getCurrentSegmentsKeyValueTable", scope + "/" + table,
                () -> ProtoMapper.noSuchKeyValueTable(scope, table), s -> s.getCurrentSegmentsKeyValueTable(request)));
    }

    @Override
    public Iterator<String> keyValueTableIterator(String scope) {
        Objects.requireNonNull(scope, "scope");
        return new PagingIterator<>(token -> ProtoMapper.keyValueTablesPage(call("listKeyValueTablesInScope", scope,
                () -> ProtoMapper.noSuchScope(scope), s -> s.listKeyValueTablesInScope(KVTablesInScopeRequest
                        .newBuilder().setScope(ProtoMapper.scopeInfo(scope)).setContinuationToken(token).build())),
                scope));
    }

    @Override
    public KeyValueTableConfiguration keyValueTableConfiguration(String scope, String table) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(table, "table");
        KeyValueTableInfo request = ProtoMapper.keyValueTableInfo(scope, table);
        return ProtoMapper.keyValueTableConfigResult(call("getKeyValueTableConfiguration", scope + "/" + table,
                () -> ProtoMapper.noSuchKeyValueTable(scope, table), s -> s.getKeyValueTableConfiguration(request)),
                scope, table);
    }

    @Override
    public boolean deleteKeyValueTable(String scope, String table) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(table, "table");
        KeyValueTableInfo request = ProtoMapper.keyValueTableInfo(scope, table);
        return ProtoMapper.deleteKeyValueTableResult(call("deleteKeyValueTable", scope + "/" + table, null,
                s -> s.deleteKeyValueTable(request)), scope, table);
    }

    // =================================================================================================
    // Auth and discovery
    // =================================================================================================

    @Override
    public String delegationToken(ScopedStream stream, AccessOperation operation) {
        Objects.requireNonNull(operation, "operation");
        return noteToken(call("getDelegationToken", stream, streamNotFound(stream),
                s -> s.getDelegationToken(ProtoMapper.streamInfo(stream, operation))).getDelegationToken());
    }

    @Override
    public boolean grantsEmptyTokens() {
        return grantsEmptyTokens;
    }

    /** @return {@code token}, after noting whether it is the empty one (the controller runs without auth) */
    private String noteToken(String token) {
        if (token.isEmpty() && !grantsEmptyTokens) {
            grantsEmptyTokens = true;
        }
        return token;
    }

    @Override
    public List<Endpoint> controllerServerList() {
        return ProtoMapper.endpoints(call("getControllerServerList", "", null,
                s -> s.getControllerServerList(ServerRequest.getDefaultInstance())));
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        channels.forEach(ManagedChannel::shutdownNow);
        List<ManagedChannel> lingering = new ArrayList<>();
        try {
            for (ManagedChannel channel : channels) {
                if (!channel.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    lingering.add(channel);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!lingering.isEmpty()) {
            LOG.warn("controller channels did not terminate within {}: {}", CLOSE_WAIT, lingering);
        }
    }

    private static long positiveMillis(String what, Duration d) {
        Objects.requireNonNull(d, what);
        long millis = d.toMillis();
        if (millis <= 0) {
            throw new IllegalArgumentException(what + " must be at least 1 ms: " + d);
        }
        return millis;
    }
}
