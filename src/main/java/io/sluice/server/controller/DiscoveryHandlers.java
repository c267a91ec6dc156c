package io.sluice.server.controller;

import static io.sluice.server.controller.Authorizer.streamOrGroup;

import io.sluice.common.Endpoint;
import io.sluice.controller.grpc.v1.BucketIds;
import io.sluice.controller.grpc.v1.ControllerToBucketMappingResponse;
import io.sluice.controller.grpc.v1.DelegationToken;
import io.sluice.controller.grpc.v1.NodeUri;
import io.sluice.controller.grpc.v1.SegmentId;
import io.sluice.controller.grpc.v1.ServerResponse;
import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.server.auth.AccessLevel;

/**
 * The controller's calls that tell clients where things are ({@code getControllerServerList},
 * {@code getControllerToBucketMapping}, {@code getURI}: the endpoints of {@link ControllerSettings}) and
 * {@code getDelegationToken}.
 */
final class DiscoveryHandlers {
    private final ControllerSettings settings;
    private final Authorizer auth;
    private final TokenIssuer tokens;

    DiscoveryHandlers(ServiceContext ctx) {
        this.settings = ctx.settings();
        this.auth = ctx.auth();
        this.tokens = ctx.tokens();
    }

    ServerResponse getControllerServerList() {
        return ServerResponse.newBuilder().addNodeURI(nodeUri(settings.controller())).build();
    }

    ControllerToBucketMappingResponse getControllerToBucketMapping() {
        auth.authorize(AuthResource.cluster(), AccessLevel.READ_UPDATE);
        return ControllerToBucketMappingResponse.newBuilder().putMapping(settings.controller().toString(),
                BucketIds.newBuilder().addId(0).build()).build();
    }

    /** The segment store endpoint, for any segment name; no existence check (as in Pravega). */
    NodeUri getURI(SegmentId request) {
        auth.authorize(streamOrGroup(request.getStreamInfo()), AccessLevel.READ);
        return nodeUri(settings.segmentStore());
    }

    DelegationToken getDelegationToken(StreamInfo request) {
        return DelegationToken.newBuilder().setDelegationToken(tokens.delegationToken(request)).build();
    }

    private static NodeUri nodeUri(Endpoint endpoint) {
        return NodeUri.newBuilder().setEndpoint(endpoint.host()).setPort(endpoint.port()).build();
    }
}
