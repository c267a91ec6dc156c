package io.sluice.controller;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Supplier;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sluice.auth.AccessOperation;
import io.sluice.common.Endpoint;
import io.sluice.controller.grpc.v1.ContinuationToken;
import io.sluice.controller.grpc.v1.CreateKeyValueTableStatus;
import io.sluice.controller.grpc.v1.CreateReaderGroupResponse;
import io.sluice.controller.grpc.v1.CreateScopeStatus;
import io.sluice.controller.grpc.v1.CreateStreamStatus;
import io.sluice.controller.grpc.v1.CreateTxnResponse;
import io.sluice.controller.grpc.v1.DeleteKVTableStatus;
import io.sluice.controller.grpc.v1.DeleteReaderGroupStatus;
import io.sluice.controller.grpc.v1.DeleteScopeStatus;
import io.sluice.controller.grpc.v1.DeleteStreamStatus;
import io.sluice.controller.grpc.v1.KVTablesInScopeResponse;
import io.sluice.controller.grpc.v1.KeyValueTableConfig;
import io.sluice.controller.grpc.v1.KeyValueTableConfigResponse;
import io.sluice.controller.grpc.v1.KeyValueTableInfo;
import io.sluice.controller.grpc.v1.ListCompletedTxnResponse;
import io.sluice.controller.grpc.v1.NodeUri;
import io.sluice.controller.grpc.v1.PingTxnStatus;
import io.sluice.controller.grpc.v1.ReaderGroupConfigResponse;
import io.sluice.controller.grpc.v1.ReaderGroupConfiguration;
import io.sluice.controller.grpc.v1.ReaderGroupInfo;
import io.sluice.controller.grpc.v1.RemoveWriterResponse;
import io.sluice.controller.grpc.v1.ScaleRequest;
import io.sluice.controller.grpc.v1.ScaleResponse;
import io.sluice.controller.grpc.v1.ScaleStatusResponse;
import io.sluice.controller.grpc.v1.ScopeInfo;
import io.sluice.controller.grpc.v1.SegmentId;
import io.sluice.controller.grpc.v1.SegmentRanges;
import io.sluice.controller.grpc.v1.SegmentsAtTime;
import io.sluice.controller.grpc.v1.ServerResponse;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.controller.grpc.v1.StreamCutRange;
import io.sluice.controller.grpc.v1.StreamCutRangeResponse;
import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.controller.grpc.v1.StreamsInScopeResponse;
import io.sluice.controller.grpc.v1.SubscribersResponse;
import io.sluice.controller.grpc.v1.SuccessorResponse;
import io.sluice.controller.grpc.v1.Tags;
import io.sluice.controller.grpc.v1.TimestampResponse;
import io.sluice.controller.grpc.v1.TxnId;
import io.sluice.controller.grpc.v1.TxnStatus;
import io.sluice.controller.grpc.v1.UpdateReaderGroupResponse;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;
import io.sluice.controller.grpc.v1.UpdateSubscriberStatus;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.errors.AuthenticationException;
import io.sluice.errors.AuthorizationException;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.ControllerFailureException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.IncompatibleServerException;
import io.sluice.errors.NoSuchScopeException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.errors.PreconditionFailedException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.ServiceUnavailableException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.errors.TransactionFailedException;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.RetentionPolicy;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.StreamCut;
import io.sluice.stream.TransactionInfo;
import io.sluice.stream.TxnState;
import io.sluice.table.KeyValueTableConfiguration;

/**
 * The one place where controller-API protobuf messages and Sluice values meet, in both directions, together with
 * what each RPC's status enum means (following Pravega's Java client, {@code ControllerImpl}/{@code ModelHelper})
 * and how gRPC errors become Sluice exceptions. Stateless and thread-safe; the embedded controller can use the same
 * value mappings from the other side.
 *
 * <p>Naming: {@code toProto} (overloaded) and a few {@code xxxProto}/message-named methods build messages; methods
 * named after the Sluice value they return read messages. Where a
 * protobuf class and a Sluice class share a simple name ({@code StreamCut}, {@code ScalingPolicy},
 * {@code RetentionPolicy}, {@code TxnState}), the protobuf one is written fully qualified.
 *
 * <p>Decoding a value that breaks a Sluice invariant (a negative segment number, an empty reader group) throws
 * {@link ProtocolException}: the peer sent something the API does not allow.
 */
public final class ProtoMapper {

    /** The timestamp Pravega's Java client sends on commit when the writer does not note time. */
    public static final long NO_TIMESTAMP = Long.MIN_VALUE;

    private ProtoMapper() {
    }

    // =================================================================================================
    // gRPC errors
    // =================================================================================================

    /** @return whether the failure's causes hold an I/O failure of the connection (gRPC's "channel closed") */
    static boolean closedUnderTheCall(StatusRuntimeException e) {
        int depth = 0;
        for (Throwable t = e.getCause(); t != null && depth < 32; t = t.getCause(), depth++) {
            if (t instanceof IOException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Maps a failed call to Sluice's hierarchy. Retriable: {@code UNAVAILABLE} ({@link ConnectionFailedException}),
     * {@code DEADLINE_EXCEEDED} ({@link DeadlineExceededException}), and — as Pravega's Java client retries them —
     * {@code RESOURCE_EXHAUSTED}, {@code ABORTED}, {@code FAILED_PRECONDITION}, {@code INTERNAL}, {@code UNKNOWN},
     * {@code DATA_LOSS} ({@link ServiceUnavailableException}; the Pravega controller reports its store's write
     * conflicts and connection problems this way) — except gRPC's {@code UNKNOWN} "channel closed", a connection
     * lost under the call, which is a {@link ConnectionFailedException} like {@code UNAVAILABLE}. Terminal:
     * {@code UNAUTHENTICATED}, {@code PERMISSION_DENIED}, {@code NOT_FOUND} (via {@code notFound}), {@code ALREADY_EXISTS}, {@code INVALID_ARGUMENT},
     * {@code OUT_OF_RANGE}, {@code UNIMPLEMENTED}, and {@code CANCELLED} (unlike Pravega: with a blocking client a
     * cancellation comes from this side — an interrupt or a close — so retrying it would be wrong).
     *
     * @param e the failure
     * @param what the operation and its object, e.g. {@code "createStream examples/orders"}
     * @param notFound what {@code NOT_FOUND} means for this call; null for a generic exception
     * @return the exception to throw
     */
    public static RuntimeException toException(StatusRuntimeException e, String what,
                                               Supplier<? extends RuntimeException> notFound) {
        Status status = e.getStatus();
        String detail = status.getDescription() == null ? status.getCode().name()
                : status.getCode() + ": " + status.getDescription();
        String message = what + " failed: " + detail;
        if (status.getCode() == Status.Code.UNKNOWN && closedUnderTheCall(e)) {
            // gRPC's "channel closed": the connection went down under the call (a controller that died or
            // restarted), reported as UNKNOWN with the I/O failure as its cause; retried as an unreachable controller
            return new ConnectionFailedException(what + ": the connection to the controller was lost: " + detail, e);
        }
        return switch (status.getCode()) {
            case UNAVAILABLE -> new ConnectionFailedException(what + ": controller unavailable: " + detail, e);
            case DEADLINE_EXCEEDED -> new DeadlineExceededException(what + " did not complete before its deadline: "
                    + detail, e);
            case RESOURCE_EXHAUSTED, ABORTED, FAILED_PRECONDITION, INTERNAL, UNKNOWN, DATA_LOSS ->
                    new ServiceUnavailableException(message, e);
            case UNAUTHENTICATED -> new AuthenticationException(what + ": the controller did not accept the "
                    + "credentials: " + detail, e);
            case PERMISSION_DENIED -> new AuthorizationException(what + ": not allowed: " + detail, e);
            case NOT_FOUND -> {
                if (notFound == null) {
                    yield new SluiceException(what + ": not found: " + detail, e);
                }
                RuntimeException mapped = notFound.get();
                if (mapped.getCause() == null) {
                    mapped.initCause(e);
                }
                yield mapped;
            }
            case ALREADY_EXISTS -> new AlreadyExistsException(message, e);
            case INVALID_ARGUMENT, OUT_OF_RANGE -> new IllegalArgumentException(message, e);
            case UNIMPLEMENTED -> new IncompatibleServerException(what + ": the controller does not implement this "
                    + "call: " + detail, e);
            case CANCELLED -> {
                if (e.getCause() instanceof InterruptedException || Thread.currentThread().isInterrupted()) {
                    Thread.currentThread().interrupt();
                    yield new StreamingInterruptedException(what + " was interrupted", e);
                }
                yield new SluiceException(what + " was cancelled: " + detail, e);
            }
            case OK -> new ProtocolException(what + ": call failed with status OK", e);
        };
    }

    // =================================================================================================
    // Names and ids
    // =================================================================================================

    /** @return the scope message */
    public static ScopeInfo scopeInfo(String scope) {
        return ScopeInfo.newBuilder().setScope(scope).build();
    }

    /** @return the stream message, access operation unspecified */
    public static StreamInfo streamInfo(ScopedStream stream) {
        return StreamInfo.newBuilder().setScope(stream.scope()).setStream(stream.name()).build();
    }

    /** @return the stream message asking for {@code operation} */
    public static StreamInfo streamInfo(ScopedStream stream, AccessOperation operation) {
        return StreamInfo.newBuilder().setScope(stream.scope()).setStream(stream.name())
                .setAccessOperation(StreamInfo.AccessOperation.valueOf(operation.name())).build();
    }

    /** @return the stream of a stream message */
    public static ScopedStream scopedStream(StreamInfo info) {
        return decode("stream", () -> new ScopedStream(info.getScope(), info.getStream()));
    }

    /** @return the access operation of a stream message */
    public static AccessOperation accessOperation(StreamInfo info) {
        return info.getAccessOperation() == StreamInfo.AccessOperation.UNRECOGNIZED ? AccessOperation.UNSPECIFIED
                : AccessOperation.valueOf(info.getAccessOperation().name());
    }

    /** @return the segment-id message */
    public static SegmentId segmentId(Segment segment) {
        return SegmentId.newBuilder()
                .setStreamInfo(StreamInfo.newBuilder().setScope(segment.scope()).setStream(segment.stream()))
                .setSegmentId(segment.segmentId()).build();
    }

    /** @return the segment a segment-id message names */
    public static Segment segment(SegmentId id) {
        return decode("segment id", () -> new Segment(id.getStreamInfo().getScope(), id.getStreamInfo().getStream(),
                id.getSegmentId()));
    }

    /** @return the TxnId message of a transaction id */
    public static TxnId txnId(UUID id) {
        return TxnId.newBuilder().setHighBits(id.getMostSignificantBits()).setLowBits(id.getLeastSignificantBits())
                .build();
    }

    /** @return the transaction id of a TxnId message */
    public static UUID uuid(TxnId id) {
        return new UUID(id.getHighBits(), id.getLowBits());
    }

    /** @return the NodeUri message of an endpoint */
    public static NodeUri nodeUri(Endpoint endpoint) {
        return NodeUri.newBuilder().setEndpoint(endpoint.host()).setPort(endpoint.port()).build();
    }

    /** @return the endpoint of a NodeUri message */
    public static Endpoint endpoint(NodeUri uri) {
        return decode("endpoint", () -> new Endpoint(uri.getEndpoint(), uri.getPort()));
    }

    /** @return the endpoints of a controller list */
    public static List<Endpoint> endpoints(ServerResponse response) {
        return response.getNodeURIList().stream().map(ProtoMapper::endpoint).toList();
    }

    /** @return the key-value table message */
    public static KeyValueTableInfo keyValueTableInfo(String scope, String table) {
        return KeyValueTableInfo.newBuilder().setScope(scope).setKvtName(table).build();
    }

    /** @return the reader group message */
    public static ReaderGroupInfo readerGroupInfo(String scope, String group, String readerGroupId, long generation) {
        return ReaderGroupInfo.newBuilder().setScope(scope).setReaderGroup(group).setReaderGroupId(readerGroupId)
                .setGeneration(generation).build();
    }

    /** @return a continuation token message */
    public static ContinuationToken token(String token) {
        return ContinuationToken.newBuilder().setToken(token).build();
    }

    // =================================================================================================
    // Segments, key ranges, stream cuts
    // =================================================================================================

    /** @return the SegmentWithRange message */
    public static io.sluice.controller.grpc.v1.SegmentRange toProto(SegmentWithRange range) {
        return io.sluice.controller.grpc.v1.SegmentRange.newBuilder().setSegmentId(segmentId(range.segment()))
                .setMinKey(range.low()).setMaxKey(range.high()).build();
    }

    /** @return the segment with key range of a SegmentWithRange message */
    public static SegmentWithRange segmentRange(io.sluice.controller.grpc.v1.SegmentRange range) {
        Segment segment = segment(range.getSegmentId());
        return decode("segment range", () -> new SegmentWithRange(segment, range.getMinKey(), range.getMaxKey()));
    }

    /** @return the SegmentRanges message */
    public static SegmentRanges toProto(StreamSegments segments) {
        SegmentRanges.Builder b = SegmentRanges.newBuilder().setDelegationToken(segments.delegationToken());
        segments.ranges().forEach(r -> b.addSegmentRanges(toProto(r)));
        return b.build();
    }

    /** @return the segments of a SegmentRanges message */
    public static StreamSegments streamSegments(SegmentRanges ranges) {
        return streamSegments(ranges.getSegmentRangesList(), ranges.getDelegationToken());
    }

    private static StreamSegments streamSegments(List<io.sluice.controller.grpc.v1.SegmentRange> ranges,
                                                 String token) {
        List<SegmentWithRange> out = new ArrayList<>(ranges.size());
        SegmentWithRange first = null;
        for (io.sluice.controller.grpc.v1.SegmentRange range : ranges) {
            SegmentWithRange r = segmentRange(range);
            if (first == null) {
                first = r;
            } else if (r.segment().scope().equals(first.segment().scope())
                    && r.segment().stream().equals(first.segment().stream())) {
                // one copy of the names for all: each message decodes its own, and a writer of a stream of a
                // thousand segments (of which a client may have a thousand) keeps every range
                r = new SegmentWithRange(new Segment(first.segment().scope(), first.segment().stream(),
                        r.segment().segmentId()), r.low(), r.high());
            }
            out.add(r);
        }
        return new StreamSegments(List.copyOf(out), token);
    }

    /** @return the StreamCut message of a cut of {@code stream} */
    public static io.sluice.controller.grpc.v1.StreamCut toProto(ScopedStream stream, StreamCut cut) {
        requireCutOf(stream, cut);
        return io.sluice.controller.grpc.v1.StreamCut.newBuilder().setStreamInfo(streamInfo(stream))
                .putAllCut(cut.offsetsBySegmentId()).build();
    }

    /** @return the cut of a StreamCut message ({@link StreamCut#UNBOUNDED} when it has no positions) */
    public static StreamCut streamCut(io.sluice.controller.grpc.v1.StreamCut cut) {
        ScopedStream stream = scopedStream(cut.getStreamInfo());
        return decode("stream cut", () -> StreamCut.of(stream, cut.getCutMap()));
    }

    /** @return the head-or-time cut of a SegmentsAtTime message */
    public static StreamCut segmentsAtTime(ScopedStream stream, SegmentsAtTime segments) {
        Map<Segment, Long> positions = new TreeMap<>();
        for (SegmentsAtTime.SegmentLocation location : segments.getSegmentsList()) {
            positions.put(segment(location.getSegmentId()), location.getOffset());
        }
        StreamCut cut = decode("segments at time", () -> StreamCut.of(positions));
        if (!cut.isFor(stream)) {
            throw new ProtocolException("segments at time of " + stream + ": the controller answered with " + cut);
        }
        return cut;
    }

    /** @return the SegmentsAtTime message of a cut */
    public static SegmentsAtTime segmentsAtTimeProto(StreamCut cut, String delegationToken) {
        SegmentsAtTime.Builder b = SegmentsAtTime.newBuilder().setDelegationToken(delegationToken);
        cut.positions().forEach((segment, offset) -> b.addSegments(SegmentsAtTime.SegmentLocation.newBuilder()
                .setSegmentId(segmentId(segment)).setOffset(offset)));
        return b.build();
    }

    /** @return the StreamCutRange message between two cuts of {@code stream} */
    public static StreamCutRange streamCutRange(ScopedStream stream, StreamCut from, StreamCut to) {
        requireCutOf(stream, from);
        requireCutOf(stream, to);
        return StreamCutRange.newBuilder().setStreamInfo(streamInfo(stream)).putAllFrom(from.offsetsBySegmentId())
                .putAllTo(to.offsetsBySegmentId()).build();
    }

    /** @return the segments of a StreamCutRangeResponse */
    public static SegmentSet segmentSet(StreamCutRangeResponse response) {
        TreeSet<Segment> segments = new TreeSet<>();
        response.getSegmentsList().forEach(id -> segments.add(segment(id)));
        return new SegmentSet(segments, response.getDelegationToken());
    }

    /** @return the StreamCutRangeResponse of a segment set */
    public static StreamCutRangeResponse toProto(SegmentSet segments) {
        StreamCutRangeResponse.Builder b = StreamCutRangeResponse.newBuilder()
                .setDelegationToken(segments.delegationToken());
        segments.segments().forEach(s -> b.addSegments(segmentId(s)));
        return b.build();
    }

    /** @return the successors of a SuccessorResponse; predecessor ids are taken to be of the successor's stream */
    public static SegmentSuccessors successors(SuccessorResponse response) {
        Map<SegmentWithRange, List<Segment>> successors = new LinkedHashMap<>();
        for (SuccessorResponse.SegmentEntry entry : response.getSegmentsList()) {
            SegmentWithRange range = segmentRange(entry.getSegment());
            List<Segment> predecessors = new ArrayList<>();
            for (long id : entry.getValueList()) {
                Segment successor = range.segment();
                predecessors.add(decode("predecessor id",
                        () -> new Segment(successor.scope(), successor.stream(), id)));
            }
            successors.put(range, predecessors);
        }
        return new SegmentSuccessors(successors, response.getDelegationToken());
    }

    /** @return the SuccessorResponse of successors */
    public static SuccessorResponse toProto(SegmentSuccessors successors) {
        SuccessorResponse.Builder b = SuccessorResponse.newBuilder()
                .setDelegationToken(successors.delegationToken());
        successors.successors().forEach((range, predecessors) -> b.addSegments(SuccessorResponse.SegmentEntry
                .newBuilder().setSegment(toProto(range))
                .addAllValue(predecessors.stream().map(Segment::segmentId).toList())));
        return b.build();
    }

    /** @return the ScaleRequest message */
    public static ScaleRequest scaleRequest(ScopedStream stream, List<Segment> sealed, List<KeyRange> newRanges,
                                            long scaleTimestampMillis) {
        ScaleRequest.Builder b = ScaleRequest.newBuilder().setStreamInfo(streamInfo(stream))
                .setScaleTimestamp(scaleTimestampMillis);
        for (Segment segment : sealed) {
            if (!segment.scope().equals(stream.scope()) || !segment.stream().equals(stream.name())) {
                throw new IllegalArgumentException("segment " + segment + " to seal is not a segment of " + stream);
            }
            b.addSealedSegments(segment.segmentId());
        }
        newRanges.forEach(r -> b.addNewKeyRanges(ScaleRequest.KeyRangeEntry.newBuilder().setStart(r.low())
                .setEnd(r.high())));
        return b.build();
    }

    // =================================================================================================
    // Stream configuration
    // =================================================================================================

    /** @return the ScalingPolicy message */
    public static io.sluice.controller.grpc.v1.ScalingPolicy toProto(ScalingPolicy policy) {
        return io.sluice.controller.grpc.v1.ScalingPolicy.newBuilder()
                .setScaleType(io.sluice.controller.grpc.v1.ScalingPolicy.ScalingPolicyType
                        .valueOf(policy.type().name()))
                .setTargetRate(policy.targetRate()).setScaleFactor(policy.scaleFactor())
                .setMinNumSegments(policy.minNumSegments()).build();
    }

    /** @return the scaling policy of a ScalingPolicy message */
    public static ScalingPolicy scalingPolicy(io.sluice.controller.grpc.v1.ScalingPolicy policy) {
        return decode("scaling policy", () -> new ScalingPolicy(switch (policy.getScaleType()) {
            case FIXED_NUM_SEGMENTS -> ScalingPolicy.Type.FIXED_NUM_SEGMENTS;
            case BY_RATE_IN_KBYTES_PER_SEC -> ScalingPolicy.Type.BY_RATE_IN_KBYTES_PER_SEC;
            case BY_RATE_IN_EVENTS_PER_SEC -> ScalingPolicy.Type.BY_RATE_IN_EVENTS_PER_SEC;
            case UNRECOGNIZED -> throw new IllegalArgumentException("unknown scaling policy type "
                    + policy.getScaleTypeValue());
        }, policy.getTargetRate(), policy.getScaleFactor(), policy.getMinNumSegments()));
    }

    /** @return the RetentionPolicy message ({@code UNKNOWN} type for {@link RetentionPolicy#NONE}) */
    public static io.sluice.controller.grpc.v1.RetentionPolicy toProto(RetentionPolicy policy) {
        io.sluice.controller.grpc.v1.RetentionPolicy.RetentionPolicyType type = switch (policy.type()) {
            case NONE -> io.sluice.controller.grpc.v1.RetentionPolicy.RetentionPolicyType.UNKNOWN;
            case TIME -> io.sluice.controller.grpc.v1.RetentionPolicy.RetentionPolicyType.TIME;
            case SIZE -> io.sluice.controller.grpc.v1.RetentionPolicy.RetentionPolicyType.SIZE;
        };
        return io.sluice.controller.grpc.v1.RetentionPolicy.newBuilder().setRetentionType(type)
                .setRetentionParam(policy.param()).setRetentionMax(policy.max()).build();
    }

    /** @return the retention policy of a RetentionPolicy message ({@code UNKNOWN}, i.e. unset, is none) */
    public static RetentionPolicy retentionPolicy(io.sluice.controller.grpc.v1.RetentionPolicy policy) {
        return switch (policy.getRetentionType()) {
            case UNKNOWN -> RetentionPolicy.NONE;
            case TIME -> decode("retention policy", () -> new RetentionPolicy(RetentionPolicy.Type.TIME,
                    policy.getRetentionParam(), policy.getRetentionMax()));
            case SIZE -> decode("retention policy", () -> new RetentionPolicy(RetentionPolicy.Type.SIZE,
                    policy.getRetentionParam(), policy.getRetentionMax()));
            case UNRECOGNIZED -> throw new ProtocolException("received an unknown retention policy type "
                    + policy.getRetentionTypeValue());
        };
    }

    /**
     * @return the StreamConfig message; the retention policy is left unset for {@link RetentionPolicy#NONE}, as
     *     Pravega's Java client does
     */
    public static StreamConfig toProto(ScopedStream stream, StreamConfiguration config) {
        StreamConfig.Builder b = StreamConfig.newBuilder().setStreamInfo(streamInfo(stream))
                .setScalingPolicy(toProto(config.scalingPolicy()))
                .setTags(Tags.newBuilder().addAllTag(config.tags()))
                .setTimestampAggregationTimeout(config.timestampAggregationTimeout().toMillis())
                .setRolloverSizeBytes(config.rolloverSizeBytes());
        if (config.retentionPolicy().type() != RetentionPolicy.Type.NONE) {
            b.setRetentionPolicy(toProto(config.retentionPolicy()));
        }
        return b.build();
    }

    /** @return the configuration of a StreamConfig message */
    public static StreamConfiguration streamConfiguration(StreamConfig config) {
        ScalingPolicy scaling = scalingPolicy(config.getScalingPolicy());
        RetentionPolicy retention = retentionPolicy(config.getRetentionPolicy());
        return decode("stream configuration", () -> StreamConfiguration.builder().scalingPolicy(scaling)
                .retentionPolicy(retention).tags(config.getTags().getTagList())
                .timestampAggregationTimeout(Duration.ofMillis(config.getTimestampAggregationTimeout()))
                .rolloverSizeBytes(config.getRolloverSizeBytes()).build());
    }

    // =================================================================================================
    // Reader groups and key-value tables
    // =================================================================================================

    /** @return the ReaderGroupConfiguration message; the retention type travels as its ordinal */
    public static ReaderGroupConfiguration toProto(String scope, String group, ReaderGroupConfig config) {
        ReaderGroupConfiguration.Builder b = ReaderGroupConfiguration.newBuilder().setScope(scope)
                .setReaderGroupName(group).setGroupRefreshTimeMillis(config.groupRefreshTimeMillis())
                .setAutomaticCheckpointIntervalMillis(config.automaticCheckpointIntervalMillis())
                .setMaxOutstandingCheckpointRequest(config.maxOutstandingCheckpointRequest())
                .setRetentionType(config.retentionType().ordinal()).setGeneration(config.generation())
                .setReaderGroupId(config.readerGroupId().toString())
                .setRolloverSizeBytes(config.rolloverSizeBytes());
        config.startingStreamCuts().forEach((stream, cut) -> b.addStartingStreamCuts(toProto(stream, cut)));
        config.endingStreamCuts().forEach((stream, cut) -> b.addEndingStreamCuts(toProto(stream, cut)));
        return b.build();
    }

    /** @return the configuration of a ReaderGroupConfiguration message */
    public static ReaderGroupConfig readerGroupConfig(ReaderGroupConfiguration config) {
        Map<ScopedStream, StreamCut> starting = new TreeMap<>();
        config.getStartingStreamCutsList().forEach(c -> starting.put(scopedStream(c.getStreamInfo()), streamCut(c)));
        Map<ScopedStream, StreamCut> ending = new TreeMap<>();
        config.getEndingStreamCutsList().forEach(c -> ending.put(scopedStream(c.getStreamInfo()), streamCut(c)));
        ReaderGroupConfig.StreamDataRetention[] retentions = ReaderGroupConfig.StreamDataRetention.values();
        int retention = config.getRetentionType();
        if (retention < 0 || retention >= retentions.length) {
            throw new ProtocolException("received an unknown reader group retention type " + retention);
        }
        UUID id = decode("reader group id", () -> config.getReaderGroupId().isEmpty()
                ? ReaderGroupConfig.DEFAULT_READER_GROUP_ID : UUID.fromString(config.getReaderGroupId()));
        return decode("reader group configuration", () -> ReaderGroupConfig.builder()
                .startingStreamCuts(starting).endingStreamCuts(ending)
                .groupRefreshTimeMillis(config.getGroupRefreshTimeMillis())
                .automaticCheckpointIntervalMillis(config.getAutomaticCheckpointIntervalMillis())
                .maxOutstandingCheckpointRequest(config.getMaxOutstandingCheckpointRequest())
                .retentionType(retentions[retention]).generation(config.getGeneration()).readerGroupId(id)
                .rolloverSizeBytes(config.getRolloverSizeBytes()).build());
    }

    /** @return the KeyValueTableConfig message */
    public static KeyValueTableConfig toProto(String scope, String table, KeyValueTableConfiguration config) {
        return KeyValueTableConfig.newBuilder().setScope(scope).setKvtName(table)
                .setPartitionCount(config.partitionCount()).setPrimaryKeyLength(config.primaryKeyLength())
                .setSecondaryKeyLength(config.secondaryKeyLength()).setRolloverSizeBytes(config.rolloverSizeBytes())
                .build();
    }

    /** @return the configuration of a KeyValueTableConfig message */
    public static KeyValueTableConfiguration keyValueTableConfiguration(KeyValueTableConfig config) {
        return decode("key-value table configuration", () -> new KeyValueTableConfiguration(
                config.getPartitionCount(), config.getPrimaryKeyLength(), config.getSecondaryKeyLength(),
                config.getRolloverSizeBytes()));
    }

    // =================================================================================================
    // Transactions
    // =================================================================================================

    /** @return the state of a TxnState message; {@code UNKNOWN} means the controller does not know it */
    public static TxnState txnState(io.sluice.controller.grpc.v1.TxnState state, ScopedStream stream, UUID txnId) {
        return switch (state.getState()) {
            case OPEN -> TxnState.OPEN;
            case COMMITTING -> TxnState.COMMITTING;
            case COMMITTED -> TxnState.COMMITTED;
            case ABORTING -> TxnState.ABORTING;
            case ABORTED -> TxnState.ABORTED;
            case UNKNOWN -> throw new TransactionFailedException("transaction " + txnId + " of stream " + stream
                    + " is not known to the controller");
            case UNRECOGNIZED -> throw unknownStatus("checkTransactionState", stream + " " + txnId,
                    state.getStateValue());
        };
    }

    /** @return the TxnState message of a state */
    public static io.sluice.controller.grpc.v1.TxnState toProto(TxnState state) {
        return io.sluice.controller.grpc.v1.TxnState.newBuilder()
                .setState(io.sluice.controller.grpc.v1.TxnState.State.valueOf(state.name())).build();
    }

    /** @return the new transaction of a CreateTxnResponse */
    public static TxnSegments txnSegments(CreateTxnResponse response) {
        return new TxnSegments(uuid(response.getTxnId()),
                streamSegments(response.getActiveSegmentsList(), response.getDelegationToken()));
    }

    /**
     * Pravega: {@code OK} is open, {@code COMMITTED}/{@code ABORTED} say the transaction already ended,
     * {@code UNKNOWN} means not found, every other status is a failed ping.
     *
     * @return the transaction's state
     */
    public static TxnState pingResult(PingTxnStatus status, ScopedStream stream, UUID txnId) {
        return switch (status.getStatus()) {
            case OK -> TxnState.OPEN;
            case COMMITTED -> TxnState.COMMITTED;
            case ABORTED -> TxnState.ABORTED;
            case UNKNOWN -> throw new TransactionFailedException("transaction " + txnId + " of stream " + stream
                    + " is not known to the controller");
            case LEASE_TOO_LARGE, MAX_EXECUTION_TIME_EXCEEDED, SCALE_GRACE_TIME_EXCEEDED, DISCONNECTED ->
                    throw new TransactionFailedException("ping of transaction " + txnId + " of stream " + stream
                            + " failed: " + status.getStatus());
            case UNRECOGNIZED -> throw unknownStatus("pingTransaction", stream + " " + txnId, status.getStatusValue());
        };
    }

    /** Interprets the answer to commit ({@code commit} true) or abort. */
    public static void txnResult(TxnStatus status, boolean commit, ScopedStream stream, UUID txnId) {
        String op = commit ? "commit" : "abort";
        switch (status.getStatus()) {
            case SUCCESS -> { }
            case STREAM_NOT_FOUND -> throw noSuchStream(stream);
            case TRANSACTION_NOT_FOUND -> throw new TransactionFailedException("cannot " + op + " transaction "
                    + txnId + " of stream " + stream + ": it was already committed or aborted");
            case FAILURE -> throw commit
                    ? new TransactionFailedException("commit of transaction " + txnId + " of stream " + stream
                            + " failed")
                    : new ControllerFailureException("the controller failed to abort transaction " + txnId
                            + " of stream " + stream);
            case UNRECOGNIZED -> throw unknownStatus(op + "Transaction", stream + " " + txnId, status.getStatusValue());
        }
    }

    /** @return the completed transactions of a ListCompletedTxnResponse */
    public static List<TransactionInfo> completedTransactions(ScopedStream stream, ListCompletedTxnResponse response) {
        return response.getResponseList().stream().map(r -> new TransactionInfo(stream, uuid(r.getTxnId()),
                switch (r.getStatus()) {
                    case COMMITTED -> TxnState.COMMITTED;
                    case ABORTED -> TxnState.ABORTED;
                    case UNRECOGNIZED -> throw unknownStatus("listCompletedTransactions", stream.toString(),
                            r.getStatusValue());
                })).toList();
    }

    // =================================================================================================
    // Status enums of scope, stream, scale, watermark, reader group and table RPCs
    // =================================================================================================

    /** @return true if created, false if it existed */
    public static boolean createScopeResult(CreateScopeStatus status, String scope) {
        return switch (status.getStatus()) {
            case SUCCESS -> true;
            case SCOPE_EXISTS -> false;
            case INVALID_SCOPE_NAME -> throw new IllegalArgumentException("the controller rejected the scope name '"
                    + scope + "'");
            case FAILURE -> throw failure("create scope '" + scope + "'");
            case UNRECOGNIZED -> throw unknownStatus("createScope", scope, status.getStatusValue());
        };
    }

    /** @return true if deleted, false if it did not exist ({@code recursive}: deleteScopeRecursive) */
    public static boolean deleteScopeResult(DeleteScopeStatus status, String scope, boolean recursive) {
        return switch (status.getStatus()) {
            case SUCCESS -> true;
            case SCOPE_NOT_FOUND -> false;
            case SCOPE_NOT_EMPTY -> {
                if (recursive) {
                    throw unknownStatus("deleteScopeRecursive", scope, status.getStatusValue());
                }
                throw new PreconditionFailedException("scope '" + scope + "' is not empty");
            }
            case FAILURE -> throw failure("delete scope '" + scope + "'" + (recursive ? " recursively" : ""));
            case UNRECOGNIZED -> throw unknownStatus(recursive ? "deleteScopeRecursive" : "deleteScope", scope,
                    status.getStatusValue());
        };
    }

    /** @return true if created, false if it existed */
    public static boolean createStreamResult(CreateStreamStatus status, ScopedStream stream) {
        return switch (status.getStatus()) {
            case SUCCESS -> true;
            case STREAM_EXISTS -> false;
            case SCOPE_NOT_FOUND -> throw noSuchScope(stream.scope());
            case INVALID_STREAM_NAME -> throw new IllegalArgumentException("the controller rejected the stream name '"
                    + stream + "'");
            case FAILURE -> throw failure("create stream '" + stream + "'");
            case UNRECOGNIZED -> throw unknownStatus("createStream", stream.toString(), status.getStatusValue());
        };
    }

    /**
     * Interprets the status of updateStream, truncateStream and sealStream.
     *
     * @param rpc the RPC, for messages
     */
    public static void updateStreamResult(UpdateStreamStatus status, String rpc, ScopedStream stream) {
        switch (status.getStatus()) {
            case SUCCESS -> { }
            case SCOPE_NOT_FOUND -> throw noSuchScope(stream.scope());
            case STREAM_NOT_FOUND -> throw noSuchStream(stream);
            case STREAM_SEALED -> {
                if (rpc.equals("sealStream")) {
                    throw unknownStatus(rpc, stream.toString(), status.getStatusValue());
                }
                throw new PreconditionFailedException("stream '" + stream + "' is sealed");
            }
            case FAILURE -> throw failure(rpc + " of stream '" + stream + "'");
            case UNRECOGNIZED -> throw unknownStatus(rpc, stream.toString(), status.getStatusValue());
        }
    }

    /** @return true if deleted, false if it did not exist */
    public static boolean deleteStreamResult(DeleteStreamStatus status, ScopedStream stream) {
        return switch (status.getStatus()) {
            case SUCCESS -> true;
            case STREAM_NOT_FOUND -> false;
            case STREAM_NOT_SEALED -> throw new PreconditionFailedException("stream '" + stream
                    + "' is not sealed; seal it before deleting it");
            case FAILURE -> throw failure("delete stream '" + stream + "'");
            case UNRECOGNIZED -> throw unknownStatus("deleteStream", stream.toString(), status.getStatusValue());
        };
    }

    /** One page of a paged listing. */
    public record Page<T>(List<T> items, ContinuationToken next) {
    }

    /**
     * A page of listStreamsInScope(ForTag). Pravega treats statuses other than the two failures as success.
     *
     * @return the page
     */
    public static Page<ScopedStream> streamsPage(StreamsInScopeResponse response, String scope) {
        return switch (response.getStatus()) {
            case SCOPE_NOT_FOUND -> throw noSuchScope(scope);
            case FAILURE -> throw failure("list the streams of scope '" + scope + "'");
            default -> new Page<>(response.getStreamsList().stream().map(ProtoMapper::scopedStream).toList(),
                    response.getContinuationToken());
        };
    }

    /** @return a page of listKeyValueTablesInScope (statuses as for streams) */
    public static Page<String> keyValueTablesPage(KVTablesInScopeResponse response, String scope) {
        return switch (response.getStatus()) {
            case SCOPE_NOT_FOUND -> throw noSuchScope(scope);
            case FAILURE -> throw failure("list the key-value tables of scope '" + scope + "'");
            default -> new Page<>(response.getKvtablesList().stream().map(KeyValueTableInfo::getKvtName).toList(),
                    response.getContinuationToken());
        };
    }

    /** @return the scale's result ({@code PRECONDITION_FAILED}: not started) */
    public static ScaleResult scaleResult(ScaleResponse response, ScopedStream stream) {
        return switch (response.getStatus()) {
            case STARTED -> new ScaleResult(true, response.getEpoch(),
                    response.getSegmentsList().stream().map(ProtoMapper::segmentRange).toList());
            case PRECONDITION_FAILED -> new ScaleResult(false, response.getEpoch(), List.of());
            case FAILURE -> throw failure("scale stream '" + stream + "'");
            case UNRECOGNIZED -> throw unknownStatus("scale", stream.toString(), response.getStatusValue());
        };
    }

    /** @return true when the scale is done, false while in progress */
    public static boolean checkScaleResult(ScaleStatusResponse response, ScopedStream stream, int epoch) {
        return switch (response.getStatus()) {
            case SUCCESS -> true;
            case IN_PROGRESS -> false;
            case INVALID_INPUT -> throw new IllegalArgumentException("the controller rejected checkScale of stream '"
                    + stream + "' for epoch " + epoch);
            case INTERNAL_ERROR -> throw failure("check the scale of stream '" + stream + "' at epoch " + epoch);
            case UNRECOGNIZED -> throw unknownStatus("checkScale", stream.toString(), response.getStatusValue());
        };
    }

    /** Interprets the answer to noteTimestampFromWriter. */
    public static void noteTimestampResult(TimestampResponse response, String writerId, ScopedStream stream,
                                           long timestamp) {
        switch (response.getResult()) {
            case SUCCESS -> { }
            case INVALID_TIME -> throw new IllegalArgumentException("the controller rejected time " + timestamp
                    + " of writer '" + writerId + "' on stream '" + stream + "'");
            case INVALID_POSITION -> throw new IllegalArgumentException("the controller rejected the position of "
                    + "writer '" + writerId + "' on stream '" + stream + "'");
            case INTERNAL_ERROR -> throw failure("note the time of writer '" + writerId + "' on stream '" + stream
                    + "'");
            case UNRECOGNIZED -> throw unknownStatus("noteTimestampFromWriter", stream.toString(),
                    response.getResultValue());
        }
    }

    /** @return true if removed, false if the writer was unknown */
    public static boolean removeWriterResult(RemoveWriterResponse response, String writerId, ScopedStream stream) {
        return switch (response.getResult()) {
            case SUCCESS -> true;
            case UNKNOWN_WRITER -> false;
            case STREAM_DOES_NOT_EXIST -> throw noSuchStream(stream);
            case INTERNAL_ERROR -> throw failure("remove writer '" + writerId + "' of stream '" + stream + "'");
            case UNRECOGNIZED -> throw unknownStatus("removeWriter", stream.toString(), response.getResultValue());
        };
    }

    /** @return the created group's configuration */
    public static ReaderGroupConfig createReaderGroupResult(CreateReaderGroupResponse response, String scope,
                                                            String group) {
        return switch (response.getStatus()) {
            case SUCCESS -> readerGroupConfig(response.getConfig());
            case SCOPE_NOT_FOUND -> throw noSuchScope(scope);
            case INVALID_RG_NAME -> throw new IllegalArgumentException("the controller rejected the reader group name '"
                    + scope + "/" + group + "'");
            case FAILURE -> throw failure("create reader group '" + scope + "/" + group + "'");
            case UNRECOGNIZED -> throw unknownStatus("createReaderGroup", scope + "/" + group,
                    response.getStatusValue());
        };
    }

    /** @return the group's configuration */
    public static ReaderGroupConfig readerGroupConfigResult(ReaderGroupConfigResponse response, String scope,
                                                            String group) {
        return switch (response.getStatus()) {
            case SUCCESS -> readerGroupConfig(response.getConfig());
            case RG_NOT_FOUND -> throw noSuchReaderGroup(scope, group);
            case FAILURE -> throw failure("get the configuration of reader group '" + scope + "/" + group + "'");
            case UNRECOGNIZED -> throw unknownStatus("getReaderGroupConfig", scope + "/" + group,
                    response.getStatusValue());
        };
    }

    /** @return the new generation */
    public static long updateReaderGroupResult(UpdateReaderGroupResponse response, String scope, String group) {
        return switch (response.getStatus()) {
            case SUCCESS -> response.getGeneration();
            case RG_NOT_FOUND -> throw noSuchReaderGroup(scope, group);
            case INVALID_CONFIG -> throw new PreconditionFailedException("the controller rejected the configuration "
                    + "of reader group '" + scope + "/" + group + "' (outdated generation?)");
            case FAILURE -> throw failure("update reader group '" + scope + "/" + group + "'");
            case UNRECOGNIZED -> throw unknownStatus("updateReaderGroup", scope + "/" + group,
                    response.getStatusValue());
        };
    }

    /** @return true if deleted, false if not found */
    public static boolean deleteReaderGroupResult(DeleteReaderGroupStatus status, String scope, String group) {
        return switch (status.getStatus()) {
            case SUCCESS -> true;
            case RG_NOT_FOUND -> false;
            case FAILURE -> throw failure("delete reader group '" + scope + "/" + group + "'");
            case UNRECOGNIZED -> throw unknownStatus("deleteReaderGroup", scope + "/" + group, status.getStatusValue());
        };
    }

    /** @return the subscribers */
    public static List<String> subscribersResult(SubscribersResponse response, ScopedStream stream) {
        return switch (response.getStatus()) {
            case SUCCESS -> List.copyOf(response.getSubscribersList());
            case STREAM_NOT_FOUND -> throw noSuchStream(stream);
            case FAILURE -> throw failure("list the subscribers of stream '" + stream + "'");
            case UNRECOGNIZED -> throw unknownStatus("listSubscribers", stream.toString(), response.getStatusValue());
        };
    }

    /** Interprets the answer to updateSubscriberStreamCut. */
    public static void updateSubscriberResult(UpdateSubscriberStatus status, ScopedStream stream, String subscriber) {
        switch (status.getStatus()) {
            case SUCCESS -> { }
            case STREAM_NOT_FOUND -> throw noSuchStream(stream);
            case SUBSCRIBER_NOT_FOUND -> throw new NoSuchStreamException("subscriber '" + subscriber + "' of stream '"
                    + stream + "' does not exist");
            case STREAM_CUT_NOT_VALID -> throw new IllegalArgumentException("the controller found the stream cut of "
                    + "subscriber '" + subscriber + "' on stream '" + stream + "' invalid");
            case GENERATION_MISMATCH -> throw new PreconditionFailedException("subscriber '" + subscriber
                    + "' of stream '" + stream + "': reader group generation mismatch");
            case FAILURE -> throw failure("update the stream cut of subscriber '" + subscriber + "' on stream '"
                    + stream + "'");
            case UNRECOGNIZED -> throw unknownStatus("updateSubscriberStreamCut", stream.toString(),
                    status.getStatusValue());
        }
    }

    /** @return true if created, false if it existed */
    public static boolean createKeyValueTableResult(CreateKeyValueTableStatus status, String scope, String table) {
        return switch (status.getStatus()) {
            case SUCCESS -> true;
            case TABLE_EXISTS -> false;
            case SCOPE_NOT_FOUND -> throw noSuchScope(scope);
            case INVALID_TABLE_NAME -> throw new IllegalArgumentException("the controller rejected the key-value table "
                    + "name '" + scope + "/" + table + "'");
            case FAILURE -> throw failure("create key-value table '" + scope + "/" + table + "'");
            case UNRECOGNIZED -> throw unknownStatus("createKeyValueTable", scope + "/" + table,
                    status.getStatusValue());
        };
    }

    /** @return the table's configuration */
    public static KeyValueTableConfiguration keyValueTableConfigResult(KeyValueTableConfigResponse response,
                                                                       String scope, String table) {
        return switch (response.getStatus()) {
            case SUCCESS -> keyValueTableConfiguration(response.getConfig());
            case TABLE_NOT_FOUND -> throw noSuchKeyValueTable(scope, table);
            case FAILURE -> throw failure("get the configuration of key-value table '" + scope + "/" + table + "'");
            case UNRECOGNIZED -> throw unknownStatus("getKeyValueTableConfiguration", scope + "/" + table,
                    response.getStatusValue());
        };
    }

    /** @return true if deleted, false if not found */
    public static boolean deleteKeyValueTableResult(DeleteKVTableStatus status, String scope, String table) {
        return switch (status.getStatus()) {
            case SUCCESS -> true;
            case TABLE_NOT_FOUND -> false;
            case FAILURE -> throw failure("delete key-value table '" + scope + "/" + table + "'");
            case UNRECOGNIZED -> throw unknownStatus("deleteKeyValueTable", scope + "/" + table,
                    status.getStatusValue());
        };
    }

    // =================================================================================================
    // Exceptions with the standard messages
    // =================================================================================================

    /** @return "scope 'x' does not exist" */
    public static NoSuchScopeException noSuchScope(String scope) {
        return new NoSuchScopeException("scope '" + scope + "' does not exist");
    }

    /** @return "stream 's/x' does not exist" */
    public static NoSuchStreamException noSuchStream(ScopedStream stream) {
        return new NoSuchStreamException("stream '" + stream + "' does not exist");
    }

    /** @return "reader group 's/g' does not exist" */
    public static NoSuchStreamException noSuchReaderGroup(String scope, String group) {
        return new NoSuchStreamException("reader group '" + scope + "/" + group + "' does not exist");
    }

    /** @return "key-value table 's/t' does not exist" */
    public static NoSuchStreamException noSuchKeyValueTable(String scope, String table) {
        return new NoSuchStreamException("key-value table '" + scope + "/" + table + "' does not exist");
    }

    private static ControllerFailureException failure(String what) {
        return new ControllerFailureException("the controller failed to " + what);
    }

    private static ControllerFailureException unknownStatus(String rpc, String subject, int value) {
        return new ControllerFailureException(rpc + " " + subject + ": the controller answered with the unknown "
                + "status " + value);
    }

    private static void requireCutOf(ScopedStream stream, StreamCut cut) {
        if (!cut.isFor(stream)) {
            throw new IllegalArgumentException("stream cut " + cut + " is not a cut of stream " + stream);
        }
    }

    private static <T> T decode(String what, Supplier<T> decoder) {
        try {
            return decoder.get();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new ProtocolException("received an invalid " + what + ": " + e.getMessage(), e);
        }
    }
}
