package io.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import com.google.protobuf.Message;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.sluice.controller.grpc.v1.ControllerServiceGrpc;
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
import io.sluice.controller.grpc.v1.TxnStatus;
import io.sluice.controller.grpc.v1.UpdateReaderGroupResponse;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;
import io.sluice.controller.grpc.v1.UpdateSubscriberStatus;

/**
 * A scripted controller: every RPC records its request (with the call's headers) and answers with the next
 * scripted reply for that RPC — a response message, a {@link Status} to fail with, or {@link #HANG} to never answer.
 * The last scripted reply of an RPC repeats. An RPC without a script fails with UNIMPLEMENTED. Thread-safe.
 * Public so that tests of other packages (the command line's) can script a controller too.
 */
public final class FakeController extends ControllerServiceGrpc.ControllerServiceImplBase implements AutoCloseable {
    /** Never answer (the client's deadline must fire). */
    public static final Object HANG = new Object();

    private static final Context.Key<Metadata> HEADERS = Context.key("headers");

    /** One recorded call. */
    public record Call(String rpc, Message request, Metadata headers) {
    }

    private final BlockingQueue<Call> calls = new LinkedBlockingQueue<>();
    private final Map<String, Deque<Object>> scripts = new ConcurrentHashMap<>();
    private final ReentrantLock scriptLock = new ReentrantLock();
    private final CopyOnWriteArrayList<StreamObserver<?>> hanging = new CopyOnWriteArrayList<>();
    private Server server;
    private String name;

    /** A fake that is not started yet. */
    public FakeController() {
    }

    /** Starts an in-process server for this fake. */
    public FakeController start() throws IOException {
        name = InProcessServerBuilder.generateName();
        server = InProcessServerBuilder.forName(name).directExecutor()
                .addService(ServerInterceptors.intercept(this, captureHeaders())).build().start();
        return this;
    }

    private static ServerInterceptor captureHeaders() {
        return new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                               ServerCallHandler<Q, R> next) {
                return Contexts.interceptCall(Context.current().withValue(HEADERS, headers), call, headers, next);
            }
        };
    }

    /**
     * Starts a Netty server for this fake on a free port of the loopback address.
     */
    FakeController startNetty(ServerCredentials credentials) throws IOException {
        server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), credentials)
                .addService(ServerInterceptors.intercept(this, captureHeaders())).build().start();
        return this;
    }

    /** @return the port of the Netty server */
    int port() {
        return ((InetSocketAddress) server.getListenSockets().getFirst()).getPort();
    }

    /** @return a new channel to the in-process server */
    public ManagedChannel channel() {
        return InProcessChannelBuilder.forName(name).directExecutor().build();
    }

    /** Scripts the replies of {@code rpc}, in order; the last one repeats. */
    public FakeController reply(String rpc, Object... replies) {
        Deque<Object> script = new ArrayDeque<>();
        for (Object r : replies) {
            script.add(r);
        }
        scripts.put(rpc, script);
        return this;
    }

    /**
     * @return the next recorded call, which must be of {@code rpc}
     */
    public Call take(String rpc) throws InterruptedException {
        Call call = calls.poll(10, TimeUnit.SECONDS);
        assertThat(call).as("a call of " + rpc).isNotNull();
        assertThat(call.rpc()).isEqualTo(rpc);
        return call;
    }

    /** @return the request of the next recorded call, which must be of {@code rpc} */
    @SuppressWarnings("unchecked")
    public <T extends Message> T request(String rpc) throws InterruptedException {
        return (T) take(rpc).request();
    }

    /** @return the number of calls recorded and not yet taken */
    public int pendingCalls() {
        return calls.size();
    }

    @Override
    public void close() throws InterruptedException {
        hanging.forEach(o -> {
            try {
                o.onError(Status.CANCELLED.withDescription("fake closed").asRuntimeException());
            } catch (RuntimeException ignored) {
                // the call may already be cancelled by the client's deadline
            }
        });
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
    }

    @SuppressWarnings("unchecked")
    private <T> void handle(String rpc, Message request, StreamObserver<T> observer) {
        calls.add(new Call(rpc, request, HEADERS.get()));
        Object reply;
        Deque<Object> script = scripts.get(rpc);
        if (script == null) {
            reply = Status.UNIMPLEMENTED.withDescription("no script for " + rpc);
        } else {
            scriptLock.lock();
            try {
                reply = script.size() > 1 ? script.poll() : script.peek();
            } finally {
                scriptLock.unlock();
            }
        }
        if (reply == HANG) {
            hanging.add(observer);
        } else if (reply instanceof Status status) {
            observer.onError(status.asRuntimeException());
        } else {
            observer.onNext((T) reply);
            observer.onCompleted();
        }
    }

    // ---- every RPC of the service ----

    @Override
    public void getControllerServerList(ServerRequest r, StreamObserver<ServerResponse> o) {
        handle("getControllerServerList", r, o);
    }

    @Override
    public void createScope(ScopeInfo r, StreamObserver<CreateScopeStatus> o) {
        handle("createScope", r, o);
    }

    @Override
    public void checkScopeExists(ScopeInfo r, StreamObserver<ExistsResponse> o) {
        handle("checkScopeExists", r, o);
    }

    @Override
    public void listScopes(ScopesRequest r, StreamObserver<ScopesResponse> o) {
        handle("listScopes", r, o);
    }

    @Override
    public void deleteScope(ScopeInfo r, StreamObserver<DeleteScopeStatus> o) {
        handle("deleteScope", r, o);
    }

    @Override
    public void deleteScopeRecursive(ScopeInfo r, StreamObserver<DeleteScopeStatus> o) {
        handle("deleteScopeRecursive", r, o);
    }

    @Override
    public void createStream(StreamConfig r, StreamObserver<CreateStreamStatus> o) {
        handle("createStream", r, o);
    }

    @Override
    public void updateStream(StreamConfig r, StreamObserver<UpdateStreamStatus> o) {
        handle("updateStream", r, o);
    }

    @Override
    public void getStreamConfiguration(StreamInfo r, StreamObserver<StreamConfig> o) {
        handle("getStreamConfiguration", r, o);
    }

    @Override
    public void checkStreamExists(StreamInfo r, StreamObserver<ExistsResponse> o) {
        handle("checkStreamExists", r, o);
    }

    @Override
    public void listStreamsInScope(StreamsInScopeRequest r, StreamObserver<StreamsInScopeResponse> o) {
        handle("listStreamsInScope", r, o);
    }

    @Override
    public void listStreamsInScopeForTag(StreamsInScopeWithTagRequest r, StreamObserver<StreamsInScopeResponse> o) {
        handle("listStreamsInScopeForTag", r, o);
    }

    @Override
    public void truncateStream(io.sluice.controller.grpc.v1.StreamCut r, StreamObserver<UpdateStreamStatus> o) {
        handle("truncateStream", r, o);
    }

    @Override
    public void sealStream(StreamInfo r, StreamObserver<UpdateStreamStatus> o) {
        handle("sealStream", r, o);
    }

    @Override
    public void deleteStream(StreamInfo r, StreamObserver<DeleteStreamStatus> o) {
        handle("deleteStream", r, o);
    }

    @Override
    public void getCurrentSegments(StreamInfo r, StreamObserver<SegmentRanges> o) {
        handle("getCurrentSegments", r, o);
    }

    @Override
    public void getEpochSegments(GetEpochSegmentsRequest r, StreamObserver<SegmentRanges> o) {
        handle("getEpochSegments", r, o);
    }

    @Override
    public void getSegments(GetSegmentsRequest r, StreamObserver<SegmentsAtTime> o) {
        handle("getSegments", r, o);
    }

    @Override
    public void getSegmentsImmediatelyFollowing(SegmentId r, StreamObserver<SuccessorResponse> o) {
        handle("getSegmentsImmediatelyFollowing", r, o);
    }

    @Override
    public void getSegmentsBetween(StreamCutRange r, StreamObserver<StreamCutRangeResponse> o) {
        handle("getSegmentsBetween", r, o);
    }

    @Override
    public void getURI(SegmentId r, StreamObserver<NodeUri> o) {
        handle("getURI", r, o);
    }

    @Override
    public void isSegmentValid(SegmentId r, StreamObserver<SegmentValidityResponse> o) {
        handle("isSegmentValid", r, o);
    }

    @Override
    public void isStreamCutValid(io.sluice.controller.grpc.v1.StreamCut r,
                                 StreamObserver<StreamCutValidityResponse> o) {
        handle("isStreamCutValid", r, o);
    }

    @Override
    public void scale(ScaleRequest r, StreamObserver<ScaleResponse> o) {
        handle("scale", r, o);
    }

    @Override
    public void checkScale(ScaleStatusRequest r, StreamObserver<ScaleStatusResponse> o) {
        handle("checkScale", r, o);
    }

    @Override
    public void createTransaction(CreateTxnRequest r, StreamObserver<CreateTxnResponse> o) {
        handle("createTransaction", r, o);
    }

    @Override
    public void pingTransaction(PingTxnRequest r, StreamObserver<PingTxnStatus> o) {
        handle("pingTransaction", r, o);
    }

    @Override
    public void commitTransaction(TxnRequest r, StreamObserver<TxnStatus> o) {
        handle("commitTransaction", r, o);
    }

    @Override
    public void abortTransaction(TxnRequest r, StreamObserver<TxnStatus> o) {
        handle("abortTransaction", r, o);
    }

    @Override
    public void checkTransactionState(TxnRequest r, StreamObserver<io.sluice.controller.grpc.v1.TxnState> o) {
        handle("checkTransactionState", r, o);
    }

    @Override
    public void listCompletedTransactions(ListCompletedTxnRequest r, StreamObserver<ListCompletedTxnResponse> o) {
        handle("listCompletedTransactions", r, o);
    }

    @Override
    public void getDelegationToken(StreamInfo r, StreamObserver<DelegationToken> o) {
        handle("getDelegationToken", r, o);
    }

    @Override
    public void removeWriter(RemoveWriterRequest r, StreamObserver<RemoveWriterResponse> o) {
        handle("removeWriter", r, o);
    }

    @Override
    public void noteTimestampFromWriter(TimestampFromWriter r, StreamObserver<TimestampResponse> o) {
        handle("noteTimestampFromWriter", r, o);
    }

    @Override
    public void createReaderGroup(ReaderGroupConfiguration r, StreamObserver<CreateReaderGroupResponse> o) {
        handle("createReaderGroup", r, o);
    }

    @Override
    public void getReaderGroupConfig(ReaderGroupInfo r, StreamObserver<ReaderGroupConfigResponse> o) {
        handle("getReaderGroupConfig", r, o);
    }

    @Override
    public void updateReaderGroup(ReaderGroupConfiguration r, StreamObserver<UpdateReaderGroupResponse> o) {
        handle("updateReaderGroup", r, o);
    }

    @Override
    public void deleteReaderGroup(ReaderGroupInfo r, StreamObserver<DeleteReaderGroupStatus> o) {
        handle("deleteReaderGroup", r, o);
    }

    @Override
    public void listSubscribers(StreamInfo r, StreamObserver<SubscribersResponse> o) {
        handle("listSubscribers", r, o);
    }

    @Override
    public void updateSubscriberStreamCut(SubscriberStreamCut r, StreamObserver<UpdateSubscriberStatus> o) {
        handle("updateSubscriberStreamCut", r, o);
    }

    @Override
    public void createKeyValueTable(KeyValueTableConfig r, StreamObserver<CreateKeyValueTableStatus> o) {
        handle("createKeyValueTable", r, o);
    }

    @Override
    public void getCurrentSegmentsKeyValueTable(KeyValueTableInfo r, StreamObserver<SegmentRanges> o) {
        handle("getCurrentSegmentsKeyValueTable", r, o);
    }

    @Override
    public void listKeyValueTablesInScope(KVTablesInScopeRequest r, StreamObserver<KVTablesInScopeResponse> o) {
        handle("listKeyValueTablesInScope", r, o);
    }

    @Override
    public void getKeyValueTableConfiguration(KeyValueTableInfo r, StreamObserver<KeyValueTableConfigResponse> o) {
        handle("getKeyValueTableConfiguration", r, o);
    }

    @Override
    public void deleteKeyValueTable(KeyValueTableInfo r, StreamObserver<DeleteKVTableStatus> o) {
        handle("deleteKeyValueTable", r, o);
    }
}
