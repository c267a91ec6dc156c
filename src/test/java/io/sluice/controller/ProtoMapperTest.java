package io.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sluice.common.Endpoint;
import io.sluice.controller.grpc.v1.CreateScopeStatus;
import io.sluice.controller.grpc.v1.DeleteScopeStatus;
import io.sluice.controller.grpc.v1.NodeUri;
import io.sluice.controller.grpc.v1.ReaderGroupConfiguration;
import io.sluice.controller.grpc.v1.SegmentId;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.errors.AuthenticationException;
import io.sluice.errors.AuthorizationException;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.ControllerFailureException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.IncompatibleServerException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.RetriableException;
import io.sluice.errors.ServiceUnavailableException;
import io.sluice.errors.SluiceException;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.RetentionPolicy;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.StreamCut;
import io.sluice.stream.TxnState;
import io.sluice.table.KeyValueTableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Value mappings in both directions, status meanings, and the gRPC error table. */
@Timeout(30)
class ProtoMapperTest {
    private static final ScopedStream STREAM = ScopedStream.of("sc", "st");

    @Test
    void valuesRoundTrip() {
        Segment segment = Segment.of(STREAM, 7, 3);
        assertThat(ProtoMapper.segment(ProtoMapper.segmentId(segment))).isEqualTo(segment);
        SegmentWithRange range = new SegmentWithRange(segment, 0.25, 0.5);
        assertThat(ProtoMapper.segmentRange(ProtoMapper.toProto(range))).isEqualTo(range);
        StreamSegments segments = new StreamSegments(List.of(range), "tok");
        assertThat(ProtoMapper.streamSegments(ProtoMapper.toProto(segments))).isEqualTo(segments);
        UUID id = UUID.randomUUID();
        assertThat(ProtoMapper.uuid(ProtoMapper.txnId(id))).isEqualTo(id);
        Endpoint endpoint = new Endpoint("::1", 12345);
        assertThat(ProtoMapper.endpoint(ProtoMapper.nodeUri(endpoint))).isEqualTo(endpoint);
        StreamCut cut = StreamCut.of(Map.of(segment, 99L));
        assertThat(ProtoMapper.streamCut(ProtoMapper.toProto(STREAM, cut))).isEqualTo(cut);
        assertThat(ProtoMapper.streamCut(ProtoMapper.toProto(STREAM, StreamCut.UNBOUNDED)))
                .isEqualTo(StreamCut.UNBOUNDED);
        assertThat(ProtoMapper.segmentsAtTime(STREAM, ProtoMapper.segmentsAtTimeProto(cut, ""))).isEqualTo(cut);
        SegmentSet set = new SegmentSet(new java.util.TreeSet<>(List.of(segment)), "t");
        assertThat(ProtoMapper.segmentSet(ProtoMapper.toProto(set))).isEqualTo(set);
        SegmentSuccessors successors = new SegmentSuccessors(Map.of(range, List.of(Segment.of(STREAM, 1, 0))), "t");
        assertThat(ProtoMapper.successors(ProtoMapper.toProto(successors))).isEqualTo(successors);
        for (TxnState state : TxnState.values()) {
            assertThat(ProtoMapper.txnState(ProtoMapper.toProto(state), STREAM, id)).isEqualTo(state);
        }
    }

    @Test
    void streamConfigurationRoundTripsForEveryPolicy() {
        for (ScalingPolicy scaling : List.of(ScalingPolicy.fixed(3), ScalingPolicy.byDataRate(10, 2, 1),
                ScalingPolicy.byEventRate(100, 3, 2))) {
            for (RetentionPolicy retention : List.of(RetentionPolicy.NONE, RetentionPolicy.bySizeBytes(1000),
                    RetentionPolicy.byTime(Duration.ofMinutes(1), Duration.ofMinutes(2)))) {
                StreamConfiguration config = StreamConfiguration.builder().scalingPolicy(scaling)
                        .retentionPolicy(retention).tag("x").timestampAggregationTimeout(Duration.ofMillis(7))
                        .rolloverSizeBytes(3).build();
                StreamConfig proto = ProtoMapper.toProto(STREAM, config);
                assertThat(proto.hasRetentionPolicy()).isEqualTo(retention != RetentionPolicy.NONE);
                assertThat(ProtoMapper.streamConfiguration(proto)).isEqualTo(config);
            }
        }
    }

    @Test
    void unsetPoliciesDecodeAsPravegaDefaults() {
        StreamConfig proto = StreamConfig.newBuilder().setStreamInfo(ProtoMapper.streamInfo(STREAM))
                .setScalingPolicy(io.sluice.controller.grpc.v1.ScalingPolicy.newBuilder().setMinNumSegments(1)).build();
        StreamConfiguration config = ProtoMapper.streamConfiguration(proto);
        assertThat(config.retentionPolicy()).isEqualTo(RetentionPolicy.NONE);
        assertThat(config.scalingPolicy()).isEqualTo(ScalingPolicy.fixed(1));
    }

    @Test
    void readerGroupConfigRoundTrips() {
        ReaderGroupConfig config = ReaderGroupConfig.builder()
                .stream(STREAM, StreamCut.of(Map.of(Segment.of(STREAM, 0, 0), 5L)))
                .retentionType(ReaderGroupConfig.StreamDataRetention.MANUAL_RELEASE_AT_USER_STREAMCUT)
                .disableAutomaticCheckpoints().build().withIdentity(UUID.randomUUID(), 9);
        ReaderGroupConfiguration proto = ProtoMapper.toProto("sc", "rg", config);
        assertThat(proto.getRetentionType()).isEqualTo(1);
        assertThat(proto.getAutomaticCheckpointIntervalMillis()).isEqualTo(-1);
        assertThat(ProtoMapper.readerGroupConfig(proto)).isEqualTo(config);
    }

    @Test
    void readerGroupConfigDefaultsMatchPravega() {
        ReaderGroupConfiguration proto = ProtoMapper.toProto("sc", "rg",
                ReaderGroupConfig.builder().stream(STREAM).build());
        assertThat(proto.getGroupRefreshTimeMillis()).isEqualTo(3000);
        assertThat(proto.getAutomaticCheckpointIntervalMillis()).isEqualTo(30000);
        assertThat(proto.getMaxOutstandingCheckpointRequest()).isEqualTo(3);
        assertThat(proto.getRetentionType()).isZero();
        assertThat(proto.getGeneration()).isEqualTo(-1);
        assertThat(proto.getReaderGroupId()).isEqualTo("00000000-0000-0000-0000-000000000000");
    }

    @Test
    void keyValueTableConfigRoundTrips() {
        KeyValueTableConfiguration config = new KeyValueTableConfiguration(2, 16, 4, 1 << 20);
        assertThat(ProtoMapper.keyValueTableConfiguration(ProtoMapper.toProto("sc", "t", config))).isEqualTo(config);
    }

    @Test
    void invalidValuesFromThePeerAreProtocolErrors() {
        SegmentId negative = SegmentId.newBuilder().setStreamInfo(ProtoMapper.streamInfo(STREAM)).setSegmentId(-1)
                .build();
        assertThatThrownBy(() -> ProtoMapper.segment(negative)).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("invalid segment id");
        assertThatThrownBy(() -> ProtoMapper.endpoint(NodeUri.newBuilder().setEndpoint("h").setPort(0).build()))
                .isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() -> ProtoMapper.readerGroupConfig(ReaderGroupConfiguration.newBuilder()
                .setMaxOutstandingCheckpointRequest(1).build())).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("at least one stream");
        assertThatThrownBy(() -> ProtoMapper.scopedStream(StreamInfo.newBuilder().setScope("a/b").setStream("s")
                .build())).isInstanceOf(ProtocolException.class);
    }

    @Test
    void createScopeStatuses() {
        assertThat(ProtoMapper.createScopeResult(createScope(CreateScopeStatus.Status.SUCCESS), "s")).isTrue();
        assertThat(ProtoMapper.createScopeResult(createScope(CreateScopeStatus.Status.SCOPE_EXISTS), "s")).isFalse();
        assertThatThrownBy(() -> ProtoMapper.createScopeResult(createScope(CreateScopeStatus.Status.INVALID_SCOPE_NAME),
                "s")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProtoMapper.createScopeResult(createScope(CreateScopeStatus.Status.FAILURE), "s"))
                .isInstanceOf(ControllerFailureException.class).hasMessage("the controller failed to create scope 's'");
        assertThatThrownBy(() -> ProtoMapper.createScopeResult(CreateScopeStatus.newBuilder().setStatusValue(42)
                .build(), "s")).isInstanceOf(ControllerFailureException.class)
                .hasMessageContaining("unknown status 42");
    }

    @Test
    void deleteScopeRecursiveTreatsNotEmptyAsUnknown() {
        assertThatThrownBy(() -> ProtoMapper.deleteScopeResult(DeleteScopeStatus.newBuilder()
                .setStatus(DeleteScopeStatus.Status.SCOPE_NOT_EMPTY).build(), "s", true))
                .isInstanceOf(ControllerFailureException.class);
    }

    @Test
    void sealTreatsStreamSealedAsUnknownButUpdateAsPrecondition() {
        UpdateStreamStatus sealed = UpdateStreamStatus.newBuilder().setStatus(UpdateStreamStatus.Status.STREAM_SEALED)
                .build();
        assertThatThrownBy(() -> ProtoMapper.updateStreamResult(sealed, "sealStream", STREAM))
                .isInstanceOf(ControllerFailureException.class);
        assertThatThrownBy(() -> ProtoMapper.updateStreamResult(sealed, "truncateStream", STREAM))
                .isInstanceOf(io.sluice.errors.PreconditionFailedException.class);
    }

    @ParameterizedTest
    @EnumSource(Status.Code.class)
    void everyGrpcCodeHasAMapping(Status.Code code) {
        RuntimeException e = ProtoMapper.toException(Status.fromCode(code).withDescription("d").asRuntimeException(),
                "op x", () -> new NoSuchStreamException("stream 'x' does not exist"));
        boolean retriable = switch (code) {
            case UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, FAILED_PRECONDITION, INTERNAL, UNKNOWN,
                 DATA_LOSS -> true;
            default -> false;
        };
        assertThat(e instanceof RetriableException).as(code + " retriable").isEqualTo(retriable);
        assertThat(e.getCause()).isInstanceOf(StatusRuntimeException.class);
        Class<?> expected = switch (code) {
            case UNAVAILABLE -> ConnectionFailedException.class;
            case DEADLINE_EXCEEDED -> DeadlineExceededException.class;
            case RESOURCE_EXHAUSTED, ABORTED, FAILED_PRECONDITION, INTERNAL, UNKNOWN, DATA_LOSS ->
                    ServiceUnavailableException.class;
            case UNAUTHENTICATED -> AuthenticationException.class;
            case PERMISSION_DENIED -> AuthorizationException.class;
            case NOT_FOUND -> NoSuchStreamException.class;
            case ALREADY_EXISTS -> AlreadyExistsException.class;
            case INVALID_ARGUMENT, OUT_OF_RANGE -> IllegalArgumentException.class;
            case UNIMPLEMENTED -> IncompatibleServerException.class;
            case CANCELLED -> SluiceException.class;
            case OK -> ProtocolException.class;
        };
        assertThat(e).isInstanceOf(expected);
    }

    @Test
    void aConnectionClosedUnderTheCallIsAConnectionFailure() {
        // what grpc-netty reports for a call whose connection closed under it (a controller killed mid-call):
        // UNKNOWN "channel closed" with the ClosedChannelException as its cause; ServerKillTest met it as a getURI
        // that gave up while the controller restarted
        RuntimeException closed = ProtoMapper.toException(Status.UNKNOWN.withDescription("channel closed")
                .withCause(new java.nio.channels.ClosedChannelException()).asRuntimeException(), "getURI s/t/0", null);
        assertThat(closed).isInstanceOf(ConnectionFailedException.class)
                .hasMessageContaining("getURI s/t/0: the connection to the controller was lost: UNKNOWN: channel closed");
        // an UNKNOWN without an I/O cause stays what it was
        RuntimeException other = ProtoMapper.toException(Status.UNKNOWN.withDescription("store conflict")
                .withCause(new IllegalStateException("x")).asRuntimeException(), "getURI s/t/0", null);
        assertThat(other).isExactlyInstanceOf(ServiceUnavailableException.class);
    }

    @Test
    void notFoundWithoutContextIsGeneric() {
        RuntimeException e = ProtoMapper.toException(Status.NOT_FOUND.asRuntimeException(), "getURI s/t/0", null);
        assertThat(e).isExactlyInstanceOf(SluiceException.class).hasMessageContaining("getURI s/t/0: not found");
    }

    private static CreateScopeStatus createScope(CreateScopeStatus.Status s) {
        return CreateScopeStatus.newBuilder().setStatus(s).build();
    }
}
