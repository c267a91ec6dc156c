package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.grpc.Metadata;
import io.grpc.Status;
import io.sluice.controller.ControllerClientConfig;
import io.sluice.controller.FakeController;
import io.sluice.controller.GrpcControllerClient;
import io.sluice.controller.grpc.v1.ContinuationToken;
import io.sluice.controller.grpc.v1.CreateScopeStatus;
import io.sluice.controller.grpc.v1.CreateStreamStatus;
import io.sluice.controller.grpc.v1.DeleteScopeStatus;
import io.sluice.controller.grpc.v1.DeleteStreamStatus;
import io.sluice.controller.grpc.v1.ExistsResponse;
import io.sluice.controller.grpc.v1.GetSegmentsRequest;
import io.sluice.controller.grpc.v1.NodeUri;
import io.sluice.controller.grpc.v1.RetentionPolicy;
import io.sluice.controller.grpc.v1.ScalingPolicy;
import io.sluice.controller.grpc.v1.ScopeInfo;
import io.sluice.controller.grpc.v1.ScopesResponse;
import io.sluice.controller.grpc.v1.SegmentId;
import io.sluice.controller.grpc.v1.SegmentRange;
import io.sluice.controller.grpc.v1.SegmentRanges;
import io.sluice.controller.grpc.v1.SegmentsAtTime;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.controller.grpc.v1.StreamCut;
import io.sluice.controller.grpc.v1.StreamCutValidityResponse;
import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.controller.grpc.v1.StreamsInScopeRequest;
import io.sluice.controller.grpc.v1.StreamsInScopeResponse;
import io.sluice.controller.grpc.v1.StreamsInScopeWithTagRequest;
import io.sluice.controller.grpc.v1.Tags;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code sluice scope ...} and {@code sluice stream ...} against a scripted in-process controller (and, for
 * stream lengths, a loopback segment store): what each command asks the controller, what it prints as text and as
 * JSON, and how it fails (message, JSON error, exit status).
 */
@Timeout(60)
class AdminCommandsTest {
    private static final StreamInfo ST = StreamInfo.newBuilder().setScope("sc").setStream("st").build();
    private static final long EPOCH1 = 1L << 32;
    private static final String TOKEN = "token-123";

    private final FakeController fake = new FakeController();
    private final Map<String, String> env = new HashMap<>();
    private final List<ControllerClientConfig> configs = new CopyOnWriteArrayList<>();
    private FakeSegmentStore store;
    private StringWriter out;
    private StringWriter err;

    @BeforeEach
    void start() throws Exception {
        fake.start();
        store = new FakeSegmentStore();
    }

    @AfterEach
    void stop() throws Exception {
        store.close();
        fake.close();
    }

    private int run(String... args) {
        out = new StringWriter();
        err = new StringWriter();
        Main main = new Main(config -> {
            configs.add(config);
            return new GrpcControllerClient(fake.channel(), config);
        }, env::get);
        return Main.run(main, new PrintWriter(out), new PrintWriter(err), args);
    }

    private String out() {
        return out.toString();
    }

    private String err() {
        return err.toString();
    }

    // ---- proto helpers ----

    private static SegmentId id(long segmentId) {
        return SegmentId.newBuilder().setStreamInfo(ST).setSegmentId(segmentId).build();
    }

    private static SegmentRange range(long segmentId, double low, double high) {
        return SegmentRange.newBuilder().setSegmentId(id(segmentId)).setMinKey(low).setMaxKey(high).build();
    }

    /** Segments 0 and 1 of epoch 0, halves of the key space. */
    private static SegmentRanges twoSegments() {
        return SegmentRanges.newBuilder().addSegmentRanges(range(0, 0.0, 0.5)).addSegmentRanges(range(1, 0.5, 1.0))
                .setDelegationToken(TOKEN).build();
    }

    private static SegmentsAtTime at(long... idAndOffset) {
        SegmentsAtTime.Builder b = SegmentsAtTime.newBuilder();
        for (int i = 0; i < idAndOffset.length; i += 2) {
            b.addSegments(SegmentsAtTime.SegmentLocation.newBuilder().setSegmentId(id(idAndOffset[i]))
                    .setOffset(idAndOffset[i + 1]));
        }
        return b.build();
    }

    private static StreamConfig fixedConfig(int segments) {
        return StreamConfig.newBuilder().setStreamInfo(ST)
                .setScalingPolicy(ScalingPolicy.newBuilder()
                        .setScaleType(ScalingPolicy.ScalingPolicyType.FIXED_NUM_SEGMENTS).setMinNumSegments(segments))
                .setRetentionPolicy(RetentionPolicy.newBuilder()
                        .setRetentionType(RetentionPolicy.RetentionPolicyType.TIME).setRetentionParam(604_800_000L)
                        .setRetentionMax(Long.MAX_VALUE))
                .setTags(Tags.newBuilder().addTag("a").addTag("b")).build();
    }

    private static UpdateStreamStatus updated(UpdateStreamStatus.Status status) {
        return UpdateStreamStatus.newBuilder().setStatus(status).build();
    }

    private static ExistsResponse exists(boolean exists) {
        return ExistsResponse.newBuilder().setExists(exists).build();
    }

    private NodeUri storeUri() {
        return NodeUri.newBuilder().setEndpoint(store.endpoint().host()).setPort(store.endpoint().port()).build();
    }

    // =============================================================================================
    // scope
    // =============================================================================================

    @Test
    void scopeCreate() throws Exception {
        fake.reply("createScope", CreateScopeStatus.newBuilder().setStatus(CreateScopeStatus.Status.SUCCESS).build());
        assertThat(run("scope", "create", "sc")).isZero();
        assertThat(out()).isEqualTo("scope 'sc' created\n");
        assertThat(err()).isEmpty();
        assertThat(fake.<ScopeInfo>request("createScope").getScope()).isEqualTo("sc");

        assertThat(run("scope", "create", "sc", "--json")).isZero();
        assertThat(out()).isEqualTo("{\"scope\":\"sc\",\"created\":true}\n");
    }

    @Test
    void scopeCreateOfAnExistingScopeFails() {
        fake.reply("createScope",
                CreateScopeStatus.newBuilder().setStatus(CreateScopeStatus.Status.SCOPE_EXISTS).build());
        assertThat(run("scope", "create", "sc")).isEqualTo(1);
        assertThat(out()).isEmpty();
        assertThat(err()).isEqualTo("sluice scope create: scope 'sc' already exists\n");

        assertThat(run("scope", "create", "sc", "--json")).isEqualTo(1);
        assertThat(out()).isEqualTo(
                "{\"error\":{\"code\":\"already-exists\",\"message\":\"scope 'sc' already exists\"}}\n");
        assertThat(err()).isEqualTo("sluice scope create: scope 'sc' already exists\n");
    }

    @Test
    void badScopeNameIsAUsageErrorAndReachesNoController() {
        assertThat(run("scope", "create", "bad_name")).isEqualTo(2);
        assertThat(err()).startsWith("sluice scope create: scope name 'bad_name' is invalid")
                .contains("Try 'sluice scope create --help'");
        assertThat(out()).isEmpty();
        assertThat(fake.pendingCalls()).isZero();
        assertThat(configs).isEmpty();
    }

    @Test
    void scopeListPagesAndHidesInternalScopes() throws Exception {
        fake.reply("listScopes",
                ScopesResponse.newBuilder().addScopes("zeta").addScopes("_system")
                        .setContinuationToken(ContinuationToken.newBuilder().setToken("t1")).build(),
                ScopesResponse.newBuilder().addScopes("alpha")
                        .setContinuationToken(ContinuationToken.newBuilder().setToken("t2")).build(),
                ScopesResponse.getDefaultInstance());
        assertThat(run("scope", "list")).isZero();
        assertThat(out()).isEqualTo("alpha\nzeta\n");
        fake.take("listScopes");
        fake.take("listScopes");
        fake.take("listScopes");

        fake.reply("listScopes", ScopesResponse.newBuilder().addScopes("zeta").addScopes("_system")
                        .setContinuationToken(ContinuationToken.newBuilder().setToken("t1")).build(),
                ScopesResponse.getDefaultInstance());
        assertThat(run("scope", "list", "--all", "--json")).isZero();
        assertThat(out()).isEqualTo("{\"scopes\":[\"_system\",\"zeta\"]}\n");
    }

    @Test
    void scopeListOfNothingPrintsNothing() {
        fake.reply("listScopes", ScopesResponse.getDefaultInstance());
        assertThat(run("scope", "list")).isZero();
        assertThat(out()).isEmpty();
        assertThat(run("scope", "list", "--json")).isZero();
        assertThat(out()).isEqualTo("{\"scopes\":[]}\n");
    }

    @Test
    void scopeDelete() throws Exception {
        fake.reply("deleteScope", DeleteScopeStatus.newBuilder().setStatus(DeleteScopeStatus.Status.SUCCESS).build());
        assertThat(run("scope", "delete", "sc")).isZero();
        assertThat(out()).isEqualTo("scope 'sc' deleted\n");
        assertThat(fake.<ScopeInfo>request("deleteScope").getScope()).isEqualTo("sc");
        assertThat(run("scope", "delete", "sc", "--json")).isZero();
        assertThat(out()).isEqualTo("{\"scope\":\"sc\",\"deleted\":true}\n");
    }

    @Test
    void scopeDeleteFailures() {
        fake.reply("deleteScope",
                DeleteScopeStatus.newBuilder().setStatus(DeleteScopeStatus.Status.SCOPE_NOT_FOUND).build());
        assertThat(run("scope", "delete", "sc", "--json")).isEqualTo(1);
        assertThat(err()).isEqualTo("sluice scope delete: scope 'sc' does not exist\n");
        assertThat(out()).isEqualTo(
                "{\"error\":{\"code\":\"not-found\",\"message\":\"scope 'sc' does not exist\"}}\n");

        fake.reply("deleteScope",
                DeleteScopeStatus.newBuilder().setStatus(DeleteScopeStatus.Status.SCOPE_NOT_EMPTY).build());
        assertThat(run("scope", "delete", "sc", "--json")).isEqualTo(1);
        assertThat(err()).isEqualTo("sluice scope delete: scope 'sc' is not empty: delete its streams (and reader "
                + "groups and key-value tables) first\n");
        assertThat(out()).startsWith("{\"error\":{\"code\":\"precondition-failed\",");
    }

    @Test
    void scopeWithoutSubcommandIsAUsageError() {
        assertThat(run("scope")).isEqualTo(2);
        assertThat(err()).contains("sluice scope: Missing required subcommand", "Try 'sluice scope --help'");
        assertThat(run("scope", "rename", "x")).isEqualTo(2);
        assertThat(err()).contains("Unmatched argument");
    }

    // =============================================================================================
    // stream create
    // =============================================================================================

    @Test
    void streamCreateFixedWithRetentionAndTags() throws Exception {
        fake.reply("createStream", CreateStreamStatus.newBuilder().setStatus(CreateStreamStatus.Status.SUCCESS).build());
        assertThat(run("stream", "create", "sc/st", "--segments", "2", "--retention-time", "7d", "--tag", "a",
                "--tag", "b")).isZero();
        assertThat(out()).isEqualTo("stream 'sc/st' created: fixed, 2 segments; retention time: keep at least 7d; "
                + "tags a, b\n");
        StreamConfig request = fake.request("createStream");
        assertThat(request).isEqualTo(fixedConfig(2));

        assertThat(run("stream", "create", "sc/st", "--json")).isZero();
        assertThat(out()).isEqualTo("{\"stream\":\"sc/st\",\"created\":true,\"config\":{\"scalingPolicy\":"
                + "{\"type\":\"FIXED_NUM_SEGMENTS\",\"targetRate\":0,\"scaleFactor\":0,\"minNumSegments\":1},"
                + "\"retentionPolicy\":{\"type\":\"NONE\",\"param\":0,\"max\":0},\"tags\":[],"
                + "\"timestampAggregationTimeoutMillis\":0,\"rolloverSizeBytes\":0}}\n");
        StreamConfig defaults = fake.request("createStream");
        assertThat(defaults.getScalingPolicy().getMinNumSegments()).isEqualTo(1);
        assertThat(defaults.hasRetentionPolicy()).as("no retention: unset, as Pravega's client sends it").isFalse();
    }

    @Test
    void streamCreateWithScalingPolicies() throws Exception {
        fake.reply("createStream", CreateStreamStatus.newBuilder().setStatus(CreateStreamStatus.Status.SUCCESS).build());
        assertThat(run("stream", "create", "sc/st", "--scale-by-events-per-sec", "100")).isZero();
        assertThat(out()).isEqualTo("stream 'sc/st' created: by events/s: 100 events/s per segment, scale factor 2, "
                + "at least 1 segment; retention none; tags (none)\n");
        assertThat(fake.<StreamConfig>request("createStream").getScalingPolicy()).isEqualTo(ScalingPolicy.newBuilder()
                .setScaleType(ScalingPolicy.ScalingPolicyType.BY_RATE_IN_EVENTS_PER_SEC).setTargetRate(100)
                .setScaleFactor(2).setMinNumSegments(1).build());

        assertThat(run("stream", "create", "sc/st", "--scale-by-kbytes-per-sec", "1024", "--scale-factor", "3",
                "--min-segments", "4", "--retention-size", "1G")).isZero();
        assertThat(out()).isEqualTo("stream 'sc/st' created: by KiB/s: 1024 KiB/s per segment, scale factor 3, "
                + "at least 4 segments; retention size: keep at least 1G; tags (none)\n");
        StreamConfig request = fake.request("createStream");
        assertThat(request.getScalingPolicy()).isEqualTo(ScalingPolicy.newBuilder()
                .setScaleType(ScalingPolicy.ScalingPolicyType.BY_RATE_IN_KBYTES_PER_SEC).setTargetRate(1024)
                .setScaleFactor(3).setMinNumSegments(4).build());
        assertThat(request.getRetentionPolicy()).isEqualTo(RetentionPolicy.newBuilder()
                .setRetentionType(RetentionPolicy.RetentionPolicyType.SIZE).setRetentionParam(1L << 30)
                .setRetentionMax(Long.MAX_VALUE).build());
    }

    @Test
    void streamCreateUsageErrors() {
        assertThat(run("stream", "create", "sc/st", "--segments", "2", "--scale-by-events-per-sec", "5"))
                .isEqualTo(2);
        assertThat(err()).contains("give only one of --segments, --scale-by-events-per-sec and "
                + "--scale-by-kbytes-per-sec");
        assertThat(run("stream", "create", "sc/st", "--scale-factor", "3")).isEqualTo(2);
        assertThat(err()).contains("--scale-factor and --min-segments need a scaling policy");
        assertThat(run("stream", "create", "sc/st", "--retention-time", "1d", "--retention-size", "5")).isEqualTo(2);
        assertThat(err()).contains("give only one of --retention-time and --retention-size");
        assertThat(run("stream", "create", "sc/st", "--retention-time", "7 days")).isEqualTo(2);
        assertThat(err()).contains("duration '7 days' has the unknown unit ' days'");
        assertThat(run("stream", "create", "sc/st", "--retention-size", "5X")).isEqualTo(2);
        assertThat(err()).contains("size '5X' has the unknown unit 'X'");
        assertThat(run("stream", "create", "sc/st", "--segments", "0")).isEqualTo(2);
        assertThat(err()).contains("scaling policy needs at least one segment");
        assertThat(run("stream", "create", "sc-st")).isEqualTo(2);
        assertThat(err()).contains("'sc-st' is not a scoped stream name: expected scope/stream");
        assertThat(run("stream", "create", "sc/_internal")).isEqualTo(2);
        assertThat(err()).contains("stream name '_internal' is invalid");
        assertThat(run("stream", "create", "sc/st", "--segments", "two")).isEqualTo(2);
        assertThat(err()).contains("'two' is not an int");
        assertThat(fake.pendingCalls()).isZero();
        assertThat(configs).isEmpty();
    }

    @Test
    void streamCreateFailures() {
        fake.reply("createStream",
                CreateStreamStatus.newBuilder().setStatus(CreateStreamStatus.Status.STREAM_EXISTS).build());
        assertThat(run("stream", "create", "sc/st")).isEqualTo(1);
        assertThat(err()).isEqualTo("sluice stream create: stream 'sc/st' already exists\n");

        fake.reply("createStream",
                CreateStreamStatus.newBuilder().setStatus(CreateStreamStatus.Status.SCOPE_NOT_FOUND).build());
        assertThat(run("stream", "create", "sc/st", "--json")).isEqualTo(1);
        assertThat(err()).isEqualTo("sluice stream create: scope 'sc' does not exist\n");
        assertThat(out()).isEqualTo("{\"error\":{\"code\":\"not-found\",\"message\":\"scope 'sc' does not exist\"}}\n");
    }

    // =============================================================================================
    // stream list
    // =============================================================================================

    private static StreamsInScopeResponse streams(String... names) {
        StreamsInScopeResponse.Builder b = StreamsInScopeResponse.newBuilder()
                .setStatus(StreamsInScopeResponse.Status.SUCCESS)
                .setContinuationToken(ContinuationToken.newBuilder().setToken("next"));
        for (String name : names) {
            b.addStreams(StreamInfo.newBuilder().setScope("sc").setStream(name));
        }
        return b.build();
    }

    @Test
    void streamList() throws Exception {
        fake.reply("listStreamsInScope", streams("st", "_MARKst", "other"), streams());
        assertThat(run("stream", "list", "sc")).isZero();
        assertThat(out()).isEqualTo("sc/other\nsc/st\n");
        assertThat(fake.<StreamsInScopeRequest>request("listStreamsInScope").getScope().getScope()).isEqualTo("sc");
        fake.take("listStreamsInScope");

        fake.reply("listStreamsInScope", streams("st", "_MARKst"), streams());
        assertThat(run("stream", "list", "sc", "--all", "--json")).isZero();
        assertThat(out()).isEqualTo("{\"scope\":\"sc\",\"streams\":[\"sc/_MARKst\",\"sc/st\"]}\n");
    }

    @Test
    void streamListByTag() throws Exception {
        fake.reply("listStreamsInScopeForTag", streams("st"), streams());
        assertThat(run("stream", "list", "sc", "--tag", "a")).isZero();
        assertThat(out()).isEqualTo("sc/st\n");
        StreamsInScopeWithTagRequest request = fake.request("listStreamsInScopeForTag");
        assertThat(request.getScope().getScope()).isEqualTo("sc");
        assertThat(request.getTag()).isEqualTo("a");
    }

    @Test
    void streamListOfAMissingScope() {
        fake.reply("listStreamsInScope", StreamsInScopeResponse.newBuilder()
                .setStatus(StreamsInScopeResponse.Status.SCOPE_NOT_FOUND).build());
        assertThat(run("stream", "list", "sc")).isEqualTo(1);
        assertThat(err()).isEqualTo("sluice stream list: scope 'sc' does not exist\n");
    }

    // =============================================================================================
    // stream info
    // =============================================================================================

    private void scriptOpenStream() {
        fake.reply("getStreamConfiguration", fixedConfig(2));
        fake.reply("getCurrentSegments", twoSegments());
        fake.reply("getSegments", at(0, 0, 1, 0));
        fake.reply("getURI", storeUri());
        store.segment("sc/st/0.#epoch.0", 120).segment("sc/st/1.#epoch.0", 7);
    }

    @Test
    void streamInfo() throws Exception {
        scriptOpenStream();
        assertThat(run("stream", "info", "sc/st")).isZero();
        assertThat(out()).isEqualTo("""
                stream     sc/st
                state      open
                scaling    fixed, 2 segments
                retention  time: keep at least 7d
                tags       a, b
                segments   0.#epoch.0 [0.0, 0.5)
                           1.#epoch.0 [0.5, 1.0)
                head       0.#epoch.0=0,1.#epoch.0=0
                tail       0.#epoch.0=120,1.#epoch.0=7
                """);
        assertThat(err()).isEmpty();
        assertThat(fake.<StreamInfo>request("getStreamConfiguration")).isEqualTo(ST);
        assertThat(fake.<StreamInfo>request("getCurrentSegments")).isEqualTo(ST);
        assertThat(fake.<GetSegmentsRequest>request("getSegments").getTimestamp()).as("head: time 0").isZero();
        assertThat(fake.<SegmentId>request("getURI")).isEqualTo(id(0));
        assertThat(fake.<SegmentId>request("getURI")).isEqualTo(id(1));
        assertThat(store.tokens()).as("the controller's delegation token goes to the segment store")
                .containsExactly(TOKEN, TOKEN);
    }

    @Test
    void streamInfoAsJson() {
        scriptOpenStream();
        assertThat(run("stream", "info", "sc/st", "--json")).isZero();
        assertThat(out()).isEqualTo("{\"stream\":\"sc/st\",\"sealed\":false,\"config\":{\"scalingPolicy\":"
                + "{\"type\":\"FIXED_NUM_SEGMENTS\",\"targetRate\":0,\"scaleFactor\":0,\"minNumSegments\":2},"
                + "\"retentionPolicy\":{\"type\":\"TIME\",\"param\":604800000,\"max\":9223372036854775807},"
                + "\"tags\":[\"a\",\"b\"],\"timestampAggregationTimeoutMillis\":0,\"rolloverSizeBytes\":0},"
                + "\"segments\":[{\"segment\":\"0.#epoch.0\",\"id\":0,\"number\":0,\"epoch\":0,\"low\":0.0,"
                + "\"high\":0.5},{\"segment\":\"1.#epoch.0\",\"id\":1,\"number\":1,\"epoch\":0,\"low\":0.5,"
                + "\"high\":1.0}],"
                + "\"head\":[{\"segment\":\"0.#epoch.0\",\"id\":0,\"number\":0,\"epoch\":0,\"offset\":0},"
                + "{\"segment\":\"1.#epoch.0\",\"id\":1,\"number\":1,\"epoch\":0,\"offset\":0}],"
                + "\"tail\":[{\"segment\":\"0.#epoch.0\",\"id\":0,\"number\":0,\"epoch\":0,\"offset\":120},"
                + "{\"segment\":\"1.#epoch.0\",\"id\":1,\"number\":1,\"epoch\":0,\"offset\":7}]}\n");
    }

    @Test
    void streamInfoOfAScaledAndTruncatedStream() {
        fake.reply("getStreamConfiguration", fixedConfig(2));
        fake.reply("getCurrentSegments", SegmentRanges.newBuilder().addSegmentRanges(range(EPOCH1 | 2, 0.0, 0.25))
                .addSegmentRanges(range(EPOCH1 | 3, 0.25, 0.5)).addSegmentRanges(range(1, 0.5, 1.0)).build());
        fake.reply("getSegments", at(0, 100, 1, 30));
        fake.reply("getURI", storeUri());
        store.segment("sc/st/2.#epoch.1", 5).segment("sc/st/3.#epoch.1", 6).segment("sc/st/1.#epoch.0", 40);
        assertThat(run("stream", "info", "sc/st")).isZero();
        assertThat(out()).contains("""
                segments   2.#epoch.1 [0.0, 0.25)
                           3.#epoch.1 [0.25, 0.5)
                           1.#epoch.0 [0.5, 1.0)
                head       0.#epoch.0=100,1.#epoch.0=30
                tail       1.#epoch.0=40,2.#epoch.1=5,3.#epoch.1=6
                """);
        assertThat(store.tokens()).containsOnly("");
    }

    @Test
    void streamInfoOfASealedStream() {
        fake.reply("getStreamConfiguration", fixedConfig(2));
        fake.reply("getCurrentSegments", SegmentRanges.getDefaultInstance());
        fake.reply("getSegments", at(0, 0, 1, 0));
        assertThat(run("stream", "info", "sc/st")).isZero();
        assertThat(out()).contains("state      sealed\n", "segments   (none: the stream is sealed)\n",
                "head       0.#epoch.0=0,1.#epoch.0=0\n", "tail       (none: the stream is sealed)\n");
        assertThat(run("stream", "info", "sc/st", "--json")).isZero();
        assertThat(out()).contains("\"sealed\":true", "\"segments\":[]", "\"tail\":null");
    }

    @Test
    void streamInfoNamesTheMissingStreamOrScope() throws Exception {
        fake.reply("getStreamConfiguration", Status.NOT_FOUND.withDescription("stream not found"));
        fake.reply("checkScopeExists", exists(true));
        assertThat(run("stream", "info", "sc/st")).isEqualTo(1);
        assertThat(err()).isEqualTo("sluice stream info: stream 'sc/st' does not exist\n");
        fake.take("getStreamConfiguration");
        assertThat(fake.<ScopeInfo>request("checkScopeExists").getScope()).isEqualTo("sc");

        fake.reply("checkScopeExists", exists(false));
        assertThat(run("stream", "info", "sc/st", "--json")).isEqualTo(1);
        assertThat(err()).isEqualTo("sluice stream info: scope 'sc' does not exist\n");
        assertThat(out()).isEqualTo("{\"error\":{\"code\":\"not-found\",\"message\":\"scope 'sc' does not exist\"}}\n");
    }

    @Test
    void streamInfoNamesASegmentTheSegmentStoreDoesNotKnow() {
        scriptOpenStream();
        store.segment("sc/st/1.#epoch.0", 7);
        fake.reply("getCurrentSegments", SegmentRanges.newBuilder().addSegmentRanges(range(0, 0.0, 0.5))
                .addSegmentRanges(range(5, 0.5, 1.0)).build());
        assertThat(run("stream", "info", "sc/st", "--json")).isEqualTo(1);
        assertThat(err()).startsWith("sluice stream info: cannot read the length of segment sc/st/5.#epoch.0 from the "
                + "segment store at " + store.endpoint() + ": ");
        assertThat(out()).startsWith("{\"error\":{\"code\":\"not-found\",");
    }

    // =============================================================================================
    // stream seal, delete
    // =============================================================================================

    @Test
    void streamSeal() throws Exception {
        fake.reply("sealStream", updated(UpdateStreamStatus.Status.SUCCESS));
        assertThat(run("stream", "seal", "sc/st")).isZero();
        assertThat(out()).isEqualTo("stream 'sc/st' sealed\n");
        assertThat(fake.<StreamInfo>request("sealStream")).isEqualTo(ST);
        assertThat(run("stream", "seal", "sc/st", "--json")).isZero();
        assertThat(out()).isEqualTo("{\"stream\":\"sc/st\",\"sealed\":true}\n");
    }

    @Test
    void streamSealOfAMissingStream() {
        fake.reply("sealStream", updated(UpdateStreamStatus.Status.STREAM_NOT_FOUND));
        fake.reply("checkScopeExists", exists(true));
        assertThat(run("stream", "seal", "sc/st")).isEqualTo(1);
        assertThat(err()).isEqualTo("sluice stream seal: stream 'sc/st' does not exist\n");
    }

    private static DeleteStreamStatus deleted(DeleteStreamStatus.Status status) {
        return DeleteStreamStatus.newBuilder().setStatus(status).build();
    }

    @Test
    void streamDeleteOfASealedStream() throws Exception {
        fake.reply("deleteStream", deleted(DeleteStreamStatus.Status.SUCCESS));
        assertThat(run("stream", "delete", "sc/st")).isZero();
        assertThat(out()).isEqualTo("stream 'sc/st' deleted\n");
        assertThat(fake.<StreamInfo>request("deleteStream")).isEqualTo(ST);
        assertThat(run("stream", "delete", "sc/st", "--json")).isZero();
        assertThat(out()).isEqualTo("{\"stream\":\"sc/st\",\"sealedFirst\":false,\"deleted\":true}\n");
    }

    @Test
    void streamDeleteOfAnOpenStreamNeedsForce() throws Exception {
        fake.reply("deleteStream", deleted(DeleteStreamStatus.Status.STREAM_NOT_SEALED));
        assertThat(run("stream", "delete", "sc/st", "--json")).isEqualTo(1);
        assertThat(err()).isEqualTo("sluice stream delete: stream 'sc/st' is not sealed; seal it before deleting it "
                + "(or pass --force to seal and delete it)\n");
        assertThat(out()).startsWith("{\"error\":{\"code\":\"precondition-failed\",");
        fake.take("deleteStream");
        assertThat(fake.pendingCalls()).as("not sealed without --force").isZero();

        fake.reply("deleteStream", deleted(DeleteStreamStatus.Status.STREAM_NOT_SEALED),
                deleted(DeleteStreamStatus.Status.SUCCESS));
        fake.reply("sealStream", updated(UpdateStreamStatus.Status.SUCCESS));
        assertThat(run("stream", "delete", "sc/st", "--force")).isZero();
        assertThat(out()).isEqualTo("stream 'sc/st' sealed and deleted\n");
        fake.take("deleteStream");
        assertThat(fake.<StreamInfo>request("sealStream")).isEqualTo(ST);
        fake.take("deleteStream");
    }

    @Test
    void streamDeleteForceAsJson() {
        fake.reply("deleteStream", deleted(DeleteStreamStatus.Status.STREAM_NOT_SEALED),
                deleted(DeleteStreamStatus.Status.SUCCESS));
        fake.reply("sealStream", updated(UpdateStreamStatus.Status.SUCCESS));
        assertThat(run("stream", "delete", "sc/st", "--force", "--json")).isZero();
        assertThat(out()).isEqualTo("{\"stream\":\"sc/st\",\"sealedFirst\":true,\"deleted\":true}\n");
    }

    @Test
    void streamDeleteOfAMissingStream() {
        fake.reply("deleteStream", deleted(DeleteStreamStatus.Status.STREAM_NOT_FOUND));
        fake.reply("checkScopeExists", exists(false));
        assertThat(run("stream", "delete", "sc/st", "--force")).isEqualTo(1);
        assertThat(err()).isEqualTo("sluice stream delete: scope 'sc' does not exist\n");
    }

    @Test
    void deleteHelpSaysThatForceSeals() {
        assertThat(run("stream", "delete", "--help")).isZero();
        assertThat(out()).contains("only a sealed stream can be deleted", "--force", "seal the stream first",
                "Exit status: 0 success, 1 failure");
    }

    // =============================================================================================
    // stream truncate
    // =============================================================================================

    @Test
    void streamTruncateToTheTail() throws Exception {
        fake.reply("getCurrentSegments", twoSegments());
        fake.reply("getURI", storeUri());
        fake.reply("truncateStream", updated(UpdateStreamStatus.Status.SUCCESS));
        store.segment("sc/st/0.#epoch.0", 120).segment("sc/st/1.#epoch.0", 7);
        assertThat(run("stream", "truncate", "sc/st", "--to", "tail")).isZero();
        assertThat(out()).isEqualTo("stream 'sc/st' truncated at 0.#epoch.0=120,1.#epoch.0=7\n");
        fake.take("getCurrentSegments");
        fake.take("getURI");
        fake.take("getURI");
        assertThat(fake.<StreamCut>request("truncateStream")).isEqualTo(StreamCut.newBuilder().setStreamInfo(ST)
                .putCut(0, 120).putCut(1, 7).build());

        assertThat(run("stream", "truncate", "sc/st", "--to", "tail", "--json")).isZero();
        assertThat(out()).isEqualTo("{\"stream\":\"sc/st\",\"truncatedAt\":["
                + "{\"segment\":\"0.#epoch.0\",\"id\":0,\"number\":0,\"epoch\":0,\"offset\":120},"
                + "{\"segment\":\"1.#epoch.0\",\"id\":1,\"number\":1,\"epoch\":0,\"offset\":7}]}\n");
    }

    @Test
    void streamTruncateToTheHead() throws Exception {
        fake.reply("getSegments", at(0, 3, 1, 4));
        fake.reply("truncateStream", updated(UpdateStreamStatus.Status.SUCCESS));
        assertThat(run("stream", "truncate", "sc/st", "--to", "head")).isZero();
        assertThat(out()).isEqualTo("stream 'sc/st' truncated at 0.#epoch.0=3,1.#epoch.0=4\n");
        fake.take("getSegments");
        assertThat(fake.<StreamCut>request("truncateStream").getCutMap()).isEqualTo(Map.of(0L, 3L, 1L, 4L));
    }

    @Test
    void streamTruncateToAnExplicitCut() throws Exception {
        fake.reply("getCurrentSegments", SegmentRanges.newBuilder().addSegmentRanges(range(EPOCH1 | 2, 0.0, 0.5))
                .addSegmentRanges(range(1, 0.5, 1.0)).setDelegationToken(TOKEN).build());
        fake.reply("getURI", storeUri());
        fake.reply("isStreamCutValid", StreamCutValidityResponse.newBuilder().setResponse(true).build());
        fake.reply("truncateStream", updated(UpdateStreamStatus.Status.SUCCESS));
        store.segment("sc/st/2.#epoch.1", 50).segment("sc/st/1.#epoch.0", 7);
        // three spellings of a segment: as 'stream info' prints it, qualified, and as a segment id
        assertThat(run("stream", "truncate", "sc/st", "--to", "2.#epoch.1=50,sc/st/1.#epoch.0=7")).isZero();
        assertThat(out()).isEqualTo("stream 'sc/st' truncated at 1.#epoch.0=7,2.#epoch.1=50\n");
        fake.take("getCurrentSegments");
        fake.take("getURI");
        fake.take("getURI");
        assertThat(fake.<StreamCut>request("isStreamCutValid").getCutMap()).isEqualTo(Map.of(EPOCH1 | 2, 50L, 1L, 7L));
        assertThat(fake.<StreamCut>request("truncateStream").getCutMap()).isEqualTo(Map.of(EPOCH1 | 2, 50L, 1L, 7L));
        assertThat(store.tokens()).containsOnly(TOKEN);

        assertThat(run("stream", "truncate", "sc/st", "--to", (EPOCH1 | 2) + "=10,1=0")).isZero();
        assertThat(out()).isEqualTo("stream 'sc/st' truncated at 1.#epoch.0=0,2.#epoch.1=10\n");
    }

    @Test
    void streamTruncateRejectsOffsetsBeyondTheEndAndInvalidCuts() throws Exception {
        fake.reply("getCurrentSegments", twoSegments());
        fake.reply("getURI", storeUri());
        fake.reply("isStreamCutValid", StreamCutValidityResponse.newBuilder().setResponse(false).build());
        store.segment("sc/st/0.#epoch.0", 120).segment("sc/st/1.#epoch.0", 7);
        assertThat(run("stream", "truncate", "sc/st", "--to", "0.#epoch.0=121,1.#epoch.0=0", "--json"))
                .isEqualTo(1);
        assertThat(err()).isEqualTo("sluice stream truncate: offset 121 of segment 0.#epoch.0 lies beyond its end "
                + "(120)\n");
        assertThat(out()).startsWith("{\"error\":{\"code\":\"invalid-argument\",");

        assertThat(run("stream", "truncate", "sc/st", "--to", "0.#epoch.0=120")).isEqualTo(1);
        assertThat(err()).isEqualTo("sluice stream truncate: stream cut 0.#epoch.0=120 is not valid for stream sc/st: "
                + "its segments must cover every routing key exactly once\n");
        for (String rpc : List.of("getCurrentSegments", "getURI", "getURI", "getCurrentSegments", "getURI",
                "isStreamCutValid")) {
            fake.take(rpc);
        }
        assertThat(fake.pendingCalls()).as("no truncateStream").isZero();
    }

    @Test
    void streamTruncateOfASealedStream() {
        fake.reply("getCurrentSegments", SegmentRanges.getDefaultInstance());
        assertThat(run("stream", "truncate", "sc/st", "--to", "tail")).isEqualTo(1);
        assertThat(err()).isEqualTo("sluice stream truncate: stream 'sc/st' is sealed\n");

        fake.reply("getSegments", at(0, 0));
        fake.reply("truncateStream", updated(UpdateStreamStatus.Status.STREAM_SEALED));
        assertThat(run("stream", "truncate", "sc/st", "--to", "head", "--json")).isEqualTo(1);
        assertThat(out()).isEqualTo("{\"error\":{\"code\":\"precondition-failed\",\"message\":\"stream 'sc/st' is "
                + "sealed\"}}\n");
    }

    @Test
    void streamTruncateUsageErrors() {
        assertThat(run("stream", "truncate", "sc/st")).isEqualTo(2);
        assertThat(err()).contains("Missing required option: '--to=tail|head|CUT'");
        assertThat(run("stream", "truncate", "sc/st", "--to", "end")).isEqualTo(2);
        assertThat(err()).contains("'end' in stream cut 'end' is not SEGMENT=OFFSET");
        assertThat(run("stream", "truncate", "sc/st", "--to", "0.#epoch.0=-1")).isEqualTo(2);
        assertThat(err()).contains("offset -1 of segment 0.#epoch.0 is negative");
        assertThat(run("stream", "truncate", "sc/st", "--to", "0=1,0.#epoch.0=2")).isEqualTo(2);
        assertThat(err()).contains("segment 0.#epoch.0 appears twice");
        assertThat(run("stream", "truncate", "sc/st", "--to", "other/st/0.#epoch.0=1")).isEqualTo(2);
        assertThat(err()).contains("segment 'other/st/0.#epoch.0' is not a segment of stream sc/st");
        assertThat(run("stream", "truncate", "sc/st", "--to", "0.#epoch.x=1")).isEqualTo(2);
        assertThat(err()).contains("epoch 'x' is not a non-negative integer");
        assertThat(fake.pendingCalls()).isZero();
    }

    // =============================================================================================
    // options common to every command
    // =============================================================================================

    @Test
    void basicCredentialsFromOptionsOrEnvironment() throws Exception {
        fake.reply("listScopes", ScopesResponse.getDefaultInstance());
        assertThat(run("scope", "list", "--user", "admin", "--password", "1111_aaaa")).isZero();
        assertThat(fake.take("listScopes").headers().get(Metadata.Key.of("authorization",
                Metadata.ASCII_STRING_MARSHALLER))).isEqualTo(basic("admin", "1111_aaaa"));

        env.put("SLUICE_USER", "reader");
        env.put("SLUICE_PASSWORD", "s3cret");
        assertThat(run("scope", "list")).isZero();
        assertThat(fake.take("listScopes").headers().get(Metadata.Key.of("authorization",
                Metadata.ASCII_STRING_MARSHALLER))).isEqualTo(basic("reader", "s3cret"));
        assertThat(run("scope", "list", "--password", "other")).as("an option wins over the environment").isZero();
        assertThat(fake.take("listScopes").headers().get(Metadata.Key.of("authorization",
                Metadata.ASCII_STRING_MARSHALLER))).isEqualTo(basic("reader", "other"));
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void noCredentialsByDefault() throws Exception {
        fake.reply("listScopes", ScopesResponse.getDefaultInstance());
        assertThat(run("scope", "list")).isZero();
        assertThat(fake.take("listScopes").headers().get(Metadata.Key.of("authorization",
                Metadata.ASCII_STRING_MARSHALLER))).isNull();
        assertThat(configs.getFirst().credentials()).isEmpty();
    }

    @Test
    void incompleteCredentialsAreUsageErrors() {
        assertThat(run("scope", "list", "--user", "admin")).isEqualTo(2);
        assertThat(err()).contains("user 'admin' needs a password: give --password or set $SLUICE_PASSWORD");
        assertThat(run("scope", "list", "--password", "x")).isEqualTo(2);
        assertThat(err()).contains("--password needs a user: give --user or set $SLUICE_USER");
        assertThat(configs).isEmpty();
    }

    @Test
    void controllerUriAndTimeout() {
        fake.reply("listScopes", ScopesResponse.getDefaultInstance());
        assertThat(run("scope", "list")).isZero();
        assertThat(configs.getLast().controllerUri()).hasToString("tcp://127.0.0.1:9090");
        assertThat(configs.getLast().operationTimeout()).isEqualTo(Duration.ofSeconds(30));

        env.put("SLUICE_CONTROLLER", "tls://c1:9443,c2:9443");
        assertThat(run("scope", "list", "--timeout", "2m")).isZero();
        assertThat(configs.getLast().controllerUri()).hasToString("tls://c1:9443,c2:9443");
        assertThat(configs.getLast().operationTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(configs.getLast().rpcTimeout()).isEqualTo(Duration.ofMinutes(2));

        assertThat(run("scope", "list", "--controller", "pravega://seed:9090")).isZero();
        assertThat(configs.getLast().controllerUri()).hasToString("pravega://seed:9090");

        assertThat(run("scope", "list", "--controller", "http://x:9090")).isEqualTo(2);
        assertThat(err()).contains("--controller: controller URI 'http://x:9090' has the unknown scheme 'http'");
        assertThat(run("scope", "list", "--timeout", "0s")).isEqualTo(2);
        assertThat(err()).contains("--timeout must be positive");
    }

    @Test
    void unavailableControllerFailsWithItsAddress() {
        fake.reply("listScopes", Status.UNAVAILABLE.withDescription("connection refused"));
        // attempts after 0, 1, 10, 100 ms and ~1 s; the next backoff (~10 s) does not fit into 5 s: give up
        assertThat(run("scope", "list", "--timeout", "5s", "--json")).isEqualTo(1);
        assertThat(err()).startsWith("sluice scope list: the controller at tcp://127.0.0.1:9090 is not available: "
                + "listScopes failed after ").contains("UNAVAILABLE: connection refused").doesNotContain("\tat ");
        assertThat(out()).startsWith("{\"error\":{\"code\":\"unavailable\",\"message\":\"the controller at ");
    }

    @Test
    void internalControllerErrorIsReportedInTheControllersWordsNotAsUnavailable() {
        fake.reply("listScopes", Status.INTERNAL.withDescription("segment container 0 is broken"));
        // retried as Pravega's client retries INTERNAL, until the time is up; then the controller's own message
        assertThat(run("scope", "list", "--timeout", "2s", "--json")).isEqualTo(1);
        assertThat(err()).startsWith("sluice scope list: listScopes failed after ")
                .contains("INTERNAL: segment container 0 is broken").doesNotContain("not available", "\tat ");
        assertThat(out()).startsWith("{\"error\":{\"code\":\"failed\",\"message\":\"listScopes failed after ");
    }

    @Test
    void trustStoreWithAPlainTcpControllerIsAUsageError() {
        assertThat(run("scope", "list", "--trust-store", "ca.pem", "--controller", "tcp://c:9090")).isEqualTo(2);
        assertThat(err()).startsWith("sluice scope list: --trust-store applies to TLS only, but --controller is "
                + "tcp://c:9090 (plain TCP)");
        env.put("SLUICE_CONTROLLER", "pravega://seed:9090");
        assertThat(run("scope", "list", "--trust-store", "ca.pem")).isEqualTo(2);
        assertThat(err()).contains("but $SLUICE_CONTROLLER is pravega://seed:9090 (plain TCP)");
        assertThat(configs).isEmpty();
    }

    @Test
    void streamCreateRefusesMoreSegmentsThanCanBeServed() {
        assertThat(run("stream", "create", "sc/st", "--segments", "100000")).isEqualTo(2);
        // 3 MiB for the list, 2 + 2 bytes of names and 40 of the rest per segment: 71,493
        assertThat(err()).startsWith("sluice stream create: --segments must be at most 71493 for a stream of these "
                + "names").contains("100000");
        assertThat(run("stream", "create", "sc/st", "--scale-by-events-per-sec", "10", "--min-segments", "71494"))
                .isEqualTo(2);
        assertThat(err()).startsWith("sluice stream create: --min-segments must be at most 71493");
        String longNames = "s".repeat(250) + "/" + "t".repeat(250);
        assertThat(run("stream", "create", longNames, "--segments", "5826")).isEqualTo(2);
        assertThat(err()).startsWith("sluice stream create: --segments must be at most 5825");
        assertThat(configs).as("no controller was contacted").isEmpty();
    }

    @Test
    void verbosePrintsTheStackTrace() {
        fake.reply("createScope", Status.PERMISSION_DENIED.withDescription("no"));
        assertThat(run("scope", "create", "sc")).isEqualTo(1);
        assertThat(err()).isEqualTo("sluice scope create: createScope sc: not allowed: PERMISSION_DENIED: no\n");
        assertThat(run("scope", "create", "sc", "--verbose", "--json")).isEqualTo(1);
        assertThat(err()).startsWith("sluice scope create: createScope sc: not allowed: PERMISSION_DENIED: no\n"
                + "io.sluice.errors.AuthorizationException").contains("\tat io.sluice.");
        assertThat(out()).isEqualTo("{\"error\":{\"code\":\"unauthorized\",\"message\":\"createScope sc: not allowed: "
                + "PERMISSION_DENIED: no\"}}\n");
    }

    @Test
    void topLevelHelpListsTheCommands() {
        assertThat(run("--help")).isZero();
        assertThat(out()).contains("scope", "stream", "wire");
        assertThat(run("stream", "--help")).isZero();
        assertThat(out()).contains("create", "list", "info", "seal", "delete", "truncate");
        assertThat(run("stream", "create", "--help")).isZero();
        assertThat(out()).contains("--segments=N", "--scale-by-events-per-sec=RATE", "--scale-by-kbytes-per-sec=RATE",
                "--scale-factor=F", "--min-segments=M", "--retention-time=DURATION", "--retention-size=BYTES",
                "--tag=TAG", "--controller=URI", "--user=NAME", "--password=PASSWORD", "--json", "--verbose",
                "SLUICE_CONTROLLER", "SLUICE_PASSWORD");
    }
}
