package io.sluice.server.controller;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sluice.controller.grpc.v1.ContinuationToken;
import io.sluice.controller.grpc.v1.ControllerToBucketMappingRequest;
import io.sluice.controller.grpc.v1.CreateScopeStatus;
import io.sluice.controller.grpc.v1.CreateStreamStatus;
import io.sluice.controller.grpc.v1.DeleteScopeStatus;
import io.sluice.controller.grpc.v1.DeleteStreamStatus;
import io.sluice.controller.grpc.v1.NodeUri;
import io.sluice.controller.grpc.v1.RetentionPolicy;
import io.sluice.controller.grpc.v1.ScalingPolicy;
import io.sluice.controller.grpc.v1.ScopeInfo;
import io.sluice.controller.grpc.v1.ScopesRequest;
import io.sluice.controller.grpc.v1.ScopesResponse;
import io.sluice.controller.grpc.v1.SegmentRange;
import io.sluice.controller.grpc.v1.ServerRequest;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.controller.grpc.v1.StreamsInScopeRequest;
import io.sluice.controller.grpc.v1.StreamsInScopeResponse;
import io.sluice.controller.grpc.v1.StreamsInScopeWithTagRequest;
import io.sluice.controller.grpc.v1.Tags;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;

import static io.sluice.server.controller.ControllerHarness.fixed;
import static io.sluice.server.controller.ControllerHarness.id;
import static io.sluice.server.controller.ControllerHarness.info;
import static io.sluice.server.controller.ControllerHarness.segmentId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ScopesAndStreamsTest {
    private ControllerHarness h;

    @BeforeEach
    void start() {
        h = ControllerHarness.withPageSize(2);
    }

    @AfterEach
    void stop() throws InterruptedException {
        h.close();
    }

    private static ScopeInfo scope(String name) {
        return ScopeInfo.newBuilder().setScope(name).build();
    }

    @Test
    void scopesAreCreatedCheckedListedAndDeleted() {
        assertThat(h.stub.createScope(scope("a")).getStatus()).isEqualTo(CreateScopeStatus.Status.SUCCESS);
        assertThat(h.stub.createScope(scope("a")).getStatus()).isEqualTo(CreateScopeStatus.Status.SCOPE_EXISTS);
        assertThat(h.stub.createScope(scope("bad name")).getStatus())
                .isEqualTo(CreateScopeStatus.Status.INVALID_SCOPE_NAME);
        assertThat(h.stub.createScope(scope("")).getStatus()).isEqualTo(CreateScopeStatus.Status.INVALID_SCOPE_NAME);
        assertThat(h.stub.createScope(scope("x".repeat(256))).getStatus())
                .isEqualTo(CreateScopeStatus.Status.INVALID_SCOPE_NAME);
        assertThat(h.stub.createScope(scope("_internal")).getStatus()).isEqualTo(CreateScopeStatus.Status.SUCCESS);
        h.createScope("b");
        h.createScope("c");

        assertThat(h.stub.checkScopeExists(scope("a")).getExists()).isTrue();
        assertThat(h.stub.checkScopeExists(scope("zz")).getExists()).isFalse();

        // page size 2: the Java client pages until a page comes back empty
        List<String> all = new ArrayList<>();
        String token = "";
        int pages = 0;
        while (true) {
            ScopesResponse page = h.stub.listScopes(ScopesRequest.newBuilder()
                    .setContinuationToken(ContinuationToken.newBuilder().setToken(token)).build());
            pages++;
            if (page.getScopesCount() == 0) {
                break;
            }
            assertThat(page.getScopesCount()).isLessThanOrEqualTo(2);
            all.addAll(page.getScopesList());
            token = page.getContinuationToken().getToken();
        }
        assertThat(all).containsExactly("_internal", "a", "b", "c");
        assertThat(pages).isEqualTo(3);

        assertThat(h.stub.deleteScope(scope("b")).getStatus()).isEqualTo(DeleteScopeStatus.Status.SUCCESS);
        assertThat(h.stub.deleteScope(scope("b")).getStatus()).isEqualTo(DeleteScopeStatus.Status.SCOPE_NOT_FOUND);
        h.createStream("a", "s", 1);
        assertThat(h.stub.deleteScope(scope("a")).getStatus()).isEqualTo(DeleteScopeStatus.Status.SCOPE_NOT_EMPTY);
    }

    @Test
    void recursiveDeleteSealsAndDeletesEverythingInTheScope() throws InterruptedException {
        h.createScope("sc");
        h.createStream("sc", "s1", 2);
        h.createStream("sc", "s2", 1);
        assertThat(h.stub.createReaderGroup(io.sluice.controller.grpc.v1.ReaderGroupConfiguration.newBuilder()
                .setScope("sc").setReaderGroupName("rg").build()).getStatus())
                .isEqualTo(io.sluice.controller.grpc.v1.CreateReaderGroupResponse.Status.SUCCESS);
        assertThat(h.stub.createKeyValueTable(io.sluice.controller.grpc.v1.KeyValueTableConfig.newBuilder()
                .setScope("sc").setKvtName("t").setPartitionCount(2).setPrimaryKeyLength(4).build()).getStatus())
                .isEqualTo(io.sluice.controller.grpc.v1.CreateKeyValueTableStatus.Status.SUCCESS);

        assertThat(h.stub.deleteScopeRecursive(scope("sc")).getStatus()).isEqualTo(DeleteScopeStatus.Status.SUCCESS);
        assertThat(h.stub.checkScopeExists(scope("sc")).getExists()).isFalse();
        assertThat(h.admin.segmentsStartingWith("sc/")).isEmpty();
        assertThat(h.admin.calls("seal sc/s1/")).hasSize(2);
        // Pravega answers SUCCESS for a scope that does not exist
        assertThat(h.stub.deleteScopeRecursive(scope("sc")).getStatus()).isEqualTo(DeleteScopeStatus.Status.SUCCESS);
        // and the names may be used again, with fresh segment numbers
        h.createScope("sc");
        h.createStream("sc", "s1", 1);
        assertThat(h.currentSegmentIds("sc", "s1")).containsExactly(id(2, 0));
    }

    @Test
    void streamCreationMakesEqualKeyRangesAndAWatermarkStream() {
        h.createScope("sc");
        assertThat(h.stub.createStream(fixed("sc", "s", 3)).getStatus()).isEqualTo(CreateStreamStatus.Status.SUCCESS);
        assertThat(h.stub.createStream(fixed("sc", "s", 3)).getStatus())
                .isEqualTo(CreateStreamStatus.Status.STREAM_EXISTS);
        assertThat(h.stub.createStream(fixed("nope", "s", 1)).getStatus())
                .isEqualTo(CreateStreamStatus.Status.SCOPE_NOT_FOUND);
        assertThat(h.stub.createStream(fixed("sc", "a b", 1)).getStatus())
                .isEqualTo(CreateStreamStatus.Status.INVALID_STREAM_NAME);
        assertThat(h.stub.createStream(fixed("sc", "a_b", 1)).getStatus())
                .isEqualTo(CreateStreamStatus.Status.INVALID_STREAM_NAME);
        assertThat(h.stub.createStream(fixed("sc", "", 1)).getStatus())
                .isEqualTo(CreateStreamStatus.Status.INVALID_STREAM_NAME);

        List<SegmentRange> ranges = h.currentSegments("sc", "s");
        assertThat(ranges).extracting(r -> r.getSegmentId().getSegmentId()).containsExactly(0L, 1L, 2L);
        assertThat(ranges.get(0).getMinKey()).isEqualTo(0.0);
        assertThat(ranges.get(0).getMaxKey()).isEqualTo(1.0 / 3);
        assertThat(ranges.get(1).getMinKey()).isEqualTo(1.0 / 3);
        assertThat(ranges.get(2).getMaxKey()).isBetween(1.0, 1.00001);
        assertThat(ranges.get(0).getSegmentId().getStreamInfo()).isEqualTo(info("sc", "s"));
        assertThat(h.admin.calls("create ")).containsExactly("create sc/s/0.#epoch.0", "create sc/s/1.#epoch.0",
                "create sc/s/2.#epoch.0", "create sc/_MARKs/0.#epoch.0");
        assertThat(h.stub.checkStreamExists(info("sc", "_MARKs")).getExists()).isTrue();
    }

    @Test
    void badConfigurationsAreInvalidArguments() {
        h.createScope("sc");
        StreamConfig zero = fixed("sc", "s", 0);
        assertThatThrownBy(() -> h.stub.createStream(zero)).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        StreamConfig byRate = fixed("sc", "s", 1).toBuilder().setScalingPolicy(ScalingPolicy.newBuilder()
                .setScaleType(ScalingPolicy.ScalingPolicyType.BY_RATE_IN_EVENTS_PER_SEC).setMinNumSegments(1)).build();
        assertThatThrownBy(() -> h.stub.createStream(byRate)).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getDescription()).contains("targetRate"));
        StreamConfig negativeRollover = fixed("sc", "s", 1).toBuilder().setRolloverSizeBytes(-1).build();
        assertThatThrownBy(() -> h.stub.createStream(negativeRollover))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    }

    @Test
    void configurationIsStoredNormalisedAndUpdated() {
        h.createScope("sc");
        StreamConfig config = fixed("sc", "s", 2).toBuilder()
                .setStreamInfo(info("sc", "s").toBuilder().setAccessOperation(StreamInfo.AccessOperation.READ))
                .setTags(Tags.newBuilder().addTag("blue").addTag("red").addTag("blue"))
                .setRetentionPolicy(RetentionPolicy.newBuilder()
                        .setRetentionType(RetentionPolicy.RetentionPolicyType.UNKNOWN))
                .setRolloverSizeBytes(1024).build();
        assertThat(h.stub.createStream(config).getStatus()).isEqualTo(CreateStreamStatus.Status.SUCCESS);
        StreamConfig stored = h.stub.getStreamConfiguration(info("sc", "s"));
        assertThat(stored.getStreamInfo()).isEqualTo(info("sc", "s"));
        assertThat(stored.getTags().getTagList()).containsExactly("blue", "red");
        assertThat(stored.hasRetentionPolicy()).isFalse();
        assertThat(stored.getRolloverSizeBytes()).isEqualTo(1024);

        StreamConfig updated = stored.toBuilder().setTags(Tags.newBuilder().addTag("green"))
                .setRetentionPolicy(RetentionPolicy.newBuilder().setRetentionType(RetentionPolicy.RetentionPolicyType.TIME)
                        .setRetentionParam(1000).setRetentionMax(5000)).build();
        assertThat(h.stub.updateStream(updated).getStatus()).isEqualTo(UpdateStreamStatus.Status.SUCCESS);
        assertThat(h.stub.getStreamConfiguration(info("sc", "s")).getTags().getTagList()).containsExactly("green");
        assertThat(h.stub.getStreamConfiguration(info("sc", "s")).getRetentionPolicy().getRetentionMax())
                .isEqualTo(5000);
        assertThat(h.stub.updateStream(fixed("sc", "nope", 1)).getStatus())
                .isEqualTo(UpdateStreamStatus.Status.STREAM_NOT_FOUND);

        assertThatThrownBy(() -> h.stub.getStreamConfiguration(info("sc", "nope")))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
    }

    @Test
    void updatingTheSegmentCountOfAFixedStreamScalesIt() {
        h.createScope("sc");
        h.createStream("sc", "s", 2);
        assertThat(h.stub.updateStream(fixed("sc", "s", 4)).getStatus()).isEqualTo(UpdateStreamStatus.Status.SUCCESS);
        List<SegmentRange> ranges = h.currentSegments("sc", "s");
        assertThat(ranges).extracting(r -> r.getSegmentId().getSegmentId())
                .containsExactly(id(2, 1), id(3, 1), id(4, 1), id(5, 1));
        assertThat(ranges).extracting(SegmentRange::getMinKey).containsExactly(0.0, 0.25, 0.5, 0.75);
        assertThat(h.admin.sealed("sc/s/0.#epoch.0")).isTrue();
        assertThat(h.admin.sealed("sc/s/1.#epoch.0")).isTrue();
        // the same count again changes nothing
        assertThat(h.stub.updateStream(fixed("sc", "s", 4)).getStatus()).isEqualTo(UpdateStreamStatus.Status.SUCCESS);
        assertThat(h.currentSegmentIds("sc", "s")).hasSize(4).allMatch(x -> (x >> 32) == 1);
    }

    @Test
    void streamsAreListedPageByPageIncludingInternalOnesAndByTag() {
        h.createScope("sc");
        h.createStream("sc", "a", 1);
        assertThat(h.stub.createStream(fixed("sc", "b", 1).toBuilder()
                .setTags(Tags.newBuilder().addTag("t1")).build()).getStatus())
                .isEqualTo(CreateStreamStatus.Status.SUCCESS);
        assertThat(h.stub.createStream(fixed("sc", "c", 1).toBuilder()
                .setTags(Tags.newBuilder().addTag("t1").addTag("t2")).build()).getStatus())
                .isEqualTo(CreateStreamStatus.Status.SUCCESS);

        List<String> names = new ArrayList<>();
        String token = "";
        while (true) {
            StreamsInScopeResponse page = h.stub.listStreamsInScope(StreamsInScopeRequest.newBuilder()
                    .setScope(scope("sc")).setContinuationToken(ContinuationToken.newBuilder().setToken(token))
                    .build());
            assertThat(page.getStatus()).isEqualTo(StreamsInScopeResponse.Status.SUCCESS);
            if (page.getStreamsCount() == 0) {
                break;
            }
            page.getStreamsList().forEach(s -> names.add(s.getStream()));
            token = page.getContinuationToken().getToken();
        }
        assertThat(names).containsExactly("_MARKa", "_MARKb", "_MARKc", "a", "b", "c");

        StreamsInScopeResponse tagged = h.stub.listStreamsInScopeForTag(StreamsInScopeWithTagRequest.newBuilder()
                .setScope(scope("sc")).setTag("t1").build());
        assertThat(tagged.getStreamsList()).extracting(StreamInfo::getStream).containsExactly("b", "c");
        assertThat(h.stub.listStreamsInScope(StreamsInScopeRequest.newBuilder().setScope(scope("nope")).build())
                .getStatus()).isEqualTo(StreamsInScopeResponse.Status.SCOPE_NOT_FOUND);
    }

    @Test
    void sealThenDeleteAndSegmentNumbersAreNeverReused() {
        h.createScope("sc");
        h.createStream("sc", "s", 2);
        assertThat(h.stub.deleteStream(info("sc", "s")).getStatus())
                .isEqualTo(DeleteStreamStatus.Status.STREAM_NOT_SEALED);
        assertThat(h.stub.sealStream(info("sc", "s")).getStatus()).isEqualTo(UpdateStreamStatus.Status.SUCCESS);
        assertThat(h.stub.sealStream(info("sc", "s")).getStatus()).isEqualTo(UpdateStreamStatus.Status.SUCCESS);
        assertThat(h.admin.sealed("sc/s/0.#epoch.0")).isTrue();
        assertThat(h.admin.sealed("sc/s/1.#epoch.0")).isTrue();
        assertThat(h.currentSegments("sc", "s")).isEmpty();
        assertThat(h.stub.isSegmentValid(segmentId("sc", "s", 0)).getResponse()).isFalse();
        assertThat(h.stub.updateStream(fixed("sc", "s", 2)).getStatus())
                .isEqualTo(UpdateStreamStatus.Status.STREAM_SEALED);

        assertThat(h.stub.deleteStream(info("sc", "s")).getStatus()).isEqualTo(DeleteStreamStatus.Status.SUCCESS);
        assertThat(h.stub.deleteStream(info("sc", "s")).getStatus())
                .isEqualTo(DeleteStreamStatus.Status.STREAM_NOT_FOUND);
        assertThat(h.stub.sealStream(info("sc", "s")).getStatus())
                .isEqualTo(UpdateStreamStatus.Status.STREAM_NOT_FOUND);
        assertThat(h.stub.checkStreamExists(info("sc", "s")).getExists()).isFalse();
        assertThat(h.stub.checkStreamExists(info("sc", "_MARKs")).getExists()).isFalse();
        assertThat(h.admin.segmentsStartingWith("sc/")).isEmpty();

        h.createStream("sc", "s", 2);
        assertThat(h.currentSegmentIds("sc", "s")).containsExactly(id(2, 0), id(3, 0));
        assertThat(h.admin.exists("sc/s/2.#epoch.0")).isTrue();
        assertThat(h.admin.exists("sc/_MARKs/1.#epoch.0")).isTrue();
    }

    @Test
    void endpointsAndMissingStreams() {
        NodeUri uri = h.stub.getURI(segmentId("any", "thing", 77));
        assertThat(uri.getEndpoint()).isEqualTo("127.0.0.1");
        assertThat(uri.getPort()).isEqualTo(12345);
        assertThat(h.stub.getControllerServerList(ServerRequest.getDefaultInstance()).getNodeURIList())
                .containsExactly(NodeUri.newBuilder().setEndpoint("127.0.0.1").setPort(9090).build());
        assertThat(h.stub.getControllerToBucketMapping(ControllerToBucketMappingRequest.getDefaultInstance())
                .getMappingMap()).containsKey("127.0.0.1:9090");
        assertThatThrownBy(() -> h.stub.getCurrentSegments(info("x", "y")))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
        assertThat(h.stub.getDelegationToken(info("x", "y")).getDelegationToken()).isEmpty();
    }
}
