package io.sluice.server.controller;

import static io.sluice.server.controller.Authorizer.resource;

import java.util.Map;
import java.util.UUID;

import io.sluice.controller.grpc.v1.CreateTxnRequest;
import io.sluice.controller.grpc.v1.CreateTxnResponse;
import io.sluice.controller.grpc.v1.ListCompletedTxnRequest;
import io.sluice.controller.grpc.v1.ListCompletedTxnResponse;
import io.sluice.controller.grpc.v1.PingTxnRequest;
import io.sluice.controller.grpc.v1.PingTxnStatus;
import io.sluice.controller.grpc.v1.RemoveWriterRequest;
import io.sluice.controller.grpc.v1.RemoveWriterResponse;
import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.controller.grpc.v1.TimestampFromWriter;
import io.sluice.controller.grpc.v1.TimestampResponse;
import io.sluice.controller.grpc.v1.TxnId;
import io.sluice.controller.grpc.v1.TxnRequest;
import io.sluice.controller.grpc.v1.TxnResponse;
import io.sluice.controller.grpc.v1.TxnState;
import io.sluice.controller.grpc.v1.TxnStatus;
import io.sluice.server.auth.AccessLevel;

/**
 * The controller's transaction calls, and the writers' marks for watermarks ({@code noteTimestampFromWriter},
 * {@code removeWriter}). Each checks the caller's rights on the stream first.
 */
final class TransactionHandlers {
    private final ControllerCore core;
    private final Authorizer auth;
    private final TokenIssuer tokens;

    TransactionHandlers(ServiceContext ctx) {
        this.core = ctx.core();
        this.auth = ctx.auth();
        this.tokens = ctx.tokens();
    }

    CreateTxnResponse createTransaction(CreateTxnRequest request) {
        StreamInfo info = request.getStreamInfo();
        auth.authorize(resource(info), AccessLevel.READ_UPDATE);
        ControllerCore.CreatedTxn txn = core.createTransaction(info.getScope(), info.getStream(), request.getLease());
        return CreateTxnResponse.newBuilder().setTxnId(txnId(txn.id())).addAllActiveSegments(txn.segments())
                .setDelegationToken(tokens.token(info.getScope(), info.getStream(), AccessLevel.READ_UPDATE)).build();
    }

    PingTxnStatus pingTransaction(PingTxnRequest request) {
        StreamInfo info = request.getStreamInfo();
        auth.authorize(resource(info), AccessLevel.READ_UPDATE);
        return PingTxnStatus.newBuilder().setStatus(core.pingTransaction(info.getScope(), info.getStream(),
                uuid(request.getTxnId()), request.getLease())).build();
    }

    TxnStatus commitTransaction(TxnRequest request) {
        StreamInfo info = request.getStreamInfo();
        auth.authorize(resource(info), AccessLevel.READ_UPDATE);
        return TxnStatus.newBuilder().setStatus(core.commitTransaction(info.getScope(), info.getStream(),
                uuid(request.getTxnId()), request.getWriterId(), request.getTimestamp())).build();
    }

    TxnStatus abortTransaction(TxnRequest request) {
        StreamInfo info = request.getStreamInfo();
        auth.authorize(resource(info), AccessLevel.READ_UPDATE);
        return TxnStatus.newBuilder().setStatus(core.abortTransaction(info.getScope(), info.getStream(),
                uuid(request.getTxnId()))).build();
    }

    TxnState checkTransactionState(TxnRequest request) {
        StreamInfo info = request.getStreamInfo();
        auth.authorize(resource(info), AccessLevel.READ);
        return TxnState.newBuilder().setState(core.transactionState(info.getScope(), info.getStream(),
                uuid(request.getTxnId()))).build();
    }

    ListCompletedTxnResponse listCompletedTransactions(ListCompletedTxnRequest request) {
        StreamInfo info = request.getStreamInfo();
        auth.authorize(resource(info), AccessLevel.READ);
        ListCompletedTxnResponse.Builder b = ListCompletedTxnResponse.newBuilder();
        core.completedTransactions(info.getScope(), info.getStream()).forEach((id, committed) ->
                b.addResponse(TxnResponse.newBuilder().setTxnId(txnId(id)).setStatus(committed
                        ? TxnResponse.Status.COMMITTED : TxnResponse.Status.ABORTED)));
        return b.build();
    }

    TimestampResponse noteTimestampFromWriter(TimestampFromWriter request) {
        StreamInfo info = request.getPosition().getStreamInfo();
        auth.authorize(resource(info), AccessLevel.READ_UPDATE);
        return TimestampResponse.newBuilder().setResult(core.noteTimestampFromWriter(info.getScope(),
                info.getStream(), request.getWriter(), request.getTimestamp(),
                Map.copyOf(request.getPosition().getCutMap()))).build();
    }

    RemoveWriterResponse removeWriter(RemoveWriterRequest request) {
        StreamInfo info = request.getStream();
        auth.authorize(resource(info), AccessLevel.READ_UPDATE);
        return RemoveWriterResponse.newBuilder()
                .setResult(core.removeWriter(info.getScope(), info.getStream(), request.getWriter())).build();
    }

    private static TxnId txnId(UUID id) {
        return TxnId.newBuilder().setHighBits(id.getMostSignificantBits()).setLowBits(id.getLeastSignificantBits())
                .build();
    }

    private static UUID uuid(TxnId id) {
        return new UUID(id.getHighBits(), id.getLowBits());
    }
}
