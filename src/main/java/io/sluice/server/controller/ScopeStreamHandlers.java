package io.sluice.server.controller;

import static io.sluice.server.controller.Authorizer.levelToWrite;
import static io.sluice.server.controller.Authorizer.resource;
import static io.sluice.server.controller.Authorizer.streamOrGroup;

import java.util.Map;

import io.sluice.controller.grpc.v1.ContinuationToken;
import io.sluice.controller.grpc.v1.CreateScopeStatus;
import io.sluice.controller.grpc.v1.CreateStreamStatus;
import io.sluice.controller.grpc.v1.DeleteScopeStatus;
import io.sluice.controller.grpc.v1.DeleteStreamStatus;
import io.sluice.controller.grpc.v1.ExistsResponse;
import io.sluice.controller.grpc.v1.ScopeInfo;
import io.sluice.controller.grpc.v1.ScopesRequest;
import io.sluice.controller.grpc.v1.ScopesResponse;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.controller.grpc.v1.StreamCut;
import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.controller.grpc.v1.StreamsInScopeRequest;
import io.sluice.controller.grpc.v1.StreamsInScopeResponse;
import io.sluice.controller.grpc.v1.StreamsInScopeWithTagRequest;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;
import io.sluice.server.auth.AccessLevel;

/** The controller's scope and stream calls: each checks the caller's rights, then runs the operation. */
final class ScopeStreamHandlers {
    private final ControllerCore core;
    private final Authorizer auth;

    ScopeStreamHandlers(ServiceContext ctx) {
        this.core = ctx.core();
        this.auth = ctx.auth();
    }

    CreateScopeStatus createScope(ScopeInfo request) {
        auth.authorize(AuthResource.cluster(), AccessLevel.READ_UPDATE);
        return CreateScopeStatus.newBuilder().setStatus(core.createScope(request.getScope())).build();
    }

    ExistsResponse checkScopeExists(ScopeInfo request) {
        auth.authorize(AuthResource.scope(request.getScope()), AccessLevel.READ);
        return ExistsResponse.newBuilder().setExists(core.scopeExists(request.getScope())).build();
    }

    ScopesResponse listScopes(ScopesRequest request) {
        auth.authorize(AuthResource.cluster(), AccessLevel.READ);
        ControllerCore.Page page = core.listScopes(request.getContinuationToken().getToken(),
                auth.readable(AuthResource::scope));
        return ScopesResponse.newBuilder().addAllScopes(page.names())
                .setContinuationToken(ContinuationToken.newBuilder().setToken(page.token())).build();
    }

    DeleteScopeStatus deleteScope(ScopeInfo request) {
        auth.authorize(AuthResource.cluster(), AccessLevel.READ_UPDATE);
        return DeleteScopeStatus.newBuilder().setStatus(core.deleteScope(request.getScope())).build();
    }

    DeleteScopeStatus deleteScopeRecursive(ScopeInfo request) {
        auth.authorize(AuthResource.cluster(), AccessLevel.READ_UPDATE);
        return DeleteScopeStatus.newBuilder().setStatus(core.deleteScopeRecursive(request.getScope())).build();
    }

    CreateStreamStatus createStream(StreamConfig request) {
        StreamInfo info = request.getStreamInfo();
        auth.authorize(AuthResource.scope(info.getScope()), levelToWrite(info.getStream()));
        return CreateStreamStatus.newBuilder()
                .setStatus(core.createStream(info.getScope(), info.getStream(), request)).build();
    }

    UpdateStreamStatus updateStream(StreamConfig request) {
        StreamInfo info = request.getStreamInfo();
        auth.authorize(streamOrGroup(info), AccessLevel.READ_UPDATE);
        return UpdateStreamStatus.newBuilder()
                .setStatus(core.updateStream(info.getScope(), info.getStream(), request)).build();
    }

    StreamConfig getStreamConfiguration(StreamInfo request) {
        auth.authorize(resource(request), AccessLevel.READ);
        return core.streamConfig(request.getScope(), request.getStream());
    }

    ExistsResponse checkStreamExists(StreamInfo request) {
        auth.authorize(resource(request), AccessLevel.READ);
        return ExistsResponse.newBuilder()
                .setExists(core.streamExists(request.getScope(), request.getStream())).build();
    }

    StreamsInScopeResponse listStreamsInScope(StreamsInScopeRequest request) {
        return listStreams(request.getScope().getScope(), request.getContinuationToken().getToken(), null);
    }

    StreamsInScopeResponse listStreamsInScopeForTag(StreamsInScopeWithTagRequest request) {
        if (request.getTag().isEmpty()) {
            throw Protos.invalid("tag must not be empty");
        }
        return listStreams(request.getScope().getScope(), request.getContinuationToken().getToken(),
                request.getTag());
    }

    private StreamsInScopeResponse listStreams(String scope, String token, String tag) {
        auth.authorize(AuthResource.scope(scope), AccessLevel.READ);
        ControllerCore.Page page = core.listStreams(scope, token, tag,
                auth.readable(stream -> AuthResource.stream(scope, stream)));
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

    UpdateStreamStatus truncateStream(StreamCut request) {
        StreamInfo info = request.getStreamInfo();
        auth.authorize(resource(info), AccessLevel.READ_UPDATE);
        return UpdateStreamStatus.newBuilder().setStatus(core.truncateStream(info.getScope(), info.getStream(),
                Map.copyOf(request.getCutMap()))).build();
    }

    UpdateStreamStatus sealStream(StreamInfo request) {
        auth.authorize(resource(request), AccessLevel.READ_UPDATE);
        return UpdateStreamStatus.newBuilder()
                .setStatus(core.sealStream(request.getScope(), request.getStream())).build();
    }

    DeleteStreamStatus deleteStream(StreamInfo request) {
        auth.authorize(resource(request), AccessLevel.READ_UPDATE);
        return DeleteStreamStatus.newBuilder()
                .setStatus(core.deleteStream(request.getScope(), request.getStream())).build();
    }
}
