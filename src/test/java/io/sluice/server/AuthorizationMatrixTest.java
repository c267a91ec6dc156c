package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.sluice.controller.grpc.v1.ControllerServiceGrpc;
import io.sluice.controller.grpc.v1.ControllerServiceGrpc.ControllerServiceBlockingStub;
import io.sluice.controller.grpc.v1.ControllerToBucketMappingRequest;
import io.sluice.controller.grpc.v1.CreateTxnRequest;
import io.sluice.controller.grpc.v1.GetEpochSegmentsRequest;
import io.sluice.controller.grpc.v1.GetSegmentsRequest;
import io.sluice.controller.grpc.v1.KVTablesInScopeRequest;
import io.sluice.controller.grpc.v1.KeyValueTableConfig;
import io.sluice.controller.grpc.v1.KeyValueTableInfo;
import io.sluice.controller.grpc.v1.ListCompletedTxnRequest;
import io.sluice.controller.grpc.v1.PingTxnRequest;
import io.sluice.controller.grpc.v1.ReaderGroupConfiguration;
import io.sluice.controller.grpc.v1.ReaderGroupInfo;
import io.sluice.controller.grpc.v1.RemoveWriterRequest;
import io.sluice.controller.grpc.v1.ScaleRequest;
import io.sluice.controller.grpc.v1.ScaleStatusRequest;
import io.sluice.controller.grpc.v1.ScalingPolicy;
import io.sluice.controller.grpc.v1.ScopeInfo;
import io.sluice.controller.grpc.v1.ScopesRequest;
import io.sluice.controller.grpc.v1.SegmentId;
import io.sluice.controller.grpc.v1.ServerRequest;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.controller.grpc.v1.StreamCut;
import io.sluice.controller.grpc.v1.StreamCutRange;
import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.controller.grpc.v1.StreamsInScopeRequest;
import io.sluice.controller.grpc.v1.StreamsInScopeWithTagRequest;
import io.sluice.controller.grpc.v1.SubscriberStreamCut;
import io.sluice.controller.grpc.v1.TimestampFromWriter;
import io.sluice.controller.grpc.v1.TxnId;
import io.sluice.controller.grpc.v1.TxnRequest;
import io.sluice.server.auth.AccessLevel;
import io.sluice.server.auth.DelegationTokens;
import io.sluice.server.controller.PasswordFile;
import io.sluice.wire.AppendEncoder;
import io.sluice.wire.AppendSetup;
import io.sluice.wire.AuthTokenCheckFailed;
import io.sluice.wire.ConditionalAttributeUpdate;
import io.sluice.wire.CreateSegment;
import io.sluice.wire.CreateTableSegment;
import io.sluice.wire.CreateTransientSegment;
import io.sluice.wire.DeleteSegment;
import io.sluice.wire.DeleteTableSegment;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.GetSegmentAttribute;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.GetTableSegmentInfo;
import io.sluice.wire.Hello;
import io.sluice.wire.KeepAlive;
import io.sluice.wire.ListStorageChunks;
import io.sluice.wire.LocateOffset;
import io.sluice.wire.MergeSegments;
import io.sluice.wire.MergeSegmentsBatch;
import io.sluice.wire.OffsetLocated;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.ReadTable;
import io.sluice.wire.ReadTableEntries;
import io.sluice.wire.ReadTableEntriesDelta;
import io.sluice.wire.ReadTableKeys;
import io.sluice.wire.RemoveTableKeys;
import io.sluice.wire.Reply;
import io.sluice.wire.Request;
import io.sluice.wire.SealSegment;
import io.sluice.wire.SegmentAttribute;
import io.sluice.wire.SegmentAttributeUpdated;
import io.sluice.wire.SegmentCreated;
import io.sluice.wire.SegmentDeleted;
import io.sluice.wire.SegmentPolicyUpdated;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.SegmentSealed;
import io.sluice.wire.SegmentTruncated;
import io.sluice.wire.SegmentsBatchMerged;
import io.sluice.wire.SegmentsMerged;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.StreamSegmentInfo;
import io.sluice.wire.TableEntries;
import io.sluice.wire.TableEntriesDeltaRead;
import io.sluice.wire.TableEntriesRead;
import io.sluice.wire.TableEntriesUpdated;
import io.sluice.wire.TableEntry;
import io.sluice.wire.TableIteratorArgs;
import io.sluice.wire.TableKey;
import io.sluice.wire.TableKeysRead;
import io.sluice.wire.TableKeysRemoved;
import io.sluice.wire.TableRead;
import io.sluice.wire.TableSegmentInfo;
import io.sluice.wire.TableValue;
import io.sluice.wire.TruncateSegment;
import io.sluice.wire.UpdateSegmentAttribute;
import io.sluice.wire.UpdateSegmentPolicy;
import io.sluice.wire.UpdateTableEntries;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireCommandType;
import io.sluice.wire.WireOutput;

/**
 * The authorisation matrix of the embedded server with {@code --auth}: every wire command that names a segment and
 * every controller RPC, each with no credentials, forged ones, expired ones, ones for another stream, read-only ones
 * and (the positive control) valid ones, answered as Pravega 0.13 answers them.
 *
 * <p>Wire (reads need READ, changes READ_UPDATE): a refused command gets {@code AuthTokenCheckFailed} with
 * TOKEN_EXPIRED for an expired token and TOKEN_CHECK_FAILED for any other refusal. Controller: UNAUTHENTICATED for
 * missing, foreign or wrong credentials, PERMISSION_DENIED for a user whose access control list grants too little.
 * The rules per RPC are Pravega 0.13's {@code ControllerServiceImpl} (with its default of reader-group writes on
 * READ); a command or RPC missing from the tables fails {@link #everyWireCommandThatNamesASegmentIsInTheMatrix} or
 * {@link #everyControllerRpcIsInTheMatrix}.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class AuthorizationMatrixTest {
    private static final byte[] SECRET = "matrix-secret-matrix-secret-0123".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FORGER = "forger-secret-forger-secret-0123".getBytes(StandardCharsets.US_ASCII);
    private static final String STREAM = "alice/mine";
    private static final String OTHER_STREAM = "bob/secret";
    private static final Duration WAIT = Duration.ofSeconds(10);

    /** What a request carries; on the wire a delegation token, on the controller Basic credentials. */
    enum Kind {
        /** No token / no authorization header. */
        NONE,
        /** A token signed with another secret / a wrong password. */
        FORGED,
        /** A token that expired / an expired delegation token sent as a bearer token. */
        EXPIRED,
        /** A valid READ_UPDATE token for another stream / a user with rights on another scope only. */
        OTHER_STREAM,
        /** A valid READ token for the stream / a user with READ on everything. */
        READ_ONLY,
        /** A valid READ_UPDATE token for the stream / a user with READ_UPDATE on everything: must pass. */
        VALID
    }

    /** What a command needs. */
    enum Need {
        /** Nothing: open to anyone who is not refused for wrong credentials. */
        NOTHING,
        /** READ. */
        READ,
        /** READ_UPDATE. */
        UPDATE
    }

    @TempDir
    static Path dir;

    private static EmbeddedServer server;
    private static DelegationTokens tokens;
    private static ManagedChannel channel;
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static TxnId txn;

    @BeforeAll
    static void start() throws IOException {
        Path users = dir.resolve("users");
        Files.write(users, List.of(
                PasswordFile.entry("admin", "admin-pw".toCharArray(), "prn::*,READ_UPDATE", 1),
                PasswordFile.entry("reader", "reader-pw".toCharArray(), "*=READ", 1),
                PasswordFile.entry("bob", "bob-pw".toCharArray(),
                        "prn::/scope:bob,READ_UPDATE;prn::/scope:bob/*,READ_UPDATE", 1)));
        tokens = new DelegationTokens(SECRET, DelegationTokens.DEFAULT_LIFETIME, Clock.systemUTC());
        server = EmbeddedServer.builder().passwordFile(users).delegationTokens(tokens).build();
        channel = ManagedChannelBuilder.forAddress(server.controllerEndpoint().host(),
                server.controllerEndpoint().port()).usePlaintext().build();
        ControllerServiceBlockingStub admin = stub(Kind.VALID);
        for (String scope : List.of("alice", "bob")) {
            admin.createScope(ScopeInfo.newBuilder().setScope(scope).build());
        }
        admin.createStream(fixed("alice", "mine"));
        admin.createStream(fixed("bob", "secret"));
        admin.createReaderGroup(groupConfig("grp"));
        admin.createKeyValueTable(KeyValueTableConfig.newBuilder().setScope("alice").setKvtName("tbl")
                .setPartitionCount(1).setPrimaryKeyLength(4).setSecondaryKeyLength(4).build());
        txn = admin.createTransaction(CreateTxnRequest.newBuilder().setStreamInfo(info("alice", "mine"))
                .setLease(60_000).build()).getTxnId();
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close();
        }
    }

    // ======================================================================= tokens and credentials

    private static String token(Kind kind) {
        return switch (kind) {
            case NONE -> "";
            case FORGED -> new DelegationTokens(FORGER, Duration.ofMinutes(10), Clock.systemUTC())
                    .create("admin", STREAM, AccessLevel.READ_UPDATE);
            case EXPIRED -> expiredToken();
            case OTHER_STREAM -> tokens.create("admin", OTHER_STREAM, AccessLevel.READ_UPDATE);
            case READ_ONLY -> tokens.create("reader", STREAM, AccessLevel.READ);
            case VALID -> tokens.create("admin", STREAM, AccessLevel.READ_UPDATE);
        };
    }

    private static String expiredToken() {
        Clock anHourAgo = Clock.fixed(Instant.now().minus(Duration.ofHours(1)), ZoneOffset.UTC);
        return new DelegationTokens(SECRET, Duration.ofMinutes(1), anHourAgo).create("admin", STREAM,
                AccessLevel.READ_UPDATE);
    }

    private static ControllerServiceBlockingStub stub(Kind kind) {
        Metadata headers = new Metadata();
        Metadata.Key<String> authorization = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
        switch (kind) {
            case NONE -> { }
            case FORGED -> headers.put(authorization, basic("admin", "not-the-password"));
            case EXPIRED -> headers.put(authorization, "Bearer " + expiredToken());
            case OTHER_STREAM -> headers.put(authorization, basic("bob", "bob-pw"));
            case READ_ONLY -> headers.put(authorization, basic("reader", "reader-pw"));
            case VALID -> headers.put(authorization, basic("admin", "admin-pw"));
        }
        return ControllerServiceGrpc.newBlockingStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
                .withDeadlineAfter(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    // ======================================================================= the wire matrix

    /** One wire command: what it needs, how to make it for a token, and what a permitted one is answered with. */
    private record WireCase(Class<? extends Request> command, Need need, Function<String, LongFunction<Request>> make,
                            Class<? extends Reply> success) {
    }

    private static String freshSegment() {
        String name = STREAM + "/" + COUNTER.incrementAndGet() + ".#epoch.0";
        server.segmentStore().createSegment(name, CreateSegment.NO_SCALE, 0, 0);
        return name;
    }

    private static String freshSealedSegment() {
        String name = freshSegment();
        server.segmentStore().sealSegment(name);
        return name;
    }

    private static String freshTable() {
        String name = STREAM + "/table" + COUNTER.incrementAndGet() + ".#epoch.0";
        server.segmentStore().createTableSegment(name, 0);
        return name;
    }

    private static String unusedName() {
        return STREAM + "/" + COUNTER.incrementAndGet() + ".#epoch.0";
    }

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static TableKey key() {
        return new TableKey(bytes("k"), TableKey.NO_VERSION);
    }

    private static TableIteratorArgs allKeys() {
        return new TableIteratorArgs(bytes(""), bytes(""), bytes(""), bytes(""));
    }

    /** Every wire command that names a segment, in {@code ServerConnection.handle}'s order. */
    private static List<WireCase> wireCases() {
        List<WireCase> cases = new ArrayList<>();
        cases.add(new WireCase(SetupAppend.class, Need.UPDATE, t -> {
            String s = freshSegment();
            return id -> new SetupAppend(id, UUID.randomUUID(), s, t);
        }, AppendSetup.class));
        cases.add(new WireCase(ReadSegment.class, Need.READ, t -> {
            String s = freshSealedSegment();
            return id -> new ReadSegment(s, 0, 100, t, id);
        }, SegmentRead.class));
        cases.add(new WireCase(GetStreamSegmentInfo.class, Need.READ, t -> {
            String s = freshSegment();
            return id -> new GetStreamSegmentInfo(id, s, t);
        }, StreamSegmentInfo.class));
        cases.add(new WireCase(GetSegmentAttribute.class, Need.READ, t -> {
            String s = freshSegment();
            return id -> new GetSegmentAttribute(id, s, UUID.randomUUID(), t);
        }, SegmentAttribute.class));
        cases.add(new WireCase(GetTableSegmentInfo.class, Need.READ, t -> {
            String s = freshTable();
            return id -> new GetTableSegmentInfo(id, s, t);
        }, TableSegmentInfo.class));
        cases.add(new WireCase(LocateOffset.class, Need.READ, t -> {
            String s = freshSegment();
            return id -> new LocateOffset(id, s, 0, t);
        }, OffsetLocated.class));
        cases.add(new WireCase(ReadTable.class, Need.READ, t -> {
            String s = freshTable();
            return id -> new ReadTable(id, s, t, List.of(key()));
        }, TableRead.class));
        cases.add(new WireCase(ReadTableKeys.class, Need.READ, t -> {
            String s = freshTable();
            return id -> new ReadTableKeys(id, s, t, 10, allKeys());
        }, TableKeysRead.class));
        cases.add(new WireCase(ReadTableEntries.class, Need.READ, t -> {
            String s = freshTable();
            return id -> new ReadTableEntries(id, s, t, 10, allKeys());
        }, TableEntriesRead.class));
        cases.add(new WireCase(ReadTableEntriesDelta.class, Need.READ, t -> {
            String s = freshTable();
            return id -> new ReadTableEntriesDelta(id, s, t, 0, 10);
        }, TableEntriesDeltaRead.class));
        cases.add(new WireCase(CreateTransientSegment.class, Need.UPDATE, t -> {
            String s = freshSegment();
            return id -> new CreateTransientSegment(id, UUID.randomUUID(), s, t);
        }, SegmentCreated.class));
        cases.add(new WireCase(TruncateSegment.class, Need.UPDATE, t -> {
            String s = freshSegment();
            return id -> new TruncateSegment(id, s, 0, t);
        }, SegmentTruncated.class));
        cases.add(new WireCase(CreateSegment.class, Need.UPDATE, t -> {
            String s = unusedName();
            return id -> new CreateSegment(id, s, CreateSegment.NO_SCALE, 0, t, 0);
        }, SegmentCreated.class));
        cases.add(new WireCase(CreateTableSegment.class, Need.UPDATE, t -> {
            String s = unusedName();
            return id -> new CreateTableSegment(id, s, false, 0, t, 0);
        }, SegmentCreated.class));
        cases.add(new WireCase(SealSegment.class, Need.UPDATE, t -> {
            String s = freshSegment();
            return id -> new SealSegment(id, s, t);
        }, SegmentSealed.class));
        cases.add(new WireCase(DeleteSegment.class, Need.UPDATE, t -> {
            String s = freshSegment();
            return id -> new DeleteSegment(id, s, t);
        }, SegmentDeleted.class));
        cases.add(new WireCase(DeleteTableSegment.class, Need.UPDATE, t -> {
            String s = freshTable();
            return id -> new DeleteTableSegment(id, s, false, t);
        }, SegmentDeleted.class));
        cases.add(new WireCase(UpdateSegmentPolicy.class, Need.UPDATE, t -> {
            String s = freshSegment();
            return id -> new UpdateSegmentPolicy(id, s, CreateSegment.NO_SCALE, 0, t);
        }, SegmentPolicyUpdated.class));
        cases.add(new WireCase(UpdateSegmentAttribute.class, Need.UPDATE, t -> {
            String s = freshSegment();
            return id -> new UpdateSegmentAttribute(id, s, UUID.randomUUID(), 1, Long.MIN_VALUE, t);
        }, SegmentAttributeUpdated.class));
        cases.add(new WireCase(MergeSegments.class, Need.UPDATE, t -> {
            String target = freshSegment();
            String source = freshSealedSegment();
            return id -> new MergeSegments(id, target, source, t, List.<ConditionalAttributeUpdate>of());
        }, SegmentsMerged.class));
        cases.add(new WireCase(MergeSegmentsBatch.class, Need.UPDATE, t -> {
            String target = freshSegment();
            String source = freshSealedSegment();
            return id -> new MergeSegmentsBatch(id, target, List.of(source), t);
        }, SegmentsBatchMerged.class));
        cases.add(new WireCase(UpdateTableEntries.class, Need.UPDATE, t -> {
            String s = freshTable();
            return id -> new UpdateTableEntries(id, s, t, new TableEntries(List.of(new TableEntry(key(),
                    new TableValue(bytes("v"))))), UpdateTableEntries.NULL_TABLE_SEGMENT_OFFSET);
        }, TableEntriesUpdated.class));
        cases.add(new WireCase(RemoveTableKeys.class, Need.UPDATE, t -> {
            String s = freshTable();
            return id -> new RemoveTableKeys(id, s, t, List.of(key()), UpdateTableEntries.NULL_TABLE_SEGMENT_OFFSET);
        }, TableKeysRemoved.class));
        // an admin command: not served on the data port, whatever the token (the connection is closed)
        cases.add(new WireCase(ListStorageChunks.class, Need.NOTHING, t -> {
            String s = freshSegment();
            return id -> new ListStorageChunks(s, t, id);
        }, null));
        return cases;
    }

    /** What a command with a token of this kind must get: a success reply, an error code, or a closed connection. */
    private static String expected(WireCase c, Kind kind) {
        if (c.success() == null) {
            return "connection closed";
        }
        return switch (kind) {
            case EXPIRED -> AuthTokenCheckFailed.ErrorCode.TOKEN_EXPIRED.name();
            case NONE, FORGED, OTHER_STREAM -> AuthTokenCheckFailed.ErrorCode.TOKEN_CHECK_FAILED.name();
            case READ_ONLY -> c.need() == Need.READ ? c.success().getSimpleName()
                    : AuthTokenCheckFailed.ErrorCode.TOKEN_CHECK_FAILED.name();
            case VALID -> c.success().getSimpleName();
        };
    }

    private static String outcome(Reply reply) {
        if (reply == null) {
            return "connection closed";
        }
        return reply instanceof AuthTokenCheckFailed f ? f.errorCode().name() : reply.getClass().getSimpleName();
    }

    @TestFactory
    Stream<DynamicTest> wireCommands() {
        return wireCases().stream().flatMap(c -> Arrays.stream(Kind.values()).map(kind ->
                DynamicTest.dynamicTest(c.command().getSimpleName() + " with " + kind, () -> {
                    LongFunction<Request> request = c.make().apply(token(kind));
                    try (Wire wire = new Wire()) {
                        long id = wire.nextId();
                        wire.send(request.apply(id));
                        assertThat(outcome(wire.await(id))).as(c.command().getSimpleName() + " with " + kind)
                                .isEqualTo(expected(c, kind));
                    }
                })));
    }

    /**
     * A refused SetupAppend leaves no writer behind: an AppendBlockEnd for that writer then closes the connection,
     * as for a writer that never set up, and nothing is appended (issue 12, defect 1).
     */
    @TestFactory
    Stream<DynamicTest> appendsAfterARefusedSetupAppendAreRefused() {
        return Stream.of(Kind.NONE, Kind.FORGED, Kind.EXPIRED, Kind.OTHER_STREAM, Kind.READ_ONLY).map(kind ->
                DynamicTest.dynamicTest("AppendBlockEnd after SetupAppend with " + kind, () -> {
                    String segment = freshSegment();
                    UUID writer = UUID.randomUUID();
                    try (Wire wire = new Wire()) {
                        long id = wire.nextId();
                        wire.send(new SetupAppend(id, writer, segment, token(kind)));
                        assertThat(wire.await(id)).isInstanceOf(AuthTokenCheckFailed.class);
                        WireOutput out = new WireOutput();
                        long appendId = wire.nextId();
                        AppendEncoder.writeBlockEndOnly(out, writer, List.of(bytes("stolen")), 0, appendId);
                        wire.sendRaw(out.buffer());
                        assertThat(outcome(wire.await(appendId))).as("AppendBlockEnd after SetupAppend with " + kind)
                                .isEqualTo("connection closed");
                    }
                    assertThat(server.segmentStore().segmentInfo(segment).orElseThrow().length()).isZero();
                }));
    }

    /**
     * Merges are authorised against the target and every source (READ_UPDATE), so a token for one stream cannot
     * take another stream's segment (issue 12, defect 2); sources in the token's own stream (transaction segments)
     * still merge.
     */
    @TestFactory
    Stream<DynamicTest> mergesNeedRightsOnEverySource() {
        return Stream.of(
                DynamicTest.dynamicTest("MergeSegments of another stream's segment", () -> {
                    String target = freshSegment();
                    String stolen = otherStreamSealedSegment();
                    assertRefusedMerge(id -> new MergeSegments(id, target, stolen, token(Kind.VALID), List.of()),
                            stolen);
                }),
                DynamicTest.dynamicTest("MergeSegmentsBatch with one source in another stream", () -> {
                    String target = freshSegment();
                    String own = freshSealedSegment();
                    String stolen = otherStreamSealedSegment();
                    assertRefusedMerge(id -> new MergeSegmentsBatch(id, target, List.of(own, stolen),
                            token(Kind.VALID)), stolen);
                }),
                DynamicTest.dynamicTest("MergeSegments with a token for the target's stream only", () -> {
                    String target = otherStreamSegment();
                    String source = freshSealedSegment();
                    String both = tokens.create("admin", OTHER_STREAM, AccessLevel.READ_UPDATE);
                    assertRefusedMerge(id -> new MergeSegments(id, target, source, both, List.of()), source);
                }),
                DynamicTest.dynamicTest("MergeSegments of a transaction segment of the token's stream", () -> {
                    String target = freshSegment();
                    String txnSegment = target + "#transaction." + "0".repeat(31) + "1";
                    server.segmentStore().createSegment(txnSegment, CreateSegment.NO_SCALE, 0, 0);
                    server.segmentStore().sealSegment(txnSegment);
                    try (Wire wire = new Wire()) {
                        long id = wire.nextId();
                        wire.send(new MergeSegments(id, target, txnSegment, token(Kind.VALID), List.of()));
                        assertThat(outcome(wire.await(id))).isEqualTo(SegmentsMerged.class.getSimpleName());
                    }
                }));
    }

    private static String otherStreamSegment() {
        String name = OTHER_STREAM + "/" + COUNTER.incrementAndGet() + ".#epoch.0";
        server.segmentStore().createSegment(name, CreateSegment.NO_SCALE, 0, 0);
        return name;
    }

    private static String otherStreamSealedSegment() {
        String name = otherStreamSegment();
        server.segmentStore().sealSegment(name);
        return name;
    }

    private static void assertRefusedMerge(LongFunction<Request> merge, String source) throws IOException {
        try (Wire wire = new Wire()) {
            long id = wire.nextId();
            wire.send(merge.apply(id));
            assertThat(outcome(wire.await(id))).as("merge taking " + source)
                    .isEqualTo(AuthTokenCheckFailed.ErrorCode.TOKEN_CHECK_FAILED.name());
        }
        assertThat(server.segmentStore().segmentInfo(source)).as("the source is still there").isPresent();
    }

    @Test
    void everyWireCommandThatNamesASegmentIsInTheMatrix() {
        Set<String> namingASegment = new TreeSet<>();
        for (Class<?> type : Request.class.getPermittedSubclasses()) {
            boolean names = Arrays.stream(type.getRecordComponents())
                    .filter(c -> c.getType() == String.class || c.getType() == List.class)
                    .anyMatch(c -> c.getName().matches("(?i).*(segment|target|source).*"));
            if (names) {
                namingASegment.add(type.getSimpleName());
            }
        }
        Set<String> covered = wireCases().stream().map(c -> c.command().getSimpleName())
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(covered).isEqualTo(namingASegment);
        assertThat(namingASegment).hasSizeGreaterThan(20);
    }

    /** A raw segment-store connection: Hello, then requests, and replies read frame by frame. */
    private static final class Wire implements AutoCloseable {
        private final Socket socket;
        private final DataInputStream in;
        private final OutputStream out;
        private long nextId = 1;

        Wire() throws IOException {
            socket = new Socket(server.segmentStoreEndpoint().host(), server.segmentStoreEndpoint().port());
            socket.setSoTimeout((int) WAIT.toMillis());
            in = new DataInputStream(socket.getInputStream());
            out = socket.getOutputStream();
            send(Hello.current());
        }

        long nextId() {
            return nextId++;
        }

        void send(WireCommand command) throws IOException {
            out.write(FrameCodec.encode(command));
            out.flush();
        }

        void sendRaw(ByteBuffer frames) throws IOException {
            byte[] b = new byte[frames.remaining()];
            frames.get(b);
            out.write(b);
            out.flush();
        }

        /** @return the reply to the request, or null if the server closed the connection first */
        Reply await(long requestId) throws IOException {
            while (true) {
                int type;
                int length;
                try {
                    type = in.readInt();
                    length = in.readInt();
                } catch (EOFException | SocketException e) {
                    return null;
                }
                WireCommandType t = FrameCodec.checkHeader(type, length);
                byte[] payload = new byte[length];
                in.readFully(payload);
                WireCommand c = FrameCodec.decodePayload(t, ByteBuffer.wrap(payload));
                if (c instanceof Reply r && !(c instanceof Hello) && !(c instanceof KeepAlive)
                        && r.requestId() == requestId) {
                    return r;
                }
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    // ======================================================================= the controller matrix

    /** One controller call: the RPC's name, what it needs, and the call. */
    private record RpcCase(String rpc, String variant, Need need, Function<ControllerServiceBlockingStub, ?> call) {
        String label() {
            return variant.isEmpty() ? rpc : rpc + " (" + variant + ")";
        }
    }

    private static StreamInfo info(String scope, String stream) {
        return StreamInfo.newBuilder().setScope(scope).setStream(stream).build();
    }

    private static StreamInfo info(String scope, String stream, StreamInfo.AccessOperation operation) {
        return info(scope, stream).toBuilder().setAccessOperation(operation).build();
    }

    private static StreamConfig fixed(String scope, String stream) {
        return StreamConfig.newBuilder().setStreamInfo(info(scope, stream))
                .setScalingPolicy(ScalingPolicy.newBuilder()
                        .setScaleType(ScalingPolicy.ScalingPolicyType.FIXED_NUM_SEGMENTS).setMinNumSegments(1))
                .build();
    }

    private static ReaderGroupConfiguration groupConfig(String name) {
        return ReaderGroupConfiguration.newBuilder().setScope("alice").setReaderGroupName(name)
                .setGroupRefreshTimeMillis(3000).setAutomaticCheckpointIntervalMillis(30000)
                .setMaxOutstandingCheckpointRequest(3)
                .setRetentionType(ReaderGroupConfiguration.RetentionType.NONE.getNumber()).setGeneration(-1)
                .setReaderGroupId(UUID.randomUUID().toString())
                .addStartingStreamCuts(StreamCut.newBuilder().setStreamInfo(info("alice", "mine"))).build();
    }

    private static SegmentId segment0() {
        return SegmentId.newBuilder().setStreamInfo(info("alice", "mine")).setSegmentId(0).build();
    }

    private static KeyValueTableInfo table(String name) {
        return KeyValueTableInfo.newBuilder().setScope("alice").setKvtName(name).build();
    }

    private static TxnRequest txnRequest() {
        return TxnRequest.newBuilder().setStreamInfo(info("alice", "mine")).setTxnId(txn).setWriterId("w")
                .setTimestamp(Long.MIN_VALUE).build();
    }

    private static RpcCase rpc(String rpc, Need need, Function<ControllerServiceBlockingStub, ?> call) {
        return new RpcCase(rpc, "", need, call);
    }

    private static RpcCase rpc(String rpc, String variant, Need need, Function<ControllerServiceBlockingStub, ?> call) {
        return new RpcCase(rpc, variant, need, call);
    }

    /** Every RPC of proto/controller.proto, with Pravega 0.13's rule for the user's rights (cluster, scope, object). */
    private static List<RpcCase> rpcCases() {
        ScopeInfo alice = ScopeInfo.newBuilder().setScope("alice").build();
        ScopeInfo gone = ScopeInfo.newBuilder().setScope("gone").build();
        StreamInfo mine = info("alice", "mine");
        StreamInfo goneStream = info("alice", "gone");
        return List.of(
                rpc("getControllerServerList", Need.NOTHING, s -> s.getControllerServerList(
                        ServerRequest.getDefaultInstance())),
                rpc("getControllerToBucketMapping", Need.UPDATE, s -> s.getControllerToBucketMapping(
                        ControllerToBucketMappingRequest.getDefaultInstance())),
                rpc("createScope", Need.UPDATE, s -> s.createScope(ScopeInfo.newBuilder().setScope("carol").build())),
                rpc("checkScopeExists", Need.READ, s -> s.checkScopeExists(alice)),
                rpc("listScopes", Need.READ, s -> s.listScopes(ScopesRequest.getDefaultInstance())),
                rpc("deleteScope", Need.UPDATE, s -> s.deleteScope(gone)),
                rpc("deleteScopeRecursive", Need.UPDATE, s -> s.deleteScopeRecursive(gone)),
                rpc("createStream", Need.UPDATE, s -> s.createStream(fixed("alice", "new"))),
                rpc("createStream", "reader group state stream", Need.READ,
                        s -> s.createStream(fixed("alice", "_RGnew"))),
                rpc("updateStream", Need.UPDATE, s -> s.updateStream(fixed("alice", "mine"))),
                rpc("getStreamConfiguration", Need.READ, s -> s.getStreamConfiguration(mine)),
                rpc("checkStreamExists", Need.READ, s -> s.checkStreamExists(mine)),
                rpc("listStreamsInScope", Need.READ, s -> s.listStreamsInScope(StreamsInScopeRequest.newBuilder()
                        .setScope(alice).build())),
                rpc("listStreamsInScopeForTag", Need.READ, s -> s.listStreamsInScopeForTag(
                        StreamsInScopeWithTagRequest.newBuilder().setScope(alice).setTag("t").build())),
                rpc("truncateStream", Need.UPDATE, s -> s.truncateStream(StreamCut.newBuilder().setStreamInfo(mine)
                        .putCut(0, 0).build())),
                rpc("sealStream", Need.UPDATE, s -> s.sealStream(goneStream)),
                rpc("deleteStream", Need.UPDATE, s -> s.deleteStream(goneStream)),
                rpc("getCurrentSegments", "with a token", Need.UPDATE, s -> s.getCurrentSegments(mine)),
                rpc("getCurrentSegments", "no token", Need.READ, s -> s.getCurrentSegments(
                        info("alice", "mine", StreamInfo.AccessOperation.NONE))),
                rpc("getEpochSegments", Need.UPDATE, s -> s.getEpochSegments(GetEpochSegmentsRequest.newBuilder()
                        .setStreamInfo(mine).setEpoch(0).build())),
                rpc("getSegments", "with a token", Need.UPDATE, s -> s.getSegments(GetSegmentsRequest.newBuilder()
                        .setStreamInfo(mine).build())),
                rpc("getSegments", "no token", Need.READ, s -> s.getSegments(GetSegmentsRequest.newBuilder()
                        .setStreamInfo(info("alice", "mine", StreamInfo.AccessOperation.NONE)).build())),
                rpc("getSegmentsImmediatlyFollowing", Need.READ, s -> s.getSegmentsImmediatlyFollowing(segment0())),
                rpc("getSegmentsImmediatelyFollowing", Need.READ, s -> s.getSegmentsImmediatelyFollowing(segment0())),
                rpc("getSegmentsBetween", Need.READ, s -> s.getSegmentsBetween(StreamCutRange.newBuilder()
                        .setStreamInfo(mine).putFrom(0, 0).build())),
                rpc("getURI", Need.READ, s -> s.getURI(segment0())),
                rpc("isSegmentValid", Need.READ, s -> s.isSegmentValid(segment0())),
                rpc("isStreamCutValid", Need.READ, s -> s.isStreamCutValid(StreamCut.newBuilder().setStreamInfo(mine)
                        .putCut(0, 0).build())),
                rpc("scale", Need.UPDATE, s -> s.scale(ScaleRequest.newBuilder().setStreamInfo(goneStream)
                        .addSealedSegments(0).addNewKeyRanges(ScaleRequest.KeyRangeEntry.newBuilder().setStart(0)
                                .setEnd(1)).setScaleTimestamp(1).build())),
                rpc("checkScale", Need.READ, s -> s.checkScale(ScaleStatusRequest.newBuilder().setStreamInfo(mine)
                        .setEpoch(0).build())),
                rpc("createTransaction", Need.UPDATE, s -> s.createTransaction(CreateTxnRequest.newBuilder()
                        .setStreamInfo(mine).setLease(60_000).build())),
                rpc("pingTransaction", Need.UPDATE, s -> s.pingTransaction(PingTxnRequest.newBuilder()
                        .setStreamInfo(mine).setTxnId(txn).setLease(60_000).build())),
                rpc("checkTransactionState", Need.READ, s -> s.checkTransactionState(txnRequest())),
                rpc("commitTransaction", Need.UPDATE, s -> s.commitTransaction(txnRequest())),
                rpc("abortTransaction", Need.UPDATE, s -> s.abortTransaction(txnRequest())),
                rpc("listCompletedTransactions", Need.READ, s -> s.listCompletedTransactions(
                        ListCompletedTxnRequest.newBuilder().setStreamInfo(mine).build())),
                rpc("getDelegationToken", "READ", Need.READ, s -> s.getDelegationToken(
                        info("alice", "mine", StreamInfo.AccessOperation.READ))),
                rpc("getDelegationToken", "READ_WRITE", Need.UPDATE, s -> s.getDelegationToken(
                        info("alice", "mine", StreamInfo.AccessOperation.READ_WRITE))),
                rpc("getDelegationToken", "unspecified", Need.UPDATE, s -> s.getDelegationToken(mine)),
                rpc("getDelegationToken", "READ_WRITE on a reader group state stream", Need.READ,
                        s -> s.getDelegationToken(info("alice", "_RGgrp", StreamInfo.AccessOperation.READ_WRITE))),
                rpc("getDelegationToken", "READ_WRITE on a watermark stream", Need.READ,
                        s -> s.getDelegationToken(info("alice", "_MARKmine", StreamInfo.AccessOperation.READ_WRITE))),
                rpc("noteTimestampFromWriter", Need.UPDATE, s -> s.noteTimestampFromWriter(TimestampFromWriter
                        .newBuilder().setWriter("w").setTimestamp(1).setPosition(StreamCut.newBuilder()
                                .setStreamInfo(mine).putCut(0, 0)).build())),
                rpc("removeWriter", Need.UPDATE, s -> s.removeWriter(RemoveWriterRequest.newBuilder().setStream(mine)
                        .setWriter("w").build())),
                rpc("createReaderGroup", Need.READ, s -> s.createReaderGroup(groupConfig("grp2"))),
                rpc("getReaderGroupConfig", Need.READ, s -> s.getReaderGroupConfig(ReaderGroupInfo.newBuilder()
                        .setScope("alice").setReaderGroup("grp").build())),
                rpc("updateReaderGroup", Need.READ, s -> s.updateReaderGroup(groupConfig("gone"))),
                rpc("deleteReaderGroup", Need.READ, s -> s.deleteReaderGroup(ReaderGroupInfo.newBuilder()
                        .setScope("alice").setReaderGroup("gone").setReaderGroupId(UUID.randomUUID().toString())
                        .build())),
                rpc("listSubscribers", Need.UPDATE, s -> s.listSubscribers(mine)),
                rpc("updateSubscriberStreamCut", Need.UPDATE, s -> s.updateSubscriberStreamCut(SubscriberStreamCut
                        .newBuilder().setSubscriber("gone").setReaderGroupId(UUID.randomUUID().toString())
                        .setGeneration(0).setStreamCut(StreamCut.newBuilder().setStreamInfo(mine).putCut(0, 0))
                        .build())),
                rpc("createKeyValueTable", Need.UPDATE, s -> s.createKeyValueTable(KeyValueTableConfig.newBuilder()
                        .setScope("alice").setKvtName("tbl2").setPartitionCount(1).setPrimaryKeyLength(4)
                        .setSecondaryKeyLength(4).build())),
                rpc("getCurrentSegmentsKeyValueTable", Need.UPDATE, s -> s.getCurrentSegmentsKeyValueTable(
                        table("tbl"))),
                rpc("listKeyValueTablesInScope", Need.READ, s -> s.listKeyValueTablesInScope(
                        KVTablesInScopeRequest.newBuilder().setScope(alice).build())),
                rpc("getKeyValueTableConfiguration", Need.READ, s -> s.getKeyValueTableConfiguration(table("tbl"))),
                rpc("deleteKeyValueTable", Need.UPDATE, s -> s.deleteKeyValueTable(table("gone"))));
    }

    private static Status.Code expected(RpcCase c, Kind kind) {
        return switch (kind) {
            case NONE, EXPIRED -> c.need() == Need.NOTHING ? Status.Code.OK : Status.Code.UNAUTHENTICATED;
            case FORGED -> Status.Code.UNAUTHENTICATED;
            case OTHER_STREAM -> c.need() == Need.NOTHING ? Status.Code.OK : Status.Code.PERMISSION_DENIED;
            case READ_ONLY -> c.need() == Need.UPDATE ? Status.Code.PERMISSION_DENIED : Status.Code.OK;
            case VALID -> Status.Code.OK;
        };
    }

    private static String code(Supplier<?> call) {
        try {
            call.get();
            return Status.Code.OK.name();
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode() + (e.getStatus().getCode() == Status.Code.UNAUTHENTICATED
                    || e.getStatus().getCode() == Status.Code.PERMISSION_DENIED ? "" : ": " + e.getStatus());
        }
    }

    @TestFactory
    Stream<DynamicTest> controllerRpcs() {
        return rpcCases().stream().flatMap(c -> Arrays.stream(Kind.values()).map(kind ->
                DynamicTest.dynamicTest(c.label() + " with " + kind, () -> {
                    ControllerServiceBlockingStub stub = stub(kind);
                    assertThat(code(() -> c.call().apply(stub))).as(c.label() + " with " + kind)
                            .isEqualTo(expected(c, kind).name());
                })));
    }

    @Test
    void everyControllerRpcIsInTheMatrix() {
        Set<String> rpcs = ControllerServiceGrpc.getServiceDescriptor().getMethods().stream()
                .map(MethodDescriptor::getBareMethodName).collect(Collectors.toCollection(TreeSet::new));
        Map<String, List<RpcCase>> covered = rpcCases().stream()
                .collect(Collectors.groupingBy(RpcCase::rpc, LinkedHashMap::new, Collectors.toList()));
        assertThat(new TreeSet<>(covered.keySet())).isEqualTo(rpcs);
        assertThat(rpcs).hasSizeGreaterThan(40);
    }
}
