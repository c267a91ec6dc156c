package io.sluice.server.controller;

import static io.sluice.server.controller.Authorizer.resource;
import static io.sluice.server.controller.Authorizer.streamOrGroup;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sluice.controller.grpc.v1.GetEpochSegmentsRequest;
import io.sluice.controller.grpc.v1.GetSegmentsRequest;
import io.sluice.controller.grpc.v1.ScaleRequest;
import io.sluice.controller.grpc.v1.ScaleResponse;
import io.sluice.controller.grpc.v1.ScaleStatusRequest;
import io.sluice.controller.grpc.v1.ScaleStatusResponse;
import io.sluice.controller.grpc.v1.SegmentId;
import io.sluice.controller.grpc.v1.SegmentRange;
import io.sluice.controller.grpc.v1.SegmentRanges;
import io.sluice.controller.grpc.v1.SegmentValidityResponse;
import io.sluice.controller.grpc.v1.SegmentsAtTime;
import io.sluice.controller.grpc.v1.StreamCut;
import io.sluice.controller.grpc.v1.StreamCutRange;
import io.sluice.controller.grpc.v1.StreamCutRangeResponse;
import io.sluice.controller.grpc.v1.StreamCutValidityResponse;
import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.controller.grpc.v1.SuccessorResponse;
import io.sluice.server.auth.AccessLevel;
import io.sluice.server.controller.ControllerEvent.KeyRange;

/**
 * The controller's segment and scaling calls: a stream's segments (with delegation tokens where Pravega gives them),
 * successors, ranges between stream cuts, validity checks, and scale. Each checks the caller's rights first.
 */
final class SegmentScaleHandlers {
    private final ControllerCore core;
    private final Authorizer auth;
    private final TokenIssuer tokens;

    SegmentScaleHandlers(ServiceContext ctx) {
        this.core = ctx.core();
        this.auth = ctx.auth();
        this.tokens = ctx.tokens();
    }

    SegmentRanges getCurrentSegments(StreamInfo request) {
        boolean wantsToken = request.getAccessOperation() != StreamInfo.AccessOperation.NONE;
        AccessLevel level = wantsToken ? AccessLevel.READ_UPDATE : AccessLevel.READ;
        auth.authorize(streamOrGroup(request), level);
        SegmentRanges.Builder b = SegmentRanges.newBuilder()
                .addAllSegmentRanges(core.currentSegments(request.getScope(), request.getStream()));
        if (wantsToken) {
            b.setDelegationToken(tokens.token(request.getScope(), request.getStream(), AccessLevel.READ_UPDATE));
        }
        return b.build();
    }

    SegmentRanges getEpochSegments(GetEpochSegmentsRequest request) {
        StreamInfo info = request.getStreamInfo();
        auth.authorize(resource(info), AccessLevel.READ_UPDATE);
        return SegmentRanges.newBuilder()
                .addAllSegmentRanges(core.epochSegments(info.getScope(), info.getStream(), request.getEpoch()))
                .setDelegationToken(tokens.token(info.getScope(), info.getStream(), AccessLevel.READ_UPDATE)).build();
    }

    /** Segments at the head of the stream, whatever the timestamp (Pravega 0.13 ignores it too). */
    SegmentsAtTime getSegments(GetSegmentsRequest request) {
        StreamInfo info = request.getStreamInfo();
        boolean wantsToken = info.getAccessOperation() != StreamInfo.AccessOperation.NONE;
        auth.authorize(resource(info), wantsToken ? AccessLevel.READ_UPDATE : AccessLevel.READ);
        SegmentsAtTime.Builder b = SegmentsAtTime.newBuilder();
        for (Map.Entry<Long, Long> e : core.head(info.getScope(), info.getStream()).entrySet()) {
            b.addSegments(SegmentsAtTime.SegmentLocation.newBuilder()
                    .setSegmentId(Protos.segmentId(info.getScope(), info.getStream(), e.getKey()))
                    .setOffset(e.getValue()));
        }
        if (wantsToken) {
            b.setDelegationToken(tokens.token(info.getScope(), info.getStream(), AccessLevel.READ_UPDATE));
        }
        return b.build();
    }

    /** {@code getSegmentsImmediatelyFollowing} and its deprecated, misspelled twin. */
    SuccessorResponse successors(SegmentId request) {
        StreamInfo info = request.getStreamInfo();
        auth.authorize(resource(info), AccessLevel.READ);
        SuccessorResponse.Builder b = SuccessorResponse.newBuilder();
        for (Map.Entry<SegmentRange, List<Long>> e
                : core.successors(info.getScope(), info.getStream(), request.getSegmentId()).entrySet()) {
            b.addSegments(SuccessorResponse.SegmentEntry.newBuilder().setSegment(e.getKey()).addAllValue(e.getValue()));
        }
        return b.build();
    }

    StreamCutRangeResponse getSegmentsBetween(StreamCutRange request) {
        StreamInfo info = request.getStreamInfo();
        auth.authorize(resource(info), AccessLevel.READ);
        StreamCutRangeResponse.Builder b = StreamCutRangeResponse.newBuilder();
        for (long id : core.segmentsBetween(info.getScope(), info.getStream(), Map.copyOf(request.getFromMap()),
                Map.copyOf(request.getToMap()))) {
            b.addSegments(Protos.segmentId(info.getScope(), info.getStream(), id));
        }
        return b.setDelegationToken(tokens.token(info.getScope(), info.getStream(), AccessLevel.READ)).build();
    }

    SegmentValidityResponse isSegmentValid(SegmentId request) {
        StreamInfo info = request.getStreamInfo();
        auth.authorize(resource(info), AccessLevel.READ);
        return SegmentValidityResponse.newBuilder().setResponse(core.isSegmentValid(info.getScope(),
                info.getStream(), request.getSegmentId())).build();
    }

    StreamCutValidityResponse isStreamCutValid(StreamCut request) {
        StreamInfo info = request.getStreamInfo();
        auth.authorize(resource(info), AccessLevel.READ);
        return StreamCutValidityResponse.newBuilder().setResponse(core.isStreamCutValid(info.getScope(),
                info.getStream(), Map.copyOf(request.getCutMap()))).build();
    }

    ScaleResponse scale(ScaleRequest request) {
        StreamInfo info = request.getStreamInfo();
        auth.authorize(resource(info), AccessLevel.READ_UPDATE);
        List<KeyRange> ranges = new ArrayList<>();
        for (ScaleRequest.KeyRangeEntry r : request.getNewKeyRangesList()) {
            ranges.add(new KeyRange(r.getStart(), r.getEnd()));
        }
        return core.scale(info.getScope(), info.getStream(), request.getSealedSegmentsList(), ranges,
                request.getScaleTimestamp());
    }

    ScaleStatusResponse checkScale(ScaleStatusRequest request) {
        StreamInfo info = request.getStreamInfo();
        auth.authorize(resource(info), AccessLevel.READ);
        return ScaleStatusResponse.newBuilder()
                .setStatus(core.checkScale(info.getScope(), info.getStream(), request.getEpoch())).build();
    }
}
