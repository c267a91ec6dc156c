package io.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;

import io.grpc.Status;
import io.sluice.auth.AccessOperation;
import io.sluice.auth.Credentials;
import io.sluice.common.Endpoint;
import io.sluice.common.Retry;
import io.sluice.controller.grpc.v1.ContinuationToken;
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
import io.sluice.controller.grpc.v1.TxnResponse;
import io.sluice.controller.grpc.v1.TxnStatus;
import io.sluice.controller.grpc.v1.UpdateReaderGroupResponse;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;
import io.sluice.controller.grpc.v1.UpdateSubscriberStatus;
import io.sluice.errors.AuthenticationException;
import io.sluice.errors.AuthorizationException;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.IncompatibleServerException;
import io.sluice.errors.NoSuchScopeException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.errors.PreconditionFailedException;
import io.sluice.errors.RetriesExhaustedException;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every RPC of {@link GrpcControllerClient} against a scripted in-process controller: the request the client sends
 * (field by field) and how it maps the response, plus retries, deadlines and credentials.
 */
@Timeout(60)
class GrpcControllerClientTest {
    private static final ScopedStream STREAM = ScopedStream.of("sc", "st");
    private static final Segment SEG0 = Segment.of(STREAM, 0, 0);
    private static final Segment SEG1 = Segment.of(STREAM, 1, 2);
    private static final StreamInfo STREAM_INFO = StreamInfo.newBuilder().setScope("sc").setStream("st").build();
    private static final UUID TXN = new UUID(0x0000000200000007L, 42L);

    private FakeController fake;
    private GrpcControllerClient client;

    @BeforeEach
    void start() throws Exception {
        fake = new FakeController().start();
        client = client(config().build());
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        fake.close();
    }

    private static ControllerClientConfig.Builder config() {
        return ControllerClientConfig.builder("tcp://localhost:9090")
                .retry(Retry.withExpBackoff(Duration.ofMillis(1), 1, 5, Duration.ofMillis(1)));
    }

    private GrpcControllerClient client(ControllerClientConfig config) {
        return new GrpcControllerClient(fake.channel(), config);
    }

    private static SegmentId id(Segment s) {
        return SegmentId.newBuilder().setStreamInfo(STREAM_INFO).setSegmentId(s.segmentId()).build();
    }

    private static io.sluice.controller.grpc.v1.SegmentRange range(Segment s, double low, double high) {
        return io.sluice.controller.grpc.v1.SegmentRange.newBuilder().setSegmentId(id(s)).setMinKey(low)
                .setMaxKey(high).build();
    }

    private static StreamCut cut() {
        return StreamCut.of(Map.of(SEG0, 10L, SEG1, 20L));
    }

    private static io.sluice.controller.grpc.v1.StreamCut cutProto() {
        return io.sluice.controller.grpc.v1.StreamCut.newBuilder().setStreamInfo(STREAM_INFO)
                .putCut(SEG0.segmentId(), 10L).putCut(SEG1.segmentId(), 20L).build();
    }

    // =============================================================================================
    // discovery and scopes
    // =============================================================================================

    @Test
    void getControllerServerList() throws Exception {
        fake.reply("getControllerServerList", ServerResponse.newBuilder()
                .addNodeURI(NodeUri.newBuilder().setEndpoint("c1").setPort(9090))
                .addNodeURI(NodeUri.newBuilder().setEndpoint("10.0.0.2").setPort(9091)).build());
        assertThat(client.controllerServerList()).containsExactly(new Endpoint("c1", 9090),
                new Endpoint("10.0.0.2", 9091));
        fake.take("getControllerServerList");
    }

    @Test
    void createScope() throws Exception {
        fake.reply("createScope", status(CreateScopeStatus.Status.SUCCESS),
                status(CreateScopeStatus.Status.SCOPE_EXISTS));
        assertThat(client.createScope("sc")).isTrue();
        assertThat(fake.<ScopeInfo>request("createScope").getScope()).isEqualTo("sc");
        assertThat(client.createScope("sc")).isFalse();
        fake.take("createScope");
        assertThatThrownBy(() -> client.createScope("bad/name")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("scope name 'bad/name' is invalid");
        assertThat(fake.pendingCalls()).isZero();
    }

    @Test
    void checkScopeExists() throws Exception {
        fake.reply("checkScopeExists", ExistsResponse.newBuilder().setExists(true).build(),
                ExistsResponse.newBuilder().setExists(false).build());
        assertThat(client.scopeExists("sc")).isTrue();
        assertThat(fake.<ScopeInfo>request("checkScopeExists").getScope()).isEqualTo("sc");
        assertThat(client.scopeExists("other")).isFalse();
        assertThat(fake.<ScopeInfo>request("checkScopeExists").getScope()).isEqualTo("other");
    }

    @Test
    void listScopesPagesUntilAnEmptyPage() throws Exception {
        fake.reply("listScopes",
                ScopesResponse.newBuilder().addScopes("a").addScopes("b").setContinuationToken(token("t1")).build(),
                ScopesResponse.newBuilder().addScopes("c").setContinuationToken(token("t2")).build(),
                ScopesResponse.newBuilder().setContinuationToken(token("t3")).build());
        assertThat(client.listScopes()).containsExactly("a", "b", "c");
        assertThat(fake.<ScopesRequest>request("listScopes").getContinuationToken().getToken()).isEmpty();
        assertThat(fake.<ScopesRequest>request("listScopes").getContinuationToken().getToken()).isEqualTo("t1");
        assertThat(fake.<ScopesRequest>request("listScopes").getContinuationToken().getToken()).isEqualTo("t2");
        assertThat(fake.pendingCalls()).isZero();
    }

    @Test
    void scopeIteratorIsLazy() throws Exception {
        fake.reply("listScopes",
                ScopesResponse.newBuilder().addScopes("a").setContinuationToken(token("t1")).build(),
                ScopesResponse.newBuilder().setContinuationToken(token("t1")).build());
        var it = client.scopeIterator();
        assertThat(fake.pendingCalls()).isZero();
        assertThat(it.next()).isEqualTo("a");
        assertThat(fake.pendingCalls()).isEqualTo(1);
        assertThat(it.hasNext()).isFalse();
        assertThat(fake.pendingCalls()).isEqualTo(2);
    }

    @Test
    void deleteScope() throws Exception {
        fake.reply("deleteScope", status(DeleteScopeStatus.Status.SUCCESS),
                status(DeleteScopeStatus.Status.SCOPE_NOT_FOUND), status(DeleteScopeStatus.Status.SCOPE_NOT_EMPTY));
        assertThat(client.deleteScope("sc")).isTrue();
        assertThat(fake.<ScopeInfo>request("deleteScope").getScope()).isEqualTo("sc");
        assertThat(client.deleteScope("sc")).isFalse();
        assertThatThrownBy(() -> client.deleteScope("sc")).isInstanceOf(PreconditionFailedException.class)
                .hasMessage("scope 'sc' is not empty");
    }

    @Test
    void deleteScopeRecursive() throws Exception {
        fake.reply("deleteScopeRecursive", status(DeleteScopeStatus.Status.SUCCESS),
                status(DeleteScopeStatus.Status.SCOPE_NOT_FOUND));
        assertThat(client.deleteScopeRecursive("sc")).isTrue();
        assertThat(fake.<ScopeInfo>request("deleteScopeRecursive").getScope()).isEqualTo("sc");
        assertThat(client.deleteScopeRecursive("sc")).isFalse();
    }

    // =============================================================================================
    // streams
    // =============================================================================================

    private static StreamConfiguration fullConfig() {
        return StreamConfiguration.builder().scalingPolicy(ScalingPolicy.byEventRate(100, 2, 3))
                .retentionPolicy(RetentionPolicy.byTime(Duration.ofHours(1), Duration.ofHours(2)))
                .tag("t1").tag("t2").timestampAggregationTimeout(Duration.ofSeconds(5)).rolloverSizeBytes(1024)
                .build();
    }

    private static void assertFullConfig(StreamConfig sent) {
        assertThat(sent.getStreamInfo()).isEqualTo(STREAM_INFO);
        assertThat(sent.getScalingPolicy().getScaleType())
                .isEqualTo(io.sluice.controller.grpc.v1.ScalingPolicy.ScalingPolicyType.BY_RATE_IN_EVENTS_PER_SEC);
        assertThat(sent.getScalingPolicy().getTargetRate()).isEqualTo(100);
        assertThat(sent.getScalingPolicy().getScaleFactor()).isEqualTo(2);
        assertThat(sent.getScalingPolicy().getMinNumSegments()).isEqualTo(3);
        assertThat(sent.getRetentionPolicy().getRetentionType())
                .isEqualTo(io.sluice.controller.grpc.v1.RetentionPolicy.RetentionPolicyType.TIME);
        assertThat(sent.getRetentionPolicy().getRetentionParam()).isEqualTo(3_600_000L);
        assertThat(sent.getRetentionPolicy().getRetentionMax()).isEqualTo(7_200_000L);
        assertThat(sent.getTags().getTagList()).containsExactly("t1", "t2");
        assertThat(sent.getTimestampAggregationTimeout()).isEqualTo(5000L);
        assertThat(sent.getRolloverSizeBytes()).isEqualTo(1024L);
    }

    @Test
    void createStream() throws Exception {
        fake.reply("createStream", status(CreateStreamStatus.Status.SUCCESS),
                status(CreateStreamStatus.Status.STREAM_EXISTS), status(CreateStreamStatus.Status.SCOPE_NOT_FOUND));
        assertThat(client.createStream(STREAM, fullConfig())).isTrue();
        assertFullConfig(fake.request("createStream"));
        assertThat(client.createStream(STREAM, fullConfig())).isFalse();
        assertThatThrownBy(() -> client.createStream(STREAM, fullConfig())).isInstanceOf(NoSuchScopeException.class)
                .hasMessage("scope 'sc' does not exist");
    }

    @Test
    void createStreamWithoutRetentionLeavesThePolicyUnset() throws Exception {
        fake.reply("createStream", status(CreateStreamStatus.Status.SUCCESS));
        client.createStream(STREAM, StreamConfiguration.builder().build());
        StreamConfig sent = fake.request("createStream");
        assertThat(sent.hasRetentionPolicy()).isFalse();
        assertThat(sent.getScalingPolicy().getMinNumSegments()).isEqualTo(1);
    }

    @Test
    void updateStream() throws Exception {
        fake.reply("updateStream", status(UpdateStreamStatus.Status.SUCCESS),
                status(UpdateStreamStatus.Status.STREAM_SEALED), status(UpdateStreamStatus.Status.STREAM_NOT_FOUND));
        client.updateStream(STREAM, fullConfig());
        assertFullConfig(fake.request("updateStream"));
        assertThatThrownBy(() -> client.updateStream(STREAM, fullConfig()))
                .isInstanceOf(PreconditionFailedException.class).hasMessage("stream 'sc/st' is sealed");
        assertThatThrownBy(() -> client.updateStream(STREAM, fullConfig()))
                .isInstanceOf(NoSuchStreamException.class).hasMessage("stream 'sc/st' does not exist");
    }

    @Test
    void getStreamConfiguration() throws Exception {
        fake.reply("getStreamConfiguration", ProtoMapper.toProto(STREAM, fullConfig()),
                Status.NOT_FOUND.withDescription("no such stream"));
        assertThat(client.streamConfiguration(STREAM)).isEqualTo(fullConfig());
        assertThat(fake.<StreamInfo>request("getStreamConfiguration")).isEqualTo(STREAM_INFO);
        assertThatThrownBy(() -> client.streamConfiguration(STREAM)).isInstanceOf(NoSuchStreamException.class)
                .hasMessage("stream 'sc/st' does not exist");
    }

    @Test
    void checkStreamExists() throws Exception {
        fake.reply("checkStreamExists", ExistsResponse.newBuilder().setExists(true).build());
        assertThat(client.streamExists(STREAM)).isTrue();
        assertThat(fake.<StreamInfo>request("checkStreamExists")).isEqualTo(STREAM_INFO);
    }

    @Test
    void listStreamsInScope() throws Exception {
        fake.reply("listStreamsInScope", StreamsInScopeResponse.newBuilder().addStreams(STREAM_INFO)
                        .addStreams(StreamInfo.newBuilder().setScope("sc").setStream("_RGgroup"))
                        .setContinuationToken(token("p1")).build(),
                StreamsInScopeResponse.newBuilder().setContinuationToken(token("p2")).build());
        assertThat(client.listStreams("sc")).containsExactly(STREAM, ScopedStream.of("sc", "_RGgroup"));
        StreamsInScopeRequest first = fake.request("listStreamsInScope");
        assertThat(first.getScope().getScope()).isEqualTo("sc");
        assertThat(first.getContinuationToken().getToken()).isEmpty();
        assertThat(fake.<StreamsInScopeRequest>request("listStreamsInScope").getContinuationToken().getToken())
                .isEqualTo("p1");
        fake.reply("listStreamsInScope", StreamsInScopeResponse.newBuilder()
                .setStatus(StreamsInScopeResponse.Status.SCOPE_NOT_FOUND).build());
        assertThatThrownBy(() -> client.listStreams("sc")).isInstanceOf(NoSuchScopeException.class);
    }

    @Test
    void listStreamsInScopeForTag() throws Exception {
        fake.reply("listStreamsInScopeForTag", StreamsInScopeResponse.newBuilder().addStreams(STREAM_INFO)
                .setContinuationToken(token("p1")).build(), StreamsInScopeResponse.getDefaultInstance());
        assertThat(client.listStreams("sc", "blue")).containsExactly(STREAM);
        StreamsInScopeWithTagRequest first = fake.request("listStreamsInScopeForTag");
        assertThat(first.getScope().getScope()).isEqualTo("sc");
        assertThat(first.getTag()).isEqualTo("blue");
        assertThat(first.getContinuationToken().getToken()).isEmpty();
        assertThat(fake.<StreamsInScopeWithTagRequest>request("listStreamsInScopeForTag").getContinuationToken()
                .getToken()).isEqualTo("p1");
    }

    @Test
    void truncateStream() throws Exception {
        fake.reply("truncateStream", status(UpdateStreamStatus.Status.SUCCESS));
        client.truncateStream(STREAM, cut());
        assertThat(fake.<io.sluice.controller.grpc.v1.StreamCut>request("truncateStream")).isEqualTo(cutProto());
        assertThatThrownBy(() -> client.truncateStream(STREAM, StreamCut.UNBOUNDED))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.truncateStream(ScopedStream.of("sc", "other"), cut()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not a cut of stream sc/other");
    }

    @Test
    void sealStream() throws Exception {
        fake.reply("sealStream", status(UpdateStreamStatus.Status.SUCCESS),
                status(UpdateStreamStatus.Status.SCOPE_NOT_FOUND));
        client.sealStream(STREAM);
        assertThat(fake.<StreamInfo>request("sealStream")).isEqualTo(STREAM_INFO);
        assertThatThrownBy(() -> client.sealStream(STREAM)).isInstanceOf(NoSuchScopeException.class);
    }

    @Test
    void deleteStream() throws Exception {
        fake.reply("deleteStream", status(DeleteStreamStatus.Status.SUCCESS),
                status(DeleteStreamStatus.Status.STREAM_NOT_FOUND),
                status(DeleteStreamStatus.Status.STREAM_NOT_SEALED));
        assertThat(client.deleteStream(STREAM)).isTrue();
        assertThat(fake.<StreamInfo>request("deleteStream")).isEqualTo(STREAM_INFO);
        assertThat(client.deleteStream(STREAM)).isFalse();
        assertThatThrownBy(() -> client.deleteStream(STREAM)).isInstanceOf(PreconditionFailedException.class)
                .hasMessageContaining("is not sealed");
    }

    // =============================================================================================
    // segments
    // =============================================================================================

    @Test
    void getCurrentSegments() throws Exception {
        fake.reply("getCurrentSegments", SegmentRanges.newBuilder().addSegmentRanges(range(SEG1, 0.5, 1.0))
                .addSegmentRanges(range(SEG0, 0.0, 0.5)).setDelegationToken("tok").build());
        StreamSegments segments = client.currentSegments(STREAM);
        assertThat(segments.ranges()).containsExactly(new SegmentWithRange(SEG0, 0.0, 0.5),
                new SegmentWithRange(SEG1, 0.5, 1.0));
        assertThat(segments.delegationToken()).isEqualTo("tok");
        assertThat(fake.<StreamInfo>request("getCurrentSegments")).isEqualTo(STREAM_INFO);
    }

    @Test
    void getEpochSegments() throws Exception {
        fake.reply("getEpochSegments", SegmentRanges.newBuilder().addSegmentRanges(range(SEG1, 0.0, 1.0)).build());
        assertThat(client.epochSegments(STREAM, 2).segments()).containsExactly(SEG1);
        GetEpochSegmentsRequest sent = fake.request("getEpochSegments");
        assertThat(sent.getStreamInfo()).isEqualTo(STREAM_INFO);
        assertThat(sent.getEpoch()).isEqualTo(2);
    }

    @Test
    void getSegmentsAtTime() throws Exception {
        fake.reply("getSegments", SegmentsAtTime.newBuilder()
                .addSegments(SegmentsAtTime.SegmentLocation.newBuilder().setSegmentId(id(SEG0)).setOffset(10))
                .addSegments(SegmentsAtTime.SegmentLocation.newBuilder().setSegmentId(id(SEG1)).setOffset(20))
                .setDelegationToken("tok").build());
        assertThat(client.segmentsAtTime(STREAM, 1234)).isEqualTo(cut());
        GetSegmentsRequest sent = fake.request("getSegments");
        assertThat(sent.getStreamInfo()).isEqualTo(STREAM_INFO);
        assertThat(sent.getTimestamp()).isEqualTo(1234);
        assertThat(client.headStreamCut(STREAM)).isEqualTo(cut());
        assertThat(fake.<GetSegmentsRequest>request("getSegments").getTimestamp()).isZero();
    }

    @Test
    void getSegmentsImmediatelyFollowing() throws Exception {
        Segment s2 = Segment.of(STREAM, 2, 1);
        Segment s3 = Segment.of(STREAM, 3, 1);
        fake.reply("getSegmentsImmediatelyFollowing", SuccessorResponse.newBuilder()
                .addSegments(SuccessorResponse.SegmentEntry.newBuilder().setSegment(range(s2, 0.0, 0.25))
                        .addValue(SEG0.segmentId()))
                .addSegments(SuccessorResponse.SegmentEntry.newBuilder().setSegment(range(s3, 0.25, 0.5))
                        .addValue(SEG0.segmentId()).addValue(SEG1.segmentId()))
                .setDelegationToken("tok").build());
        SegmentSuccessors successors = client.successors(SEG0);
        assertThat(successors.successors()).containsExactly(
                Map.entry(new SegmentWithRange(s2, 0.0, 0.25), List.of(SEG0)),
                Map.entry(new SegmentWithRange(s3, 0.25, 0.5), List.of(SEG0, SEG1)));
        assertThat(successors.delegationToken()).isEqualTo("tok");
        assertThat(fake.<SegmentId>request("getSegmentsImmediatelyFollowing")).isEqualTo(id(SEG0));
    }

    @Test
    void getSegmentsBetween() throws Exception {
        fake.reply("getSegmentsBetween", StreamCutRangeResponse.newBuilder().addSegments(id(SEG1))
                .addSegments(id(SEG0)).setDelegationToken("tok").build());
        SegmentSet set = client.segmentsBetween(STREAM, cut(), StreamCut.UNBOUNDED);
        assertThat(set.segments()).containsExactly(SEG0, SEG1);
        assertThat(set.delegationToken()).isEqualTo("tok");
        StreamCutRange sent = fake.request("getSegmentsBetween");
        assertThat(sent.getStreamInfo()).isEqualTo(STREAM_INFO);
        assertThat(sent.getFromMap()).isEqualTo(Map.of(SEG0.segmentId(), 10L, SEG1.segmentId(), 20L));
        assertThat(sent.getToMap()).isEmpty();
    }

    @Test
    void getUri() throws Exception {
        fake.reply("getURI", NodeUri.newBuilder().setEndpoint("store-1").setPort(12345).build());
        assertThat(client.endpointFor(SEG1)).isEqualTo(new Endpoint("store-1", 12345));
        assertThat(fake.<SegmentId>request("getURI")).isEqualTo(id(SEG1));
    }

    @Test
    void isSegmentValid() throws Exception {
        fake.reply("isSegmentValid", SegmentValidityResponse.newBuilder().setResponse(true).build());
        assertThat(client.isSegmentValid(SEG0)).isTrue();
        assertThat(fake.<SegmentId>request("isSegmentValid")).isEqualTo(id(SEG0));
    }

    @Test
    void isStreamCutValid() throws Exception {
        fake.reply("isStreamCutValid", StreamCutValidityResponse.newBuilder().setResponse(false).build());
        assertThat(client.isStreamCutValid(STREAM, cut())).isFalse();
        assertThat(fake.<io.sluice.controller.grpc.v1.StreamCut>request("isStreamCutValid")).isEqualTo(cutProto());
    }

    // =============================================================================================
    // scaling
    // =============================================================================================

    @Test
    void scale() throws Exception {
        Segment s2 = Segment.of(STREAM, 2, 1);
        Segment s3 = Segment.of(STREAM, 3, 1);
        fake.reply("scale", ScaleResponse.newBuilder().setStatus(ScaleResponse.ScaleStreamStatus.STARTED)
                        .addSegments(range(s2, 0.0, 0.25)).addSegments(range(s3, 0.25, 0.5)).setEpoch(1).build(),
                ScaleResponse.newBuilder().setStatus(ScaleResponse.ScaleStreamStatus.PRECONDITION_FAILED).build());
        long before = System.currentTimeMillis();
        ScaleResult result = client.scale(STREAM, List.of(SEG0), List.of(new KeyRange(0, 0.25),
                new KeyRange(0.25, 0.5)));
        assertThat(result).isEqualTo(new ScaleResult(true, 1, List.of(new SegmentWithRange(s2, 0.0, 0.25),
                new SegmentWithRange(s3, 0.25, 0.5))));
        ScaleRequest sent = fake.request("scale");
        assertThat(sent.getStreamInfo()).isEqualTo(STREAM_INFO);
        assertThat(sent.getSealedSegmentsList()).containsExactly(SEG0.segmentId());
        assertThat(sent.getNewKeyRangesList()).extracting(ScaleRequest.KeyRangeEntry::getStart,
                ScaleRequest.KeyRangeEntry::getEnd).containsExactly(
                        org.assertj.core.groups.Tuple.tuple(0.0, 0.25), org.assertj.core.groups.Tuple.tuple(0.25, 0.5));
        assertThat(sent.getScaleTimestamp()).isBetween(before, System.currentTimeMillis());
        assertThat(client.scale(STREAM, List.of(SEG0), List.of(new KeyRange(0, 0.5))).started()).isFalse();
    }

    @Test
    void checkScale() throws Exception {
        fake.reply("checkScale", ScaleStatusResponse.newBuilder()
                        .setStatus(ScaleStatusResponse.ScaleStatus.IN_PROGRESS).build(),
                ScaleStatusResponse.newBuilder().setStatus(ScaleStatusResponse.ScaleStatus.SUCCESS).build());
        assertThat(client.checkScale(STREAM, 3)).isFalse();
        ScaleStatusRequest sent = fake.request("checkScale");
        assertThat(sent.getStreamInfo()).isEqualTo(STREAM_INFO);
        assertThat(sent.getEpoch()).isEqualTo(3);
        assertThat(client.checkScale(STREAM, 3)).isTrue();
    }

    // =============================================================================================
    // transactions
    // =============================================================================================

    @Test
    void createTransaction() throws Exception {
        fake.reply("createTransaction", CreateTxnResponse.newBuilder().setTxnId(ProtoMapper.txnId(TXN))
                .addActiveSegments(range(SEG0, 0, 1)).setDelegationToken("tok").build());
        TxnSegments txn = client.createTransaction(STREAM, Duration.ofSeconds(30));
        assertThat(txn.txnId()).isEqualTo(TXN);
        assertThat(txn.segments()).isEqualTo(new StreamSegments(List.of(new SegmentWithRange(SEG0, 0, 1)), "tok"));
        CreateTxnRequest sent = fake.request("createTransaction");
        assertThat(sent.getStreamInfo()).isEqualTo(STREAM_INFO);
        assertThat(sent.getLease()).isEqualTo(30_000L);
    }

    @Test
    void pingTransaction() throws Exception {
        fake.reply("pingTransaction", PingTxnStatus.newBuilder().setStatus(PingTxnStatus.Status.OK).build(),
                PingTxnStatus.newBuilder().setStatus(PingTxnStatus.Status.COMMITTED).build(),
                PingTxnStatus.newBuilder().setStatus(PingTxnStatus.Status.MAX_EXECUTION_TIME_EXCEEDED).build());
        assertThat(client.pingTransaction(STREAM, TXN, Duration.ofSeconds(10))).isEqualTo(TxnState.OPEN);
        PingTxnRequest sent = fake.request("pingTransaction");
        assertThat(sent.getStreamInfo()).isEqualTo(STREAM_INFO);
        assertThat(ProtoMapper.uuid(sent.getTxnId())).isEqualTo(TXN);
        assertThat(sent.getTxnId().getHighBits()).isEqualTo(0x0000000200000007L);
        assertThat(sent.getTxnId().getLowBits()).isEqualTo(42L);
        assertThat(sent.getLease()).isEqualTo(10_000L);
        assertThat(client.pingTransaction(STREAM, TXN, Duration.ofSeconds(10))).isEqualTo(TxnState.COMMITTED);
        assertThatThrownBy(() -> client.pingTransaction(STREAM, TXN, Duration.ofSeconds(10)))
                .isInstanceOf(TransactionFailedException.class).hasMessageContaining("MAX_EXECUTION_TIME_EXCEEDED");
    }

    @Test
    void commitTransaction() throws Exception {
        fake.reply("commitTransaction", TxnStatus.newBuilder().setStatus(TxnStatus.Status.SUCCESS).build(),
                TxnStatus.newBuilder().setStatus(TxnStatus.Status.SUCCESS).build(),
                TxnStatus.newBuilder().setStatus(TxnStatus.Status.TRANSACTION_NOT_FOUND).build());
        client.commitTransaction(STREAM, TXN, "writer-1", OptionalLong.of(777));
        TxnRequest sent = fake.request("commitTransaction");
        assertThat(sent.getStreamInfo()).isEqualTo(STREAM_INFO);
        assertThat(ProtoMapper.uuid(sent.getTxnId())).isEqualTo(TXN);
        assertThat(sent.getWriterId()).isEqualTo("writer-1");
        assertThat(sent.getTimestamp()).isEqualTo(777L);
        client.commitTransaction(STREAM, TXN, "writer-1", OptionalLong.empty());
        assertThat(fake.<TxnRequest>request("commitTransaction").getTimestamp()).isEqualTo(Long.MIN_VALUE);
        assertThatThrownBy(() -> client.commitTransaction(STREAM, TXN, "writer-1", OptionalLong.empty()))
                .isInstanceOf(TransactionFailedException.class).hasMessageContaining("already committed or aborted");
    }

    @Test
    void abortTransaction() throws Exception {
        fake.reply("abortTransaction", TxnStatus.newBuilder().setStatus(TxnStatus.Status.SUCCESS).build(),
                TxnStatus.newBuilder().setStatus(TxnStatus.Status.STREAM_NOT_FOUND).build());
        client.abortTransaction(STREAM, TXN);
        TxnRequest sent = fake.request("abortTransaction");
        assertThat(sent.getStreamInfo()).isEqualTo(STREAM_INFO);
        assertThat(ProtoMapper.uuid(sent.getTxnId())).isEqualTo(TXN);
        assertThatThrownBy(() -> client.abortTransaction(STREAM, TXN)).isInstanceOf(NoSuchStreamException.class);
    }

    @Test
    void checkTransactionState() throws Exception {
        fake.reply("checkTransactionState", io.sluice.controller.grpc.v1.TxnState.newBuilder()
                        .setState(io.sluice.controller.grpc.v1.TxnState.State.COMMITTING).build(),
                io.sluice.controller.grpc.v1.TxnState.newBuilder()
                        .setState(io.sluice.controller.grpc.v1.TxnState.State.UNKNOWN).build());
        assertThat(client.transactionState(STREAM, TXN)).isEqualTo(TxnState.COMMITTING);
        TxnRequest sent = fake.request("checkTransactionState");
        assertThat(sent.getStreamInfo()).isEqualTo(STREAM_INFO);
        assertThat(ProtoMapper.uuid(sent.getTxnId())).isEqualTo(TXN);
        assertThatThrownBy(() -> client.transactionState(STREAM, TXN)).isInstanceOf(TransactionFailedException.class)
                .hasMessageContaining("not known");
    }

    @Test
    void listCompletedTransactions() throws Exception {
        UUID other = UUID.randomUUID();
        fake.reply("listCompletedTransactions", ListCompletedTxnResponse.newBuilder()
                .addResponse(TxnResponse.newBuilder().setTxnId(ProtoMapper.txnId(TXN))
                        .setStatus(TxnResponse.Status.COMMITTED))
                .addResponse(TxnResponse.newBuilder().setTxnId(ProtoMapper.txnId(other))
                        .setStatus(TxnResponse.Status.ABORTED)).build());
        assertThat(client.listCompletedTransactions(STREAM)).containsExactly(
                new TransactionInfo(STREAM, TXN, TxnState.COMMITTED),
                new TransactionInfo(STREAM, other, TxnState.ABORTED));
        assertThat(fake.<ListCompletedTxnRequest>request("listCompletedTransactions").getStreamInfo())
                .isEqualTo(STREAM_INFO);
    }

    // =============================================================================================
    // auth and watermarks
    // =============================================================================================

    @Test
    void getDelegationToken() throws Exception {
        fake.reply("getDelegationToken", DelegationToken.newBuilder().setDelegationToken("jwt").build());
        assertThat(client.delegationToken(STREAM, AccessOperation.READ_WRITE)).isEqualTo("jwt");
        StreamInfo sent = fake.request("getDelegationToken");
        assertThat(sent.getScope()).isEqualTo("sc");
        assertThat(sent.getStream()).isEqualTo("st");
        assertThat(sent.getAccessOperation()).isEqualTo(StreamInfo.AccessOperation.READ_WRITE);
    }

    @Test
    void anEmptyTokenFromGetDelegationTokenSaysTheControllerGrantsEmptyTokens() throws Exception {
        fake.reply("getDelegationToken", DelegationToken.newBuilder().setDelegationToken("jwt").build(),
                DelegationToken.newBuilder().setDelegationToken("").build());
        client.delegationToken(STREAM, AccessOperation.READ);
        assertThat(client.grantsEmptyTokens()).as("after a real token").isFalse();
        assertThat(client.delegationToken(STREAM, AccessOperation.READ)).isEmpty();
        assertThat(client.grantsEmptyTokens()).isTrue();
    }

    @Test
    void anEmptyTokenWithTheCurrentSegmentsSaysTheControllerGrantsEmptyTokens() throws Exception {
        fake.reply("getCurrentSegments",
                SegmentRanges.newBuilder().addSegmentRanges(range(SEG0, 0.0, 1.0)).setDelegationToken("tok").build(),
                SegmentRanges.newBuilder().addSegmentRanges(range(SEG0, 0.0, 1.0)).build());
        client.currentSegments(STREAM);
        assertThat(client.grantsEmptyTokens()).as("after a real token").isFalse();
        client.currentSegments(STREAM);
        assertThat(client.grantsEmptyTokens()).isTrue();
    }

    @Test
    void removeWriter() throws Exception {
        fake.reply("removeWriter", RemoveWriterResponse.newBuilder().setResult(RemoveWriterResponse.Status.SUCCESS)
                .build(),
                RemoveWriterResponse.newBuilder().setResult(RemoveWriterResponse.Status.UNKNOWN_WRITER).build());
        assertThat(client.removeWriter("w1", STREAM)).isTrue();
        RemoveWriterRequest sent = fake.request("removeWriter");
        assertThat(sent.getWriter()).isEqualTo("w1");
        assertThat(sent.getStream()).isEqualTo(STREAM_INFO);
        assertThat(client.removeWriter("w1", STREAM)).isFalse();
    }

    @Test
    void noteTimestampFromWriter() throws Exception {
        fake.reply("noteTimestampFromWriter", TimestampResponse.newBuilder()
                        .setResult(TimestampResponse.Status.SUCCESS).build(),
                TimestampResponse.newBuilder().setResult(TimestampResponse.Status.INVALID_TIME).build());
        client.noteTimestampFromWriter("w1", STREAM, 5555, cut());
        TimestampFromWriter sent = fake.request("noteTimestampFromWriter");
        assertThat(sent.getWriter()).isEqualTo("w1");
        assertThat(sent.getTimestamp()).isEqualTo(5555L);
        assertThat(sent.getPosition()).isEqualTo(cutProto());
        assertThatThrownBy(() -> client.noteTimestampFromWriter("w1", STREAM, 5555, cut()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rejected time 5555");
    }

    // =============================================================================================
    // reader groups and subscribers
    // =============================================================================================

    private static ReaderGroupConfig rgConfig() {
        return ReaderGroupConfig.builder().stream(STREAM, cut())
                .stream(ScopedStream.of("sc", "other"), StreamCut.UNBOUNDED, StreamCut.UNBOUNDED)
                .groupRefreshTimeMillis(1000).automaticCheckpointIntervalMillis(2000)
                .maxOutstandingCheckpointRequest(5)
                .retentionType(ReaderGroupConfig.StreamDataRetention.AUTOMATIC_RELEASE_AT_LAST_CHECKPOINT)
                .rolloverSizeBytes(4096).build();
    }

    private static void assertRgConfig(ReaderGroupConfiguration sent, UUID id, long generation) {
        assertThat(sent.getScope()).isEqualTo("sc");
        assertThat(sent.getReaderGroupName()).isEqualTo("rg");
        assertThat(sent.getGroupRefreshTimeMillis()).isEqualTo(1000L);
        assertThat(sent.getAutomaticCheckpointIntervalMillis()).isEqualTo(2000L);
        assertThat(sent.getMaxOutstandingCheckpointRequest()).isEqualTo(5);
        assertThat(sent.getRetentionType()).isEqualTo(2);
        assertThat(sent.getGeneration()).isEqualTo(generation);
        assertThat(sent.getReaderGroupId()).isEqualTo(id.toString());
        assertThat(sent.getRolloverSizeBytes()).isEqualTo(4096L);
        assertThat(sent.getStartingStreamCutsList()).containsExactly(
                io.sluice.controller.grpc.v1.StreamCut.newBuilder()
                        .setStreamInfo(StreamInfo.newBuilder().setScope("sc").setStream("other")).build(),
                cutProto());
        assertThat(sent.getEndingStreamCutsList()).extracting(c -> c.getStreamInfo().getStream(),
                io.sluice.controller.grpc.v1.StreamCut::getCutCount).containsExactly(
                        org.assertj.core.groups.Tuple.tuple("other", 0), org.assertj.core.groups.Tuple.tuple("st", 0));
    }

    @Test
    void createReaderGroup() throws Exception {
        UUID id = UUID.randomUUID();
        ReaderGroupConfig assigned = rgConfig().withIdentity(id, 0);
        fake.reply("createReaderGroup", CreateReaderGroupResponse.newBuilder()
                        .setStatus(CreateReaderGroupResponse.Status.SUCCESS)
                        .setConfig(ProtoMapper.toProto("sc", "rg", assigned)).build(),
                CreateReaderGroupResponse.newBuilder().setStatus(CreateReaderGroupResponse.Status.SCOPE_NOT_FOUND)
                        .build());
        assertThat(client.createReaderGroup("sc", "rg", rgConfig())).isEqualTo(assigned);
        assertRgConfig(fake.request("createReaderGroup"), ReaderGroupConfig.DEFAULT_READER_GROUP_ID, -1);
        assertThatThrownBy(() -> client.createReaderGroup("sc", "rg", rgConfig()))
                .isInstanceOf(NoSuchScopeException.class);
    }

    @Test
    void getReaderGroupConfig() throws Exception {
        UUID id = UUID.randomUUID();
        ReaderGroupConfig stored = rgConfig().withIdentity(id, 3);
        fake.reply("getReaderGroupConfig", ReaderGroupConfigResponse.newBuilder()
                        .setStatus(ReaderGroupConfigResponse.Status.SUCCESS)
                        .setConfig(ProtoMapper.toProto("sc", "rg", stored)).build(),
                ReaderGroupConfigResponse.newBuilder().setStatus(ReaderGroupConfigResponse.Status.RG_NOT_FOUND)
                        .build());
        assertThat(client.readerGroupConfig("sc", "rg")).isEqualTo(stored);
        ReaderGroupInfo sent = fake.request("getReaderGroupConfig");
        assertThat(sent.getScope()).isEqualTo("sc");
        assertThat(sent.getReaderGroup()).isEqualTo("rg");
        assertThat(sent.getReaderGroupId()).isEmpty();
        assertThat(sent.getGeneration()).isZero();
        assertThatThrownBy(() -> client.readerGroupConfig("sc", "rg")).isInstanceOf(NoSuchStreamException.class)
                .hasMessage("reader group 'sc/rg' does not exist");
    }

    @Test
    void updateReaderGroup() throws Exception {
        UUID id = UUID.randomUUID();
        fake.reply("updateReaderGroup", UpdateReaderGroupResponse.newBuilder()
                        .setStatus(UpdateReaderGroupResponse.Status.SUCCESS).setGeneration(4).build(),
                UpdateReaderGroupResponse.newBuilder().setStatus(UpdateReaderGroupResponse.Status.INVALID_CONFIG)
                        .build());
        assertThat(client.updateReaderGroup("sc", "rg", rgConfig().withIdentity(id, 3))).isEqualTo(4L);
        assertRgConfig(fake.request("updateReaderGroup"), id, 3);
        assertThatThrownBy(() -> client.updateReaderGroup("sc", "rg", rgConfig()))
                .isInstanceOf(PreconditionFailedException.class);
    }

    @Test
    void deleteReaderGroup() throws Exception {
        UUID id = UUID.randomUUID();
        fake.reply("deleteReaderGroup", DeleteReaderGroupStatus.newBuilder()
                        .setStatus(DeleteReaderGroupStatus.Status.SUCCESS).build(),
                DeleteReaderGroupStatus.newBuilder().setStatus(DeleteReaderGroupStatus.Status.RG_NOT_FOUND).build());
        assertThat(client.deleteReaderGroup("sc", "rg", id)).isTrue();
        ReaderGroupInfo sent = fake.request("deleteReaderGroup");
        assertThat(sent.getScope()).isEqualTo("sc");
        assertThat(sent.getReaderGroup()).isEqualTo("rg");
        assertThat(sent.getReaderGroupId()).isEqualTo(id.toString());
        assertThat(client.deleteReaderGroup("sc", "rg", id)).isFalse();
    }

    @Test
    void listSubscribers() throws Exception {
        fake.reply("listSubscribers", SubscribersResponse.newBuilder().addSubscribers("sc/rg1")
                        .addSubscribers("sc/rg2").setStatus(SubscribersResponse.Status.SUCCESS).build(),
                SubscribersResponse.newBuilder().setStatus(SubscribersResponse.Status.STREAM_NOT_FOUND).build());
        assertThat(client.listSubscribers(STREAM)).containsExactly("sc/rg1", "sc/rg2");
        assertThat(fake.<StreamInfo>request("listSubscribers")).isEqualTo(STREAM_INFO);
        assertThatThrownBy(() -> client.listSubscribers(STREAM)).isInstanceOf(NoSuchStreamException.class);
    }

    @Test
    void updateSubscriberStreamCut() throws Exception {
        UUID id = UUID.randomUUID();
        fake.reply("updateSubscriberStreamCut", UpdateSubscriberStatus.newBuilder()
                        .setStatus(UpdateSubscriberStatus.Status.SUCCESS).build(),
                UpdateSubscriberStatus.newBuilder().setStatus(UpdateSubscriberStatus.Status.GENERATION_MISMATCH)
                        .build());
        client.updateSubscriberStreamCut(STREAM, "sc/rg", id, 7, cut());
        SubscriberStreamCut sent = fake.request("updateSubscriberStreamCut");
        assertThat(sent.getSubscriber()).isEqualTo("sc/rg");
        assertThat(sent.getGeneration()).isEqualTo(7L);
        assertThat(sent.getReaderGroupId()).isEqualTo(id.toString());
        assertThat(sent.getStreamCut()).isEqualTo(cutProto());
        assertThatThrownBy(() -> client.updateSubscriberStreamCut(STREAM, "sc/rg", id, 7, cut()))
                .isInstanceOf(PreconditionFailedException.class);
    }

    // =============================================================================================
    // key-value tables
    // =============================================================================================

    @Test
    void createKeyValueTable() throws Exception {
        fake.reply("createKeyValueTable", CreateKeyValueTableStatus.newBuilder()
                        .setStatus(CreateKeyValueTableStatus.Status.SUCCESS).build(),
                CreateKeyValueTableStatus.newBuilder().setStatus(CreateKeyValueTableStatus.Status.TABLE_EXISTS)
                        .build());
        assertThat(client.createKeyValueTable("sc", "kvt", new KeyValueTableConfiguration(4, 8, 2, 512))).isTrue();
        KeyValueTableConfig sent = fake.request("createKeyValueTable");
        assertThat(sent.getScope()).isEqualTo("sc");
        assertThat(sent.getKvtName()).isEqualTo("kvt");
        assertThat(sent.getPartitionCount()).isEqualTo(4);
        assertThat(sent.getPrimaryKeyLength()).isEqualTo(8);
        assertThat(sent.getSecondaryKeyLength()).isEqualTo(2);
        assertThat(sent.getRolloverSizeBytes()).isEqualTo(512L);
        assertThat(client.createKeyValueTable("sc", "kvt", new KeyValueTableConfiguration(4, 8, 2, 512))).isFalse();
    }

    @Test
    void getCurrentSegmentsKeyValueTable() throws Exception {
        Segment p0 = new Segment("sc", "kvt", 0);
        fake.reply("getCurrentSegmentsKeyValueTable", SegmentRanges.newBuilder()
                .addSegmentRanges(io.sluice.controller.grpc.v1.SegmentRange.newBuilder().setSegmentId(SegmentId
                        .newBuilder().setStreamInfo(StreamInfo.newBuilder().setScope("sc").setStream("kvt"))
                        .setSegmentId(0)).setMinKey(0).setMaxKey(1))
                .setDelegationToken("tok").build());
        assertThat(client.keyValueTableSegments("sc", "kvt"))
                .isEqualTo(new StreamSegments(List.of(new SegmentWithRange(p0, 0, 1)), "tok"));
        KeyValueTableInfo sent = fake.request("getCurrentSegmentsKeyValueTable");
        assertThat(sent.getScope()).isEqualTo("sc");
        assertThat(sent.getKvtName()).isEqualTo("kvt");
    }

    @Test
    void listKeyValueTablesInScope() throws Exception {
        fake.reply("listKeyValueTablesInScope", KVTablesInScopeResponse.newBuilder()
                        .addKvtables(KeyValueTableInfo.newBuilder().setScope("sc").setKvtName("t1"))
                        .addKvtables(KeyValueTableInfo.newBuilder().setScope("sc").setKvtName("t2"))
                        .setContinuationToken(token("k1")).build(),
                KVTablesInScopeResponse.getDefaultInstance());
        assertThat(client.listKeyValueTables("sc")).containsExactly("t1", "t2");
        KVTablesInScopeRequest first = fake.request("listKeyValueTablesInScope");
        assertThat(first.getScope().getScope()).isEqualTo("sc");
        assertThat(first.getContinuationToken().getToken()).isEmpty();
        assertThat(fake.<KVTablesInScopeRequest>request("listKeyValueTablesInScope").getContinuationToken().getToken())
                .isEqualTo("k1");
    }

    @Test
    void getKeyValueTableConfiguration() throws Exception {
        fake.reply("getKeyValueTableConfiguration", KeyValueTableConfigResponse.newBuilder()
                        .setStatus(KeyValueTableConfigResponse.Status.SUCCESS)
                        .setConfig(ProtoMapper.toProto("sc", "kvt", new KeyValueTableConfiguration(3, 4, 0, 0)))
                        .build(),
                KeyValueTableConfigResponse.newBuilder().setStatus(KeyValueTableConfigResponse.Status.TABLE_NOT_FOUND)
                        .build());
        assertThat(client.keyValueTableConfiguration("sc", "kvt"))
                .isEqualTo(new KeyValueTableConfiguration(3, 4, 0, 0));
        KeyValueTableInfo sent = fake.request("getKeyValueTableConfiguration");
        assertThat(sent.getScope()).isEqualTo("sc");
        assertThat(sent.getKvtName()).isEqualTo("kvt");
        assertThatThrownBy(() -> client.keyValueTableConfiguration("sc", "kvt"))
                .isInstanceOf(NoSuchStreamException.class).hasMessage("key-value table 'sc/kvt' does not exist");
    }

    @Test
    void deleteKeyValueTable() throws Exception {
        fake.reply("deleteKeyValueTable", DeleteKVTableStatus.newBuilder()
                        .setStatus(DeleteKVTableStatus.Status.SUCCESS).build(),
                DeleteKVTableStatus.newBuilder().setStatus(DeleteKVTableStatus.Status.TABLE_NOT_FOUND).build());
        assertThat(client.deleteKeyValueTable("sc", "kvt")).isTrue();
        KeyValueTableInfo sent = fake.request("deleteKeyValueTable");
        assertThat(sent.getScope()).isEqualTo("sc");
        assertThat(sent.getKvtName()).isEqualTo("kvt");
        assertThat(client.deleteKeyValueTable("sc", "kvt")).isFalse();
    }

    // =============================================================================================
    // retries, deadlines, errors, credentials
    // =============================================================================================

    @Test
    void retriesUnavailableAndSucceedsOnTheThirdAttempt() throws Exception {
        fake.reply("checkScopeExists", Status.UNAVAILABLE.withDescription("down"),
                Status.UNAVAILABLE.withDescription("still down"), ExistsResponse.newBuilder().setExists(true).build());
        assertThat(client.scopeExists("sc")).isTrue();
        fake.take("checkScopeExists");
        fake.take("checkScopeExists");
        fake.take("checkScopeExists");
        assertThat(fake.pendingCalls()).isZero();
    }

    @Test
    void givesUpAfterTheRetryPolicysAttempts() throws Exception {
        fake.reply("checkScopeExists", Status.UNAVAILABLE.withDescription("down"));
        assertThatThrownBy(() -> client.scopeExists("sc")).isInstanceOf(RetriesExhaustedException.class)
                .hasMessageContaining("after 5 attempts").cause().isInstanceOf(ConnectionFailedException.class);
        assertThat(fake.pendingCalls()).isEqualTo(5);
    }

    @Test
    void doesNotRetryInvalidArgument() throws Exception {
        fake.reply("checkScopeExists", Status.INVALID_ARGUMENT.withDescription("bad"),
                ExistsResponse.newBuilder().setExists(true).build());
        assertThatThrownBy(() -> client.scopeExists("sc")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("INVALID_ARGUMENT: bad");
        fake.take("checkScopeExists");
        assertThat(fake.pendingCalls()).isZero();
    }

    @Test
    void deadlineExceededWhenTheControllerNeverAnswers() throws Exception {
        fake.reply("checkScopeExists", FakeController.HANG);
        try (GrpcControllerClient impatient = client(config().rpcTimeout(Duration.ofMillis(200))
                .retry(Retry.none()).build())) {
            assertThatThrownBy(() -> impatient.scopeExists("sc")).isInstanceOf(DeadlineExceededException.class);
        }
        fake.take("checkScopeExists");
    }

    @Test
    void operationTimeoutBoundsTheRetries() throws Exception {
        fake.reply("checkScopeExists", FakeController.HANG);
        try (GrpcControllerClient impatient = client(config().rpcTimeout(Duration.ofMillis(150))
                .operationTimeout(Duration.ofMillis(400))
                .retry(Retry.withExpBackoff(Duration.ofMillis(1), 1, 100, Duration.ofMillis(1))).build())) {
            assertThatThrownBy(() -> impatient.scopeExists("sc")).isInstanceOf(RetriesExhaustedException.class)
                    .cause().isInstanceOf(DeadlineExceededException.class);
        }
        int attempts = fake.pendingCalls();
        assertThat(attempts).isBetween(2, 4);
    }

    @Test
    void sendsTheAuthorizationHeaderWhenCredentialsAreConfigured() throws Exception {
        fake.reply("checkScopeExists", ExistsResponse.newBuilder().setExists(true).build());
        Credentials basic = new Credentials() {
            @Override
            public String method() {
                return "Basic";
            }

            @Override
            public String token() {
                return "YWRtaW46MTExMV9hYWFh";
            }
        };
        try (GrpcControllerClient authed = client(config().credentials(basic).build())) {
            authed.scopeExists("sc");
        }
        FakeController.Call call = fake.take("checkScopeExists");
        assertThat(call.headers().get(AuthorizationCredentials.AUTHORIZATION)).isEqualTo("Basic YWRtaW46MTExMV9hYWFh");
    }

    @Test
    void sendsNoAuthorizationHeaderWithoutCredentials() throws Exception {
        fake.reply("checkScopeExists", ExistsResponse.newBuilder().setExists(true).build());
        client.scopeExists("sc");
        assertThat(fake.take("checkScopeExists").headers().get(AuthorizationCredentials.AUTHORIZATION)).isNull();
    }

    @Test
    void credentialsThatFailToProduceATokenFailTheCall() {
        Credentials broken = new Credentials() {
            @Override
            public String method() {
                return "Bearer";
            }

            @Override
            public String token() {
                throw new IllegalStateException("keycloak is down");
            }
        };
        try (GrpcControllerClient authed = client(config().credentials(broken).build())) {
            assertThatThrownBy(() -> authed.scopeExists("sc")).isInstanceOf(AuthenticationException.class)
                    .hasMessageContaining("keycloak is down");
        }
        assertThat(fake.pendingCalls()).isZero();
    }

    @Test
    void mapsAuthErrorsAndUnimplemented() {
        fake.reply("checkScopeExists", Status.UNAUTHENTICATED.withDescription("who?"),
                Status.PERMISSION_DENIED.withDescription("no"), Status.UNIMPLEMENTED);
        assertThatThrownBy(() -> client.scopeExists("sc")).isInstanceOf(AuthenticationException.class);
        assertThatThrownBy(() -> client.scopeExists("sc")).isInstanceOf(AuthorizationException.class);
        assertThatThrownBy(() -> client.scopeExists("sc")).isInstanceOf(IncompatibleServerException.class);
    }

    @Test
    void closedClientRefusesCalls() {
        client.close();
        client.close();
        assertThatThrownBy(() -> client.scopeExists("sc")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void interruptedCallerGetsStreamingInterrupted() throws Exception {
        fake.reply("checkScopeExists", FakeController.HANG);
        var failure = new java.util.concurrent.CompletableFuture<Throwable>();
        Thread caller = Thread.ofVirtual().start(() -> {
            try {
                client.scopeExists("sc");
                failure.complete(null);
            } catch (Throwable t) {
                failure.complete(t);
            }
        });
        fake.take("checkScopeExists");
        caller.interrupt();
        assertThat(failure.get(10, java.util.concurrent.TimeUnit.SECONDS))
                .isInstanceOf(io.sluice.errors.StreamingInterruptedException.class);
        caller.join();
    }

    private static ContinuationToken token(String t) {
        return ContinuationToken.newBuilder().setToken(t).build();
    }

    private static CreateScopeStatus status(CreateScopeStatus.Status s) {
        return CreateScopeStatus.newBuilder().setStatus(s).build();
    }

    private static DeleteScopeStatus status(DeleteScopeStatus.Status s) {
        return DeleteScopeStatus.newBuilder().setStatus(s).build();
    }

    private static CreateStreamStatus status(CreateStreamStatus.Status s) {
        return CreateStreamStatus.newBuilder().setStatus(s).build();
    }

    private static UpdateStreamStatus status(UpdateStreamStatus.Status s) {
        return UpdateStreamStatus.newBuilder().setStatus(s).build();
    }

    private static DeleteStreamStatus status(DeleteStreamStatus.Status s) {
        return DeleteStreamStatus.newBuilder().setStatus(s).build();
    }
}
