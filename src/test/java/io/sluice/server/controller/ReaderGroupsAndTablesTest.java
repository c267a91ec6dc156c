package io.sluice.server.controller;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sluice.controller.grpc.v1.CreateKeyValueTableStatus;
import io.sluice.controller.grpc.v1.CreateReaderGroupResponse;
import io.sluice.controller.grpc.v1.DeleteKVTableStatus;
import io.sluice.controller.grpc.v1.DeleteReaderGroupStatus;
import io.sluice.controller.grpc.v1.KVTablesInScopeRequest;
import io.sluice.controller.grpc.v1.KeyValueTableConfig;
import io.sluice.controller.grpc.v1.KeyValueTableConfigResponse;
import io.sluice.controller.grpc.v1.KeyValueTableInfo;
import io.sluice.controller.grpc.v1.ReaderGroupConfigResponse;
import io.sluice.controller.grpc.v1.ReaderGroupConfiguration;
import io.sluice.controller.grpc.v1.ReaderGroupInfo;
import io.sluice.controller.grpc.v1.RemoveWriterRequest;
import io.sluice.controller.grpc.v1.RemoveWriterResponse;
import io.sluice.controller.grpc.v1.ScopeInfo;
import io.sluice.controller.grpc.v1.SegmentRange;
import io.sluice.controller.grpc.v1.StreamCut;
import io.sluice.controller.grpc.v1.SubscriberStreamCut;
import io.sluice.controller.grpc.v1.SubscribersResponse;
import io.sluice.controller.grpc.v1.TimestampFromWriter;
import io.sluice.controller.grpc.v1.TimestampResponse;
import io.sluice.controller.grpc.v1.UpdateReaderGroupResponse;
import io.sluice.controller.grpc.v1.UpdateSubscriberStatus;

import static io.sluice.server.controller.ControllerHarness.cut;
import static io.sluice.server.controller.ControllerHarness.info;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReaderGroupsAndTablesTest {
    private static final String DEFAULT_ID = "00000000-0000-0000-0000-000000000000";
    private ControllerHarness h;

    @BeforeEach
    void start() {
        h = new ControllerHarness();
        h.createScope("sc");
        h.createStream("sc", "s", 2);
    }

    @AfterEach
    void stop() throws InterruptedException {
        h.close();
    }

    private static ReaderGroupConfiguration rg(String name, int retention) {
        return ReaderGroupConfiguration.newBuilder().setScope("sc").setReaderGroupName(name)
                .setGroupRefreshTimeMillis(3000).setAutomaticCheckpointIntervalMillis(30000)
                .setMaxOutstandingCheckpointRequest(3).setRetentionType(retention).setGeneration(-1)
                .setReaderGroupId(DEFAULT_ID)
                .addStartingStreamCuts(StreamCut.newBuilder().setStreamInfo(info("sc", "s"))).build();
    }

    private static ReaderGroupInfo rgInfo(String name, String id) {
        return ReaderGroupInfo.newBuilder().setScope("sc").setReaderGroup(name).setReaderGroupId(id).build();
    }

    @Test
    void readerGroupLifecycle() {
        CreateReaderGroupResponse created = h.stub.createReaderGroup(rg("group", 0));
        assertThat(created.getStatus()).isEqualTo(CreateReaderGroupResponse.Status.SUCCESS);
        ReaderGroupConfiguration config = created.getConfig();
        assertThat(config.getGeneration()).isZero();
        assertThat(UUID.fromString(config.getReaderGroupId())).isNotEqualTo(new UUID(0, 0));
        assertThat(config.getGroupRefreshTimeMillis()).isEqualTo(3000);
        // the state stream, with one segment, and its watermark stream
        assertThat(h.currentSegmentIds("sc", "_RGgroup")).containsExactly(0L);
        assertThat(h.stub.checkStreamExists(info("sc", "_MARK_RGgroup")).getExists()).isTrue();
        assertThat(h.admin.exists("sc/_RGgroup/0.#epoch.0")).isTrue();

        // creating again returns the existing group
        CreateReaderGroupResponse again = h.stub.createReaderGroup(rg("group", 0));
        assertThat(again.getStatus()).isEqualTo(CreateReaderGroupResponse.Status.SUCCESS);
        assertThat(again.getConfig()).isEqualTo(config);
        assertThat(h.stub.createReaderGroup(rg("bad_name", 0)).getStatus())
                .isEqualTo(CreateReaderGroupResponse.Status.INVALID_RG_NAME);
        assertThat(h.stub.createReaderGroup(rg("g", 0).toBuilder().setScope("nope").build()).getStatus())
                .isEqualTo(CreateReaderGroupResponse.Status.SCOPE_NOT_FOUND);

        ReaderGroupConfigResponse read = h.stub.getReaderGroupConfig(rgInfo("group", ""));
        assertThat(read.getStatus()).isEqualTo(ReaderGroupConfigResponse.Status.SUCCESS);
        assertThat(read.getConfig()).isEqualTo(config);
        assertThat(h.stub.getReaderGroupConfig(rgInfo("nope", "")).getStatus())
                .isEqualTo(ReaderGroupConfigResponse.Status.RG_NOT_FOUND);

        UpdateReaderGroupResponse updated = h.stub.updateReaderGroup(config.toBuilder()
                .setGroupRefreshTimeMillis(100).build());
        assertThat(updated.getStatus()).isEqualTo(UpdateReaderGroupResponse.Status.SUCCESS);
        assertThat(updated.getGeneration()).isEqualTo(1);
        assertThat(h.stub.getReaderGroupConfig(rgInfo("group", "")).getConfig().getGroupRefreshTimeMillis())
                .isEqualTo(100);
        // a stale generation or a wrong id is an invalid config
        assertThat(h.stub.updateReaderGroup(config).getStatus())
                .isEqualTo(UpdateReaderGroupResponse.Status.INVALID_CONFIG);
        assertThat(h.stub.updateReaderGroup(config.toBuilder().setGeneration(1)
                .setReaderGroupId(UUID.randomUUID().toString()).build()).getStatus())
                .isEqualTo(UpdateReaderGroupResponse.Status.INVALID_CONFIG);
        assertThat(h.stub.updateReaderGroup(rg("nope", 0)).getStatus())
                .isEqualTo(UpdateReaderGroupResponse.Status.RG_NOT_FOUND);

        assertThat(h.stub.deleteReaderGroup(rgInfo("group", UUID.randomUUID().toString())).getStatus())
                .isEqualTo(DeleteReaderGroupStatus.Status.RG_NOT_FOUND);
        assertThat(h.stub.deleteReaderGroup(rgInfo("group", config.getReaderGroupId())).getStatus())
                .isEqualTo(DeleteReaderGroupStatus.Status.SUCCESS);
        assertThat(h.stub.checkStreamExists(info("sc", "_RGgroup")).getExists()).isFalse();
        assertThat(h.stub.checkStreamExists(info("sc", "_MARK_RGgroup")).getExists()).isFalse();
        assertThat(h.admin.segmentsStartingWith("sc/_RGgroup/")).isEmpty();
        assertThat(h.admin.calls()).containsSubsequence("seal sc/_RGgroup/0.#epoch.0", "delete sc/_RGgroup/0.#epoch.0");
        assertThat(h.stub.deleteReaderGroup(rgInfo("group", config.getReaderGroupId())).getStatus())
                .isEqualTo(DeleteReaderGroupStatus.Status.RG_NOT_FOUND);

        // a new incarnation gets a new id and fresh segment numbers for its state stream
        CreateReaderGroupResponse reborn = h.stub.createReaderGroup(rg("group", 0));
        assertThat(reborn.getConfig().getReaderGroupId()).isNotEqualTo(config.getReaderGroupId());
        assertThat(h.currentSegmentIds("sc", "_RGgroup")).containsExactly(1L);
    }

    @Test
    void subscribersFollowRetainingReaderGroups() {
        ReaderGroupConfiguration config = h.stub.createReaderGroup(rg("sub", 1)).getConfig();
        h.stub.createReaderGroup(rg("plain", 0));
        SubscribersResponse subscribers = h.stub.listSubscribers(info("sc", "s"));
        assertThat(subscribers.getStatus()).isEqualTo(SubscribersResponse.Status.SUCCESS);
        assertThat(subscribers.getSubscribersList()).containsExactly("sc/sub");
        assertThat(h.stub.listSubscribers(info("sc", "nope")).getStatus())
                .isEqualTo(SubscribersResponse.Status.STREAM_NOT_FOUND);

        StreamCut position = StreamCut.newBuilder().setStreamInfo(info("sc", "s")).putAllCut(cut(0, 10, 1, 20)).build();
        SubscriberStreamCut.Builder update = SubscriberStreamCut.newBuilder().setSubscriber("sc/sub")
                .setReaderGroupId(config.getReaderGroupId()).setGeneration(0).setStreamCut(position);
        assertThat(h.stub.updateSubscriberStreamCut(update.build()).getStatus())
                .isEqualTo(UpdateSubscriberStatus.Status.SUCCESS);
        assertThat(h.stub.updateSubscriberStreamCut(update.setGeneration(5).build()).getStatus())
                .isEqualTo(UpdateSubscriberStatus.Status.GENERATION_MISMATCH);
        assertThat(h.stub.updateSubscriberStreamCut(update.setGeneration(0)
                .setReaderGroupId(UUID.randomUUID().toString()).build()).getStatus())
                .isEqualTo(UpdateSubscriberStatus.Status.SUBSCRIBER_NOT_FOUND);
        assertThat(h.stub.updateSubscriberStreamCut(update.setReaderGroupId(config.getReaderGroupId())
                .setStreamCut(position.toBuilder().clearCut().putAllCut(cut(0, 5, 1, 20))).build()).getStatus())
                .as("behind the previous cut").isEqualTo(UpdateSubscriberStatus.Status.STREAM_CUT_NOT_VALID);
        assertThat(h.stub.updateSubscriberStreamCut(update.setSubscriber("sc/plain").build()).getStatus())
                .isEqualTo(UpdateSubscriberStatus.Status.SUBSCRIBER_NOT_FOUND);

        // updating to non-retaining unsubscribes; deleting removes the subscription
        assertThat(h.stub.updateReaderGroup(config.toBuilder().setRetentionType(0).build()).getStatus())
                .isEqualTo(UpdateReaderGroupResponse.Status.SUCCESS);
        assertThat(h.stub.listSubscribers(info("sc", "s")).getSubscribersList()).isEmpty();
        ReaderGroupConfiguration current = h.stub.getReaderGroupConfig(rgInfo("sub", "")).getConfig();
        assertThat(h.stub.updateReaderGroup(current.toBuilder().setRetentionType(2).build()).getGeneration())
                .isEqualTo(2);
        assertThat(h.stub.listSubscribers(info("sc", "s")).getSubscribersList()).containsExactly("sc/sub");
        h.stub.deleteReaderGroup(rgInfo("sub", ""));
        assertThat(h.stub.listSubscribers(info("sc", "s")).getSubscribersList()).isEmpty();
    }

    @Test
    void writerMarks() {
        StreamCut position = StreamCut.newBuilder().setStreamInfo(info("sc", "s")).putAllCut(cut(0, 10, 1, 20)).build();
        TimestampFromWriter.Builder mark = TimestampFromWriter.newBuilder().setWriter("w").setPosition(position)
                .setTimestamp(100);
        assertThat(h.stub.noteTimestampFromWriter(mark.build()).getResult())
                .isEqualTo(TimestampResponse.Status.SUCCESS);
        assertThat(h.stub.noteTimestampFromWriter(mark.setTimestamp(99).build()).getResult())
                .isEqualTo(TimestampResponse.Status.INVALID_TIME);
        assertThat(h.stub.noteTimestampFromWriter(mark.setTimestamp(200)
                .setPosition(position.toBuilder().clearCut().putAllCut(cut(0, 5, 1, 20))).build()).getResult())
                .isEqualTo(TimestampResponse.Status.INVALID_POSITION);
        assertThat(h.stub.noteTimestampFromWriter(mark.setPosition(position.toBuilder().clearCut()
                .putAllCut(cut(0, 15, 1, 20))).build()).getResult()).isEqualTo(TimestampResponse.Status.SUCCESS);
        assertThatThrownBy(() -> h.stub.noteTimestampFromWriter(mark.setPosition(position.toBuilder()
                .setStreamInfo(info("sc", "nope"))).build())).isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));

        RemoveWriterRequest remove = RemoveWriterRequest.newBuilder().setWriter("w").setStream(info("sc", "s")).build();
        assertThat(h.stub.removeWriter(remove).getResult()).isEqualTo(RemoveWriterResponse.Status.SUCCESS);
        // as in Pravega, a shut-down writer's mark stays until a watermark pass drops it: removing it again is fine
        assertThat(h.stub.removeWriter(remove).getResult()).isEqualTo(RemoveWriterResponse.Status.SUCCESS);
        assertThat(h.stub.removeWriter(remove.toBuilder().setWriter("nobody").build()).getResult())
                .isEqualTo(RemoveWriterResponse.Status.UNKNOWN_WRITER);
    }

    @Test
    void keyValueTables() {
        KeyValueTableConfig config = KeyValueTableConfig.newBuilder().setScope("sc").setKvtName("t")
                .setPartitionCount(3).setPrimaryKeyLength(4).setSecondaryKeyLength(8).build();
        assertThat(h.stub.createKeyValueTable(config).getStatus()).isEqualTo(CreateKeyValueTableStatus.Status.SUCCESS);
        assertThat(h.stub.createKeyValueTable(config).getStatus())
                .isEqualTo(CreateKeyValueTableStatus.Status.TABLE_EXISTS);
        assertThat(h.stub.createKeyValueTable(config.toBuilder().setKvtName("bad_name").build()).getStatus())
                .isEqualTo(CreateKeyValueTableStatus.Status.INVALID_TABLE_NAME);
        assertThat(h.stub.createKeyValueTable(config.toBuilder().setScope("nope").build()).getStatus())
                .isEqualTo(CreateKeyValueTableStatus.Status.SCOPE_NOT_FOUND);
        assertThatThrownBy(() -> h.stub.createKeyValueTable(config.toBuilder().setPrimaryKeyLength(0).build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));

        assertThat(h.admin.calls("createTable ")).containsExactly("createTable sc/t_kvtable/0.#epoch.0 keyLength=12",
                "createTable sc/t_kvtable/1.#epoch.0 keyLength=12", "createTable sc/t_kvtable/2.#epoch.0 keyLength=12");
        KeyValueTableInfo info = KeyValueTableInfo.newBuilder().setScope("sc").setKvtName("t").build();
        var segments = h.stub.getCurrentSegmentsKeyValueTable(info).getSegmentRangesList();
        assertThat(segments).extracting(r -> r.getSegmentId().getSegmentId()).containsExactly(0L, 1L, 2L);
        assertThat(segments).extracting(SegmentRange::getMinKey).containsExactly(0.0, 1.0 / 3, 2.0 / 3);
        assertThat(segments.get(0).getSegmentId().getStreamInfo()).isEqualTo(info("sc", "t"));

        KeyValueTableConfigResponse read = h.stub.getKeyValueTableConfiguration(info);
        assertThat(read.getStatus()).isEqualTo(KeyValueTableConfigResponse.Status.SUCCESS);
        assertThat(read.getConfig()).isEqualTo(config);
        assertThat(h.stub.listKeyValueTablesInScope(KVTablesInScopeRequest.newBuilder()
                .setScope(ScopeInfo.newBuilder().setScope("sc")).build()).getKvtablesList())
                .extracting(KeyValueTableInfo::getKvtName).containsExactly("t");

        assertThat(h.stub.deleteKeyValueTable(info).getStatus()).isEqualTo(DeleteKVTableStatus.Status.SUCCESS);
        assertThat(h.stub.deleteKeyValueTable(info).getStatus()).isEqualTo(DeleteKVTableStatus.Status.TABLE_NOT_FOUND);
        assertThat(h.stub.getKeyValueTableConfiguration(info).getStatus())
                .isEqualTo(KeyValueTableConfigResponse.Status.TABLE_NOT_FOUND);
        assertThatThrownBy(() -> h.stub.getCurrentSegmentsKeyValueTable(info))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
        assertThat(h.admin.segmentsStartingWith("sc/t_kvtable/")).isEmpty();

        // recreated: segment numbers continue
        assertThat(h.stub.createKeyValueTable(config).getStatus()).isEqualTo(CreateKeyValueTableStatus.Status.SUCCESS);
        assertThat(h.admin.exists("sc/t_kvtable/3.#epoch.0")).isTrue();
    }
}
