package io.sluice.server.controller;

import static io.sluice.server.controller.Authorizer.READER_GROUP_CHANGE;
import static io.sluice.server.controller.Authorizer.resource;

import java.util.Map;

import io.sluice.controller.grpc.v1.CreateReaderGroupResponse;
import io.sluice.controller.grpc.v1.DeleteReaderGroupStatus;
import io.sluice.controller.grpc.v1.ReaderGroupConfigResponse;
import io.sluice.controller.grpc.v1.ReaderGroupConfiguration;
import io.sluice.controller.grpc.v1.ReaderGroupInfo;
import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.controller.grpc.v1.SubscriberStreamCut;
import io.sluice.controller.grpc.v1.SubscribersResponse;
import io.sluice.controller.grpc.v1.UpdateReaderGroupResponse;
import io.sluice.controller.grpc.v1.UpdateSubscriberStatus;
import io.sluice.server.auth.AccessLevel;

/**
 * The controller's reader group calls (rights checked on the group's scope) and the subscriber calls of
 * consumption-based retention (rights checked on the stream).
 */
final class ReaderGroupHandlers {
    private final ControllerCore core;
    private final Authorizer auth;

    ReaderGroupHandlers(ServiceContext ctx) {
        this.core = ctx.core();
        this.auth = ctx.auth();
    }

    CreateReaderGroupResponse createReaderGroup(ReaderGroupConfiguration request) {
        auth.authorize(AuthResource.scope(request.getScope()), READER_GROUP_CHANGE);
        return core.createReaderGroup(request);
    }

    ReaderGroupConfigResponse getReaderGroupConfig(ReaderGroupInfo request) {
        auth.authorize(AuthResource.scope(request.getScope()), AccessLevel.READ);
        return core.readerGroupConfig(request.getScope(), request.getReaderGroup());
    }

    UpdateReaderGroupResponse updateReaderGroup(ReaderGroupConfiguration request) {
        auth.authorize(AuthResource.scope(request.getScope()), READER_GROUP_CHANGE);
        return core.updateReaderGroup(request);
    }

    DeleteReaderGroupStatus deleteReaderGroup(ReaderGroupInfo request) {
        auth.authorize(AuthResource.scope(request.getScope()), READER_GROUP_CHANGE);
        return DeleteReaderGroupStatus.newBuilder().setStatus(core.deleteReaderGroup(request.getScope(),
                request.getReaderGroup(), request.getReaderGroupId())).build();
    }

    SubscribersResponse listSubscribers(StreamInfo request) {
        auth.authorize(resource(request), AccessLevel.READ_UPDATE);
        return core.listSubscribers(request.getScope(), request.getStream());
    }

    UpdateSubscriberStatus updateSubscriberStreamCut(SubscriberStreamCut request) {
        StreamInfo info = request.getStreamCut().getStreamInfo();
        auth.authorize(resource(info), AccessLevel.READ_UPDATE);
        return UpdateSubscriberStatus.newBuilder().setStatus(core.updateSubscriberStreamCut(info.getScope(),
                info.getStream(), request.getSubscriber(), request.getReaderGroupId(), request.getGeneration(),
                Map.copyOf(request.getStreamCut().getCutMap()))).build();
    }
}
