package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.sluice.admin.KeyValueTableManager;
import io.sluice.admin.ReaderGroup;
import io.sluice.admin.ReaderGroupManager;
import io.sluice.admin.StreamManager;
import io.sluice.auth.BasicCredentials;
import io.sluice.auth.OAuth2ClientCredentials;
import io.sluice.batch.BatchClient;
import io.sluice.batch.SegmentRange;
import io.sluice.bytestream.ByteStreamReader;
import io.sluice.bytestream.ByteStreamWriter;
import io.sluice.errors.SluiceException;
import io.sluice.server.EmbeddedServer;
import io.sluice.state.Revision;
import io.sluice.state.RevisionedStreamClient;
import io.sluice.state.StateSynchronizer;
import io.sluice.state.SynchronizerConfig;
import io.sluice.state.Update;
import io.sluice.stream.Checkpoint;
import io.sluice.stream.EventPointer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.KeyRange;
import io.sluice.stream.Position;
import io.sluice.stream.ReaderConfig;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.RetentionPolicy;
import io.sluice.stream.RetryPolicy;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.Serializer;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.StreamCut;
import io.sluice.stream.Transaction;
import io.sluice.stream.TransactionalEventStreamWriter;
import io.sluice.stream.TxnState;
import io.sluice.stream.WriteHandle;
import io.sluice.stream.WriterConfig;
import io.sluice.table.KeyValueTable;
import io.sluice.table.KeyValueTableConfiguration;
import io.sluice.table.Put;
import io.sluice.table.TableKey;
import io.sluice.table.TableSynchronizer;
import io.sluice.table.Version;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

/**
 * Every public method and constructor of the public packages (design.md §2) given invalid input: a clear error that
 * names the problem. The table {@link #RULES} has a row for each of them: how to reach it (a fixture of an embedded
 * server with a scope, streams, a table, a reader group and one of each reader, writer and synchronizer), valid
 * arguments, and what each parameter must refuse (its {@link Kind}). For every parameter and every bad value of its
 * kind, the call with the valid arguments but that one bad value must throw an {@code IllegalArgumentException}, a
 * {@code NullPointerException} or one of Sluice's own exceptions, within 15 s, whose message names the parameter (its
 * name, the method's name, or the row's keyword) — not accept it silently, not fail deep inside with an unrelated
 * message, not go to the server first.
 *
 * <p>{@link #everyPublicMethodHasARow()} walks the public packages by reflection and fails when a public method or
 * constructor with parameters has no row and is not in {@link #EXCLUDED} (with the reason), so a new method cannot be
 * added without its row.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PublicApiValidationTest {

    /** What a parameter must refuse. */
    enum Kind {
        /** Nothing: any value is valid (documented as nullable, or every value means something). */
        ANY,
        /** {@code null}. */
        NON_NULL,
        /** A name of Pravega's rules: null, empty, 256 characters, '/', ' ', non-ASCII. */
        NAME,
        /** Null, zero and negative numbers or durations, NaN. */
        POSITIVE,
        /** Null and negative numbers or durations, NaN. */
        NON_NEGATIVE,
        /** A controller URI: null, empty, no host, wrong scheme, port 70000 or not a number, a stray comma. */
        CONTROLLER_URI,
        /** A reader id: null, empty, over 1024 characters. */
        READER_ID
    }

    /**
     * One row: a public method or constructor, how to call it and what each parameter must refuse.
     *
     * @param signature {@code Type#method(ParamType,...)} with simple names ({@code Outer.Inner} for nested types,
     *     {@code <init>} for constructors)
     * @param target the object to call it on ({@code null} for static methods and constructors)
     * @param args valid arguments
     * @param kinds per parameter
     * @param keyword a word the message may name instead of the parameter ({@code null}: none)
     */
    record Rule(String signature, Function<Fixture, Object> target, Function<Fixture, Object[]> args, Kind[] kinds,
                String keyword) {
        @Override
        public String toString() {
            return signature;
        }
    }

    private static final Kind A = Kind.ANY;
    private static final Kind N = Kind.NON_NULL;
    private static final Kind NAME = Kind.NAME;
    private static final Kind POS = Kind.POSITIVE;
    private static final Kind NNEG = Kind.NON_NEGATIVE;
    private static final Kind URI_KIND = Kind.CONTROLLER_URI;
    private static final Kind ID = Kind.READER_ID;

    private static final String SCOPE = "apicheck";
    private static final String STREAM = "events";
    private static final String BYTES = "bytes";
    private static final String SYNC = "sync";
    private static final String TABLE = "table";
    private static final String GROUP = "group";
    private static final ScopedStream SCOPED = ScopedStream.of(SCOPE, STREAM);
    private static final Segment SEGMENT = Segment.of(SCOPED, 0);
    private static final Serializer<String> UTF8 = Serializers.utf8();
    private static final Duration SECOND = Duration.ofSeconds(1);
    /** The keyword of rows where IndexOutOfBoundsException is the contract (InputStream, OutputStream). */
    private static final String BOUNDS = "out of bounds";

    /** The public packages (design.md §2) whose public types the table must cover. */
    private static final List<String> PACKAGES = List.of("client", "stream", "bytestream", "batch", "table", "state",
            "admin", "auth", "errors", "testing");

    /** Methods with parameters that have nothing to check, and why. Matched as signature prefixes. */
    private static final Map<String, String> EXCLUDED = Map.ofEntries(
            Map.entry("errors:", "exceptions take any message and cause, as RuntimeException does"),
            Map.entry("#valueOf(String)", "enums: the JDK's valueOf names the constant it does not know"),
            Map.entry("#compareTo(", "Comparable: null throws NullPointerException as the contract says"),
            Map.entry("Serializer#", "implemented by the application, not by Sluice"),
            Map.entry("Update#applyTo(", "implemented by the application, not by Sluice"),
            Map.entry("EventDeserializationException#", "an exception: any pointer and cause"),
            Map.entry("ByteStreamReader#read(byte[])", "InputStream's contract, checked by read(byte[], int, int)"),
            Map.entry("ByteStreamWriter#write(byte[])", "OutputStream's contract, checked by write(byte[], int, int)"),
            Map.entry("ByteStreamWriter#write(int)", "any int: OutputStream writes its low byte"),
            Map.entry("ClientConfig.Builder#validateHostname(boolean)", "both values valid"),
            Map.entry("ClientConfig.Builder#platformReaders(boolean)", "both values valid"),
            Map.entry("ClientConfig.Builder#callerReads(boolean)", "both values valid"),
            Map.entry("WriterConfig#withAutomaticallyNoteTime(boolean)", "both values valid"),
            Map.entry("WriterConfig#withLargeEvents(boolean)", "both values valid"),
            Map.entry("KeyRange#contains(double)", "a query: any key answers true or false"),
            Map.entry("SegmentWithRange#contains(double)", "a query: any key answers true or false"),
            Map.entry("TimeWindow#<init>(Long,Long)", "both bounds may be null (unknown)"),
            Map.entry("SluiceExtension#beforeAll(", "JUnit's callback: JUnit calls it with its own context"),
            Map.entry("SluiceExtension#beforeEach(", "JUnit's callback: JUnit calls it with its own context"),
            Map.entry("SluiceExtension#supportsParameter(", "JUnit's callback: JUnit calls it with its own contexts"),
            Map.entry("SluiceExtension#resolveParameter(", "JUnit's callback: JUnit calls it with its own contexts"));

    private static final List<Rule> RULES = rules();

    private static Fixture fixture;
    private static final ExecutorService CALLERS = Executors.newVirtualThreadPerTaskExecutor();

    private static List<Rule> rules() {
        List<Rule> r = new ArrayList<>();
        // ---- client
        r.add(rule("SluiceClient#connect(String)", null, f -> a(f.uri()), URI_KIND));
        r.add(rule("SluiceClient#connect(ClientConfig)", null, f -> a(ClientConfig.of(f.uri())), N));
        r.add(rule("SluiceClient#newWriter(String,String,Serializer)", Fixture::client,
                f -> a(SCOPE, STREAM, UTF8), NAME, NAME, N));
        r.add(rule("SluiceClient#newWriter(String,String,Serializer,WriterConfig)", Fixture::client,
                f -> a(SCOPE, STREAM, UTF8, WriterConfig.DEFAULT), NAME, NAME, N, N));
        r.add(rule("SluiceClient#newTransactionalWriter(String,String,Serializer)", Fixture::client,
                f -> a(SCOPE, STREAM, UTF8), NAME, NAME, N));
        r.add(rule("SluiceClient#newTransactionalWriter(String,String,Serializer,WriterConfig)", Fixture::client,
                f -> a(SCOPE, STREAM, UTF8, WriterConfig.DEFAULT), NAME, NAME, N, N));
        r.add(rule("SluiceClient#newReader(String,String,String,Serializer)", Fixture::client,
                f -> a(SCOPE, GROUP, f.nextReaderId(), UTF8), NAME, NAME, ID, N));
        r.add(rule("SluiceClient#newReader(String,String,String,Serializer,ReaderConfig)", Fixture::client,
                f -> a(SCOPE, GROUP, f.nextReaderId(), UTF8, ReaderConfig.DEFAULT), NAME, NAME, ID, N, N));
        r.add(rule("SluiceClient#newByteStreamWriter(String,String)", Fixture::client, f -> a(SCOPE, BYTES),
                NAME, NAME));
        r.add(rule("SluiceClient#newByteStreamWriter(String,String,WriterConfig)", Fixture::client,
                f -> a(SCOPE, BYTES, WriterConfig.DEFAULT), NAME, NAME, N));
        r.add(rule("SluiceClient#newByteStreamReader(String,String)", Fixture::client, f -> a(SCOPE, BYTES),
                NAME, NAME));
        r.add(rule("SluiceClient#readerGroupManager(String)", Fixture::client, f -> a(SCOPE), NAME));
        r.add(rule("SluiceClient#keyValueTable(String,String)", Fixture::client, f -> a(SCOPE, TABLE), NAME, NAME));
        r.add(rule("SluiceClient#newStateSynchronizer(String,String,Serializer,Serializer)", Fixture::client,
                f -> a(SCOPE, SYNC, Fixture.APPEND, UTF8), NAME, NAME, N, N));
        r.add(rule("SluiceClient#newStateSynchronizer(String,String,Serializer,Serializer,SynchronizerConfig)",
                Fixture::client, f -> a(SCOPE, SYNC, Fixture.APPEND, UTF8, SynchronizerConfig.DEFAULT),
                NAME, NAME, N, N, N));
        r.add(rule("SluiceClient#newRevisionedStreamClient(String,String,Serializer)", Fixture::client,
                f -> a(SCOPE, SYNC, UTF8), NAME, NAME, N));
        r.add(rule("SluiceClient#newTableSynchronizer(String,String,Serializer,Serializer)", Fixture::client,
                f -> a(SCOPE, "tsync", UTF8, UTF8), NAME, NAME, N, N));
        r.add(rule("SluiceClient#newTableSynchronizer(String,String,Serializer,Serializer,SynchronizerConfig)",
                Fixture::client, f -> a(SCOPE, "tsync", UTF8, UTF8, SynchronizerConfig.DEFAULT), NAME, NAME, N, N, N));
        r.add(rule("ClientConfig#of(String)", null, f -> a(f.uri()), URI_KIND));
        r.add(rule("ClientConfig#builder(String)", null, f -> a(f.uri()), URI_KIND));
        r.add(rule("ClientConfig.Builder#credentials(Credentials)", f -> ClientConfig.builder(f.uri()),
                f -> a(new BasicCredentials("u", "p")), N));
        r.add(rule("ClientConfig.Builder#trustStore(Path)", f -> ClientConfig.builder(f.uri()),
                f -> a(Path.of("ca.pem")), N));
        r.add(rule("ClientConfig.Builder#meterRegistry(MeterRegistry)", f -> ClientConfig.builder(f.uri()),
                f -> a(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()), N));
        // ---- testing
        r.add(rule("SluiceExtension.Builder#server(ServerLifecycle)", f -> io.sluice.testing.SluiceExtension.builder(),
                f -> a(io.sluice.testing.ServerLifecycle.PER_TEST), N));
        r.add(rule("SluiceExtension.Builder#containers(int)", f -> io.sluice.testing.SluiceExtension.builder(),
                f -> a(2), POS));
        r.add(rule("SluiceExtension.Builder#configureServer(Consumer)", f -> io.sluice.testing.SluiceExtension.builder(),
                f -> a((java.util.function.Consumer<Object>) b -> { }), N, "options"));
        r.add(rule("SluiceExtension.Builder#configureClient(Consumer)", f -> io.sluice.testing.SluiceExtension.builder(),
                f -> a((java.util.function.Consumer<Object>) b -> { }), N, "options"));
        r.add(rule("ClientConfig.Builder#rpcTimeout(Duration)", f -> ClientConfig.builder(f.uri()), f -> a(SECOND),
                POS));
        r.add(rule("ClientConfig.Builder#operationTimeout(Duration)", f -> ClientConfig.builder(f.uri()),
                f -> a(SECOND), POS));
        r.add(rule("ClientConfig.Builder#connectTimeout(Duration)", f -> ClientConfig.builder(f.uri()),
                f -> a(SECOND), POS));
        r.add(rule("ClientConfig.Builder#maxConnectionsPerSegmentStore(int)", f -> ClientConfig.builder(f.uri()),
                f -> a(2), POS));

        // ---- admin
        r.add(rule("StreamManager#createScope(String)", Fixture::streams, f -> a("other"), NAME));
        r.add(rule("StreamManager#scopeExists(String)", Fixture::streams, f -> a(SCOPE), NAME));
        r.add(rule("StreamManager#deleteScope(String)", Fixture::streams, f -> a("nosuchscope"), NAME));
        r.add(rule("StreamManager#deleteScopeRecursive(String)", Fixture::streams, f -> a("nosuchscope"), NAME));
        r.add(rule("StreamManager#createStream(String,String,StreamConfiguration)", Fixture::streams,
                f -> a(SCOPE, "other", StreamConfiguration.builder().build()), NAME, NAME, N));
        r.add(rule("StreamManager#updateStream(String,String,StreamConfiguration)", Fixture::streams,
                f -> a(SCOPE, STREAM, StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(2)).build()),
                NAME, NAME, N));
        r.add(rule("StreamManager#streamExists(String,String)", Fixture::streams, f -> a(SCOPE, STREAM), NAME, NAME));
        r.add(rule("StreamManager#streamConfiguration(String,String)", Fixture::streams, f -> a(SCOPE, STREAM),
                NAME, NAME));
        r.add(rule("StreamManager#listStreams(String)", Fixture::streams, f -> a(SCOPE), NAME));
        r.add(rule("StreamManager#listStreams(String,String)", Fixture::streams, f -> a(SCOPE, "tag"), NAME, N));
        r.add(rule("StreamManager#streamInfo(String,String)", Fixture::streams, f -> a(SCOPE, STREAM), NAME, NAME));
        r.add(rule("StreamManager#currentSegments(String,String)", Fixture::streams, f -> a(SCOPE, STREAM),
                NAME, NAME));
        r.add(rule("StreamManager#fetchEvent(EventPointer,Serializer)", Fixture::streams,
                f -> a(f.pointer(), UTF8), N, N));
        r.add(rule("StreamManager#listCompletedTransactions(String,String)", Fixture::streams, f -> a(SCOPE, STREAM),
                NAME, NAME));
        r.add(rule("StreamManager#sealStream(String,String)", Fixture::streams, f -> a(SCOPE, "nosuchstream"),
                NAME, NAME));
        r.add(rule("StreamManager#deleteStream(String,String)", Fixture::streams, f -> a(SCOPE, "nosuchstream"),
                NAME, NAME));
        r.add(rule("StreamManager#truncateStream(String,String,StreamCut)", Fixture::streams,
                f -> a(SCOPE, STREAM, StreamCut.UNBOUNDED), NAME, NAME, N));
        r.add(rule("StreamManager#scaleStream(String,String,List,List)", Fixture::streams,
                f -> a(SCOPE, "nosuchstream", List.of(SEGMENT), List.of(new KeyRange(0, 1))), NAME, NAME, N, N));
        r.add(rule("ReaderGroupManager#createReaderGroup(String,ReaderGroupConfig)", Fixture::groups,
                f -> a("other", ReaderGroupConfig.builder().stream(SCOPED).build()), NAME, N));
        r.add(rule("ReaderGroupManager#readerGroup(String)", Fixture::groups, f -> a(GROUP), NAME));
        r.add(rule("ReaderGroupManager#deleteReaderGroup(String)", Fixture::groups, f -> a("nosuchgroup"), NAME));
        r.add(rule("ReaderGroup#initiateCheckpoint(String,Duration)", Fixture::readerGroup,
                f -> a("cp" + f.nextReaderId(), SECOND), N, POS));
        r.add(rule("ReaderGroup#resetToCheckpoint(Checkpoint)", Fixture::readerGroup,
                f -> a(Checkpoint.of("c", Map.of(SCOPED, StreamCut.of(Map.of(SEGMENT, 0L))))), N));
        r.add(rule("ReaderGroup#resetToStreamCuts(Map)", Fixture::readerGroup,
                f -> a(Map.of(SCOPED, StreamCut.of(Map.of(SEGMENT, 0L)))), N));
        r.add(rule("ReaderGroup#readerOffline(String,Position)", Fixture::readerGroup,
                f -> a("nosuchreader", Position.of(Map.of())), ID, A));
        r.add(rule("ReaderGroup#updateRetentionStreamCut(Map)", Fixture::readerGroup,
                f -> a(Map.of(SCOPED, StreamCut.of(Map.of(SEGMENT, 0L)))), N));
        r.add(rule("KeyValueTableManager#createKeyValueTable(String,String,KeyValueTableConfiguration)",
                Fixture::tables, f -> a(SCOPE, "othertable", KeyValueTableConfiguration.builder().partitionCount(1)
                        .primaryKeyLength(4).build()), NAME, NAME, N));
        r.add(rule("KeyValueTableManager#deleteKeyValueTable(String,String)", Fixture::tables,
                f -> a(SCOPE, "nosuchtable"), NAME, NAME));
        r.add(rule("KeyValueTableManager#listKeyValueTables(String)", Fixture::tables, f -> a(SCOPE), NAME));
        r.add(rule("KeyValueTableManager#getConfiguration(String,String)", Fixture::tables, f -> a(SCOPE, TABLE),
                NAME, NAME));
        r.add(rule("StreamInfo#<init>(ScopedStream,StreamConfiguration,StreamCut,StreamCut,boolean)", null,
                f -> a(SCOPED, StreamConfiguration.builder().build(), StreamCut.UNBOUNDED, StreamCut.UNBOUNDED,
                        false), N, N, N, N, A));

        // ---- stream: readers and writers
        r.add(rule("EventStreamWriter#write(String,Object)", Fixture::writer, f -> a("key", "event"), A, N));
        r.add(rule("EventStreamWriter#write(Object)", Fixture::writer, f -> a("event"), N));
        r.add(rule("EventStreamWriter#writeAndWait(String,Object)", Fixture::writer, f -> a("key", "event"), A, N));
        r.add(rule("EventStreamWriter#writeAll(String,List)", Fixture::writer, f -> a("key", List.of("e")), A, N));
        r.add(rule("EventStreamWriter#noteTime(long)", Fixture::writer, f -> a(System.currentTimeMillis()), NNEG));
        r.add(rule("WriteHandle#await(Duration)", Fixture::writeHandle, f -> a(SECOND), NNEG));
        r.add(rule("EventStreamReader#readNextEvent(Duration)", Fixture::reader, f -> a(Duration.ofMillis(10)),
                NNEG));
        r.add(rule("EventStreamReader#ack(EventRead)", Fixture::reader, f -> a((Object) null), N));
        r.add(rule("EventStreamReader#acquireSegment(Duration)", Fixture::reader, f -> a(Duration.ofMillis(10)),
                NNEG));
        r.add(rule("EventStreamReader#releaseSegment(SegmentSlice)", Fixture::reader, f -> a((Object) null), N));
        r.add(rule("EventStreamReader#releaseSegment(SegmentSlice,long)", Fixture::reader, f -> a(null, 0L), N, A));
        r.add(rule("EventStreamReader#fetchEvent(EventPointer)", Fixture::reader, f -> a(f.pointer()), N));
        r.add(rule("EventStreamReader#currentTimeWindow(ScopedStream)", Fixture::reader, f -> a(SCOPED), N));
        r.add(rule("EventStreamReader#closeAt(Position)", Fixture::freshReader, f -> a(Position.of(Map.of())), N));
        r.add(rule("TransactionalEventStreamWriter#getTxn(UUID)", Fixture::txnWriter, f -> a(UUID.randomUUID()), N));
        r.add(rule("Transaction#write(String,Object)", Fixture::txn, f -> a("key", "event"), A, N));
        r.add(rule("Transaction#write(Object)", Fixture::txn, f -> a("event"), N));
        r.add(rule("Transaction#writeAll(String,List)", Fixture::txn, f -> a("key", List.of("e")), A, N));
        r.add(rule("Transaction#commit(long)", Fixture::txn, f -> a(System.currentTimeMillis()), NNEG));

        // ---- stream: values and configurations
        r.add(rule("Checkpoint#<init>(String,SortedMap)", null, f -> a("c", new TreeMap<>(Map.of(SCOPED,
                StreamCut.UNBOUNDED))), N, N));
        r.add(rule("Checkpoint#of(String,Map)", null, f -> a("c", Map.of(SCOPED, StreamCut.UNBOUNDED)), N, N));
        r.add(rule("EventPointer#<init>(Segment,long,int)", null, f -> a(SEGMENT, 0L, 10), N, NNEG, POS));
        r.add(rule("EventPointer#parse(String)", null, f -> a(new EventPointer(SEGMENT, 0, 10).toString()), N,
                "pointer"));
        r.add(rule("EventRead#<init>(Object,Position,EventPointer,String,boolean)", null,
                f -> a("e", Position.of(Map.of()), new EventPointer(SEGMENT, 0, 10), null, false), A, A, A, A, A));
        r.add(rule("KeyRange#<init>(double,double)", null, f -> a(0.0, 1.0), NNEG, POS));
        r.add(rule("Position#<init>(Map)", null, f -> a(Map.of(SEGMENT, 0L)), N));
        r.add(rule("Position#of(Map)", null, f -> a(Map.of(SEGMENT, 0L)), N));
        r.add(rule("Position#lazy(Supplier)", null, f -> a((Supplier<?>) TreeMap::new), N));
        r.add(rule("ReaderConfig#<init>(ReaderConfig.AckMode,Duration,int,RetryPolicy,Duration)", null,
                f -> a(ReaderConfig.AckMode.ON_READ, Duration.ofSeconds(30), 1024, RetryPolicy.PRAVEGA,
                        Duration.ofSeconds(30)), N, POS, POS, N, POS));
        r.add(rule("ReaderConfig#withAckMode(ReaderConfig.AckMode)", f -> ReaderConfig.DEFAULT,
                f -> a(ReaderConfig.AckMode.ON_READ), N));
        r.add(rule("ReaderConfig#withOfflineTimeout(Duration)", f -> ReaderConfig.DEFAULT, f -> a(SECOND), POS));
        r.add(rule("ReaderConfig#withBufferBytes(int)", f -> ReaderConfig.DEFAULT, f -> a(1024), POS));
        r.add(rule("ReaderConfig#withRetry(RetryPolicy)", f -> ReaderConfig.DEFAULT, f -> a(RetryPolicy.PRAVEGA), N));
        r.add(rule("ReaderConfig#withAckTimeout(Duration)", f -> ReaderConfig.DEFAULT, f -> a(SECOND), POS));
        r.add(rule("ReaderGroupConfig#<init>(long,long,SortedMap,SortedMap,int,ReaderGroupConfig.StreamDataRetention,"
                + "long,UUID,long)", null, f -> a(3000L, 30000L, new TreeMap<>(Map.of(SCOPED, StreamCut.UNBOUNDED)),
                new TreeMap<>(Map.of(SCOPED, StreamCut.UNBOUNDED)), 3, ReaderGroupConfig.StreamDataRetention.NONE,
                -1L, new UUID(0, 0), 0L), NNEG, A, N, N, POS, N, A, N, NNEG));
        r.add(rule("ReaderGroupConfig#withIdentity(UUID,long)", f -> ReaderGroupConfig.builder().stream(SCOPED)
                .build(), f -> a(UUID.randomUUID(), 0L), N, A));
        r.add(rule("ReaderGroupConfig.Builder#stream(ScopedStream)", f -> ReaderGroupConfig.builder(),
                f -> a(SCOPED), N));
        r.add(rule("ReaderGroupConfig.Builder#stream(String)", f -> ReaderGroupConfig.builder(),
                f -> a(SCOPE + "/" + STREAM), N, "stream"));
        r.add(rule("ReaderGroupConfig.Builder#stream(ScopedStream,StreamCut)", f -> ReaderGroupConfig.builder(),
                f -> a(SCOPED, StreamCut.UNBOUNDED), N, N));
        r.add(rule("ReaderGroupConfig.Builder#stream(ScopedStream,StreamCut,StreamCut)",
                f -> ReaderGroupConfig.builder(), f -> a(SCOPED, StreamCut.UNBOUNDED, StreamCut.UNBOUNDED), N, N, N));
        r.add(rule("ReaderGroupConfig.Builder#startingStreamCuts(Map)", f -> ReaderGroupConfig.builder(),
                f -> a(Map.of(SCOPED, StreamCut.UNBOUNDED)), N));
        r.add(rule("ReaderGroupConfig.Builder#endingStreamCuts(Map)", f -> ReaderGroupConfig.builder(),
                f -> a(Map.of(SCOPED, StreamCut.UNBOUNDED)), N));
        r.add(rule("ReaderGroupConfig.Builder#groupRefreshTimeMillis(long)", f -> ReaderGroupConfig.builder(),
                f -> a(100L), NNEG));
        r.add(rule("ReaderGroupConfig.Builder#automaticCheckpointIntervalMillis(long)",
                f -> ReaderGroupConfig.builder(), f -> a(100L), A));
        r.add(rule("ReaderGroupConfig.Builder#maxOutstandingCheckpointRequest(int)", f -> ReaderGroupConfig.builder(),
                f -> a(2), POS));
        r.add(rule("ReaderGroupConfig.Builder#retentionType(ReaderGroupConfig.StreamDataRetention)",
                f -> ReaderGroupConfig.builder(), f -> a(ReaderGroupConfig.StreamDataRetention.NONE), N));
        r.add(rule("ReaderGroupConfig.Builder#generation(long)", f -> ReaderGroupConfig.builder(), f -> a(0L), A));
        r.add(rule("ReaderGroupConfig.Builder#rolloverSizeBytes(long)", f -> ReaderGroupConfig.builder(),
                f -> a(0L), NNEG));
        r.add(rule("ReaderGroupConfig.Builder#readerGroupId(UUID)", f -> ReaderGroupConfig.builder(),
                f -> a(UUID.randomUUID()), N));
        r.add(new Rule("RetentionPolicy#<init>(RetentionPolicy.Type,long,long)", null,
                f -> a(RetentionPolicy.Type.SIZE, 10L, 100L), new Kind[] {N, NNEG, NNEG}, "retention"));
        r.add(rule("RetentionPolicy#byTime(Duration)", null, f -> a(SECOND), NNEG, "retention"));
        r.add(new Rule("RetentionPolicy#byTime(Duration,Duration)", null, f -> a(SECOND, Duration.ofSeconds(2)),
                new Kind[] {NNEG, POS}, "retention"));
        r.add(rule("RetentionPolicy#bySizeBytes(long)", null, f -> a(100L), NNEG, "retention"));
        r.add(new Rule("RetentionPolicy#bySizeBytes(long,long)", null, f -> a(10L, 100L), new Kind[] {NNEG, POS},
                "retention"));
        r.add(rule("RetryPolicy#<init>(Duration,double,int,Duration,Duration)", null,
                f -> a(SECOND, 2.0, 3, SECOND, SECOND), NNEG, POS, POS, NNEG, NNEG));
        r.add(rule("RetryPolicy#exponential(Duration,double,int,Duration)", null, f -> a(SECOND, 2.0, 3, SECOND),
                NNEG, POS, POS, NNEG));
        r.add(rule("RetryPolicy#withMaxReconnectBackoff(Duration)", f -> RetryPolicy.PRAVEGA, f -> a(SECOND), NNEG));
        r.add(rule("ScalingPolicy#<init>(ScalingPolicy.Type,int,int,int)", null,
                f -> a(ScalingPolicy.Type.FIXED_NUM_SEGMENTS, 0, 0, 1), N, A, A, POS));
        r.add(rule("ScalingPolicy#fixed(int)", null, f -> a(1), POS));
        r.add(rule("ScalingPolicy#byDataRate(int,int,int)", null, f -> a(100, 2, 1), POS, POS, POS));
        r.add(rule("ScalingPolicy#byEventRate(int,int,int)", null, f -> a(100, 2, 1), POS, POS, POS));
        r.add(rule("ScopedStream#<init>(String,String)", null, f -> a(SCOPE, STREAM), NAME, NAME));
        r.add(rule("ScopedStream#of(String,String)", null, f -> a(SCOPE, STREAM), NAME, NAME));
        r.add(rule("ScopedStream#parse(String)", null, f -> a(SCOPE + "/" + STREAM), N, "stream"));
        // a segment also names internal streams the controller derives ("<table>_kvtable", "_RG<group>"): no user rules
        r.add(rule("Segment#<init>(String,String,long)", null, f -> a(SCOPE, STREAM, 0L), N, N, NNEG));
        r.add(rule("Segment#of(ScopedStream,long)", null, f -> a(SCOPED, 0L), N, NNEG));
        r.add(rule("Segment#of(ScopedStream,int,int)", null, f -> a(SCOPED, 0, 0), N, NNEG, NNEG));
        r.add(rule("Segment#parse(String)", null, f -> a(SEGMENT.qualifiedName()), N, "segment"));
        r.add(rule("Segment#segmentId(int,int)", null, f -> a(0, 0), NNEG, NNEG));
        r.add(rule("Segment#sameStream(Segment)", f -> SEGMENT, f -> a(SEGMENT), N));
        r.add(rule("SegmentWithRange#<init>(Segment,double,double)", null, f -> a(SEGMENT, 0.0, 1.0), N, NNEG, NNEG));
        r.add(rule("StreamConfiguration#<init>(ScalingPolicy,RetentionPolicy,Set,Duration,long)", null,
                f -> a(ScalingPolicy.fixed(1), RetentionPolicy.NONE, Set.of(), Duration.ZERO, 0L), N, N, N, NNEG, NNEG));
        r.add(rule("StreamConfiguration.Builder#scalingPolicy(ScalingPolicy)", f -> StreamConfiguration.builder(),
                f -> a(ScalingPolicy.fixed(1)), N));
        r.add(rule("StreamConfiguration.Builder#retentionPolicy(RetentionPolicy)", f -> StreamConfiguration.builder(),
                f -> a(RetentionPolicy.bySizeBytes(100)), A));
        r.add(rule("StreamConfiguration.Builder#tag(String)", f -> StreamConfiguration.builder(), f -> a("tag"), N));
        r.add(rule("StreamConfiguration.Builder#tags(Collection)", f -> StreamConfiguration.builder(),
                f -> a(List.of("tag")), N));
        r.add(rule("StreamConfiguration.Builder#rolloverSizeBytes(long)", f -> StreamConfiguration.builder(),
                f -> a(0L), NNEG));
        r.add(rule("StreamConfiguration.Builder#timestampAggregationTimeout(Duration)",
                f -> StreamConfiguration.builder(), f -> a(SECOND), NNEG));
        r.add(rule("StreamCut#<init>(SortedMap)", null, f -> a(new TreeMap<>(Map.of(SEGMENT, 0L))), N));
        r.add(rule("StreamCut#of(Map)", null, f -> a(Map.of(SEGMENT, 0L)), N));
        r.add(rule("StreamCut#of(ScopedStream,Map)", null, f -> a(SCOPED, Map.of(0L, 0L)), N, N));
        r.add(rule("StreamCut#isFor(ScopedStream)", f -> StreamCut.of(Map.of(SEGMENT, 0L)), f -> a(SCOPED), N));
        r.add(rule("TransactionInfo#<init>(ScopedStream,UUID,TxnState)", null,
                f -> a(SCOPED, UUID.randomUUID(), TxnState.OPEN), N, N, N));
        r.add(rule("WriterConfig#<init>(long,Duration,RetryPolicy,int)", null,
                f -> a(32L << 20, SECOND, RetryPolicy.PRAVEGA, 1024), POS, POS, N, POS));
        r.add(rule("WriterConfig#<init>(long,Duration,RetryPolicy,int,Duration)", null,
                f -> a(32L << 20, SECOND, RetryPolicy.PRAVEGA, 1024, SECOND), POS, POS, N, POS, POS));
        r.add(rule("WriterConfig#<init>(long,Duration,RetryPolicy,int,Duration,boolean,boolean)", null,
                f -> a(32L << 20, SECOND, RetryPolicy.PRAVEGA, 1024, SECOND, false, false), POS, POS, N, POS, POS, A, A));
        r.add(rule("WriterConfig#withMaxOutstandingBytes(long)", f -> WriterConfig.DEFAULT, f -> a(32L << 20), POS));
        r.add(rule("WriterConfig#withBackpressureTimeout(Duration)", f -> WriterConfig.DEFAULT, f -> a(SECOND), POS));
        r.add(rule("WriterConfig#withRetry(RetryPolicy)", f -> WriterConfig.DEFAULT, f -> a(RetryPolicy.PRAVEGA), N));
        r.add(rule("WriterConfig#withTransactionLease(Duration)", f -> WriterConfig.DEFAULT, f -> a(SECOND), POS));
        r.add(rule("Names#validateUserScope(String)", null, f -> a(SCOPE), NAME));
        r.add(rule("Names#validateUserStream(String)", null, f -> a(STREAM), NAME));
        r.add(rule("Names#validateReaderGroup(String)", null, f -> a(GROUP), NAME));
        r.add(rule("Names#validateKeyValueTable(String)", null, f -> a(TABLE), NAME));
        r.add(rule("Names#validateName(String,String)", null, f -> a("stream", STREAM), N, NAME));

        // ---- bytestream
        // InputStream's and OutputStream's contract: IndexOutOfBoundsException for a bad offset or length
        r.add(new Rule("ByteStreamReader#read(byte[],int,int)", Fixture::byteReader, f -> a(new byte[4], 0, 4),
                new Kind[] {N, NNEG, NNEG}, BOUNDS));
        r.add(rule("ByteStreamReader#skip(long)", Fixture::byteReader, f -> a(0L), A));
        r.add(rule("ByteStreamReader#seekToOffset(long)", Fixture::byteReader, f -> a(0L), NNEG));
        r.add(new Rule("ByteStreamWriter#write(byte[],int,int)", Fixture::byteWriter, f -> a(new byte[4], 0, 4),
                new Kind[] {N, NNEG, NNEG}, BOUNDS));
        r.add(rule("ByteStreamWriter#write(ByteBuffer)", Fixture::byteWriter, f -> a(ByteBuffer.allocate(4)), N));
        r.add(rule("ByteStreamWriter#truncateDataBefore(long)", Fixture::byteWriter, f -> a(0L), NNEG));

        // ---- batch
        r.add(rule("BatchClient#segments(ScopedStream,StreamCut,StreamCut)", Fixture::batch,
                f -> a(SCOPED, StreamCut.UNBOUNDED, StreamCut.UNBOUNDED), N, N, N));
        r.add(rule("BatchClient#readSegment(SegmentRange,Serializer)", Fixture::batch,
                f -> a(new SegmentRange(SEGMENT, 0, 0), UTF8), N, N));
        r.add(rule("BatchClient#nextStreamCut(StreamCut,long)", Fixture::batch,
                f -> a(StreamCut.of(Map.of(SEGMENT, 0L)), 10L), N, POS));
        r.add(rule("SegmentRange#<init>(Segment,long,long)", null, f -> a(SEGMENT, 0L, 10L), N, NNEG, NNEG));

        // ---- table
        r.add(rule("KeyValueTable#update(TableModification)", Fixture::kvt,
                f -> a(new Put(f.tableKey(), ByteBuffer.allocate(1))), N));
        r.add(rule("KeyValueTable#update(List)", Fixture::kvt, f -> a(List.of(new Put(f.tableKey(),
                ByteBuffer.allocate(1)))), N));
        r.add(rule("KeyValueTable#get(TableKey)", Fixture::kvt, f -> a(f.tableKey()), N));
        r.add(rule("KeyValueTable#getAll(List)", Fixture::kvt, f -> a(List.of(f.tableKey())), N));
        r.add(rule("KeyValueTable#exists(TableKey)", Fixture::kvt, f -> a(f.tableKey()), N));
        r.add(rule("KeyValueTableIterator#maxIterationSize(int)", f -> f.kvt().iterator(), f -> a(10), POS));
        r.add(rule("KeyValueTableIterator#forPrimaryKey(ByteBuffer)", f -> f.kvt().iterator(),
                f -> a(ByteBuffer.allocate(4)), N));
        r.add(rule("KeyValueTableIterator#forPrimaryKey(ByteBuffer,ByteBuffer,ByteBuffer)", f -> f.kvt().iterator(),
                f -> a(ByteBuffer.allocate(4), null, null), N, A, A));
        r.add(rule("KeyValueTableIterator#forPrefix(ByteBuffer)", f -> f.kvt().iterator(),
                f -> a(ByteBuffer.allocate(1)), N));
        r.add(rule("KeyValueTableIterator#forRange(ByteBuffer,ByteBuffer)", f -> f.kvt().iterator(),
                f -> a(ByteBuffer.allocate(4), ByteBuffer.allocate(4)), A, A));
        r.add(rule("KeyValueTableConfiguration#<init>(int,int,int,long)", null, f -> a(1, 4, 0, 0L), POS, POS, NNEG,
                NNEG));
        r.add(rule("KeyValueTableConfiguration.Builder#partitionCount(int)", f -> KeyValueTableConfiguration.builder(),
                f -> a(1), POS));
        r.add(rule("KeyValueTableConfiguration.Builder#primaryKeyLength(int)",
                f -> KeyValueTableConfiguration.builder(), f -> a(4), POS));
        r.add(rule("KeyValueTableConfiguration.Builder#secondaryKeyLength(int)",
                f -> KeyValueTableConfiguration.builder(), f -> a(0), NNEG));
        r.add(rule("KeyValueTableConfiguration.Builder#rolloverSizeBytes(long)",
                f -> KeyValueTableConfiguration.builder(), f -> a(0L), NNEG));
        r.add(rule("TableKey#<init>(ByteBuffer)", null, f -> a(ByteBuffer.allocate(4)), N));
        r.add(rule("TableKey#<init>(ByteBuffer,ByteBuffer)", null, f -> a(ByteBuffer.allocate(4), null), N, A));
        r.add(rule("Put#<init>(TableKey,ByteBuffer)", null, f -> a(f.tableKey(), ByteBuffer.allocate(1)), N, N));
        r.add(rule("Put#<init>(TableKey,ByteBuffer,Version)", null, f -> a(f.tableKey(), ByteBuffer.allocate(1), null),
                N, N, A));
        r.add(rule("Insert#<init>(TableKey,ByteBuffer)", null, f -> a(f.tableKey(), ByteBuffer.allocate(1)), N, N));
        r.add(rule("Remove#<init>(TableKey)", null, f -> a(f.tableKey()), N));
        r.add(rule("Remove#<init>(TableKey,Version)", null, f -> a(f.tableKey(), null), N, A));
        r.add(rule("TableEntry#<init>(TableKey,ByteBuffer,Version)", null,
                f -> a(f.tableKey(), ByteBuffer.allocate(1), new Version(0, 0)), N, N, N));
        r.add(rule("Version#<init>(long,long)", null, f -> a(0L, 0L), A, A));
        r.add(rule("Version#fromString(String)", null, f -> a(new Version(0, 0).toString()), N, "version"));
        r.add(rule("TableSynchronizer#get(Object)", Fixture::tableSync, f -> a("k"), N));
        r.add(rule("TableSynchronizer#insert(Object,Object)", Fixture::tableSync, f -> a("k" + f.nextReaderId(), "v"),
                N, N));
        r.add(rule("TableSynchronizer#remove(Object)", Fixture::tableSync, f -> a("nosuchkey"), N));
        r.add(rule("TableSynchronizer#update(Function)", Fixture::tableSync,
                f -> a((Function<Map<String, String>, Map<String, String>>) m -> Map.of()), N));

        // ---- state
        r.add(rule("Revision#of(String,long)", null, f -> a("scope/stream/0.#epoch.0", 0L), N, NNEG));
        r.add(rule("Revision#fromString(String)", null, f -> a(Revision.of("scope/stream/0.#epoch.0", 0).toString()),
                N, "revision"));
        r.add(rule("RevisionedStreamClient#readFrom(Revision)", Fixture::revisioned, f -> a(f.revisioned()
                .fetchOldestRevision()), N));
        r.add(rule("RevisionedStreamClient#writeConditionally(Revision,Object)", Fixture::revisioned,
                f -> a(f.revisioned().fetchLatestRevision(), "v"), N, N));
        r.add(rule("RevisionedStreamClient#writeUnconditionally(Object)", Fixture::revisioned, f -> a("v"), N));
        r.add(rule("RevisionedStreamClient#compareAndSetMark(Revision,Revision)", Fixture::revisioned,
                f -> a(null, f.revisioned().fetchOldestRevision()), A, A));
        r.add(rule("RevisionedStreamClient#truncateToRevision(Revision)", Fixture::revisioned,
                f -> a(f.revisioned().fetchOldestRevision()), N));
        r.add(rule("StateSynchronizer#initialize(Object)", Fixture::stateSync, f -> a("initial"), N));
        r.add(rule("StateSynchronizer#updateState(Function)", Fixture::stateSync,
                f -> a((Function<String, List<Fixture.Append>>) s -> List.of()), N));
        r.add(rule("StateSynchronizer#updateStateUnconditionally(Update)", Fixture::stateSync,
                f -> a(new Fixture.Append("x")), N));
        r.add(rule("StateSynchronizer#updateStateUnconditionally(List)", Fixture::stateSync,
                f -> a(List.of(new Fixture.Append("x"))), N));
        r.add(rule("StateSynchronizer#compact(Function)", Fixture::stateSync,
                f -> a((Function<String, String>) s -> s), N));
        r.add(rule("SynchronizerConfig#<init>(Duration)", null, f -> a(SECOND), POS));

        // ---- auth
        r.add(rule("BasicCredentials#<init>(String,String)", null, f -> a("user", "password"), N, N));
        r.add(rule("BearerCredentials#<init>(String)", null, f -> a("token"), N));
        r.add(rule("OAuth2ClientCredentials#keycloak(URI,String,String,String)", null,
                f -> a(URI.create("http://127.0.0.1:1"), "realm", "id", "secret"), N, N, N, N));
        r.add(rule("OAuth2ClientCredentials#keycloakTokenEndpoint(URI,String)", null,
                f -> a(URI.create("http://127.0.0.1:1"), "realm"), N, N));
        r.add(rule("OAuth2ClientCredentials#fromKeycloakJson(Path)", null, f -> a(f.keycloakJson()), N));
        r.add(rule("OAuth2ClientCredentials#refreshAfterRejected(String)", Fixture::oauth, f -> a("old"), A));
        r.add(rule("OAuth2ClientCredentials.Builder#tokenEndpoint(URI)", f -> OAuth2ClientCredentials.builder(),
                f -> a(URI.create("http://127.0.0.1:1/token")), N));
        r.add(rule("OAuth2ClientCredentials.Builder#keycloak(URI,String)", f -> OAuth2ClientCredentials.builder(),
                f -> a(URI.create("http://127.0.0.1:1"), "realm"), N, N));
        r.add(rule("OAuth2ClientCredentials.Builder#keycloakJson(Path)", f -> OAuth2ClientCredentials.builder(),
                f -> a(f.keycloakJson()), N));
        r.add(rule("OAuth2ClientCredentials.Builder#client(String,String)", f -> OAuth2ClientCredentials.builder(),
                f -> a("id", "secret"), N, N));
        r.add(rule("OAuth2ClientCredentials.Builder#scope(String)", f -> OAuth2ClientCredentials.builder(),
                f -> a("openid"), A));
        r.add(rule("OAuth2ClientCredentials.Builder#umaAudience(String)", f -> OAuth2ClientCredentials.builder(),
                f -> a("pravega-controller"), A));
        r.add(rule("OAuth2ClientCredentials.Builder#clientAuthentication(OAuth2ClientCredentials.ClientAuthentication)",
                f -> OAuth2ClientCredentials.builder(),
                f -> a(OAuth2ClientCredentials.ClientAuthentication.values()[0]), N));
        r.add(rule("OAuth2ClientCredentials.Builder#refreshMargin(Duration)", f -> OAuth2ClientCredentials.builder(),
                f -> a(SECOND), NNEG));
        r.add(rule("OAuth2ClientCredentials.Builder#defaultLifetime(Duration)", f -> OAuth2ClientCredentials.builder(),
                f -> a(SECOND), POS));
        r.add(rule("OAuth2ClientCredentials.Builder#requestTimeout(Duration)", f -> OAuth2ClientCredentials.builder(),
                f -> a(SECOND), POS));
        r.add(rule("OAuth2ClientCredentials.Builder#httpClient(HttpClient)", f -> OAuth2ClientCredentials.builder(),
                f -> a(HttpClient.newHttpClient()), N));
        r.add(rule("OAuth2ClientCredentials.Builder#clock(InstantSource)", f -> OAuth2ClientCredentials.builder(),
                f -> a(InstantSource.system()), N));
        return List.copyOf(r);
    }

    // ---- the checks

    @TestFactory
    Stream<DynamicTest> everyParameterRefusesBadInputClearly() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Rule rule : RULES) {
            Executable e = find(rule.signature());
            String[] names = Arrays.stream(e.getParameters()).map(java.lang.reflect.Parameter::getName)
                    .toArray(String[]::new);
            Class<?>[] types = e.getParameterTypes();
            for (int i = 0; i < types.length; i++) {
                int index = i;
                for (Object bad : badValues(rule.kinds()[i], types[i])) {
                    tests.add(DynamicTest.dynamicTest(rule.signature() + " " + names[i] + "=" + show(bad),
                            () -> check(rule, e, names, index, bad)));
                }
            }
        }
        return tests.stream();
    }

    @Test
    void everyPublicMethodHasARow() throws IOException, ClassNotFoundException {
        Set<String> rows = RULES.stream().map(Rule::signature).collect(Collectors.toCollection(TreeSet::new));
        Set<String> missing = new TreeSet<>();
        for (Class<?> type : publicTypes()) {
            List<Executable> all = new ArrayList<>(Arrays.asList(type.getDeclaredConstructors()));
            all.addAll(Arrays.asList(type.getDeclaredMethods()));
            for (Executable e : all) {
                if (!Modifier.isPublic(e.getModifiers()) || e.getParameterCount() == 0 || e.isSynthetic()
                        || (e instanceof Method m && (m.isBridge() || m.getName().equals("equals")))) {
                    continue;
                }
                String signature = signature(type, e);
                String keyed = type.getPackageName().substring("io.sluice.".length()) + ":" + signature;
                boolean excluded = EXCLUDED.keySet().stream().anyMatch(x -> keyed.startsWith(x)
                        || signature.startsWith(x) || signature.contains(x));
                if (!excluded && !rows.contains(signature)) {
                    missing.add(signature);
                }
            }
        }
        assertThat(missing).as("public methods without a row in PublicApiValidationTest.RULES (add one, or an"
                + " EXCLUDED entry with the reason)").isEmpty();
        for (String row : rows) {
            assertThat(find(row)).as(row).isNotNull();
        }
    }

    private static void check(Rule rule, Executable e, String[] names, int index, Object bad) throws Exception {
        Fixture f = fixture();
        Object target = rule.target() == null ? null : rule.target().apply(f);
        Object[] args = rule.args().apply(f).clone();
        args[index] = bad;
        Future<Object> call = CALLERS.submit(() -> invoke(e, target, args));
        Throwable thrown;
        try {
            Object result = call.get(15, TimeUnit.SECONDS);
            closeIfCloseable(result);
            throw new AssertionError(rule.signature() + " accepted " + names[index] + " = " + show(bad)
                    + " and returned " + result);
        } catch (TimeoutException t) {
            call.cancel(true);
            throw new AssertionError(rule.signature() + " with " + names[index] + " = " + show(bad)
                    + " was still running after 15 s");
        } catch (ExecutionException x) {
            thrown = x.getCause() instanceof InvocationTargetException ite ? ite.getCause() : x.getCause();
        }
        if (BOUNDS.equals(rule.keyword()) && thrown instanceof IndexOutOfBoundsException) {
            return;
        }
        assertThat(thrown).as("what %s threw for %s = %s", rule.signature(), names[index], show(bad))
                .isInstanceOfAny(IllegalArgumentException.class, NullPointerException.class, SluiceException.class);
        String message = thrown.getMessage() == null ? ""
                : thrown.getMessage().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", " ");
        String method = e.getName().replaceFirst("^(with|set)(?=[A-Z])", "");
        List<String> words = new ArrayList<>(List.of(names[index].toLowerCase(Locale.ROOT),
                spaced(names[index]), method.toLowerCase(Locale.ROOT), spaced(method)));
        for (String part : spaced(names[index]).split(" ")) {
            if (part.length() >= 4) {
                words.add(part);
            }
        }
        if (rule.keyword() != null) {
            words.add(rule.keyword());
        }
        if (rule.kinds()[index] == Kind.NAME) {
            words.add("name");
        }
        assertThat(words.stream().anyMatch(message::contains))
                .as("%s for %s = %s: the message names the parameter (one of %s): \"%s\" (%s)", rule.signature(),
                        names[index], show(bad), words, thrown.getMessage(), thrown.getClass().getSimpleName())
                .isTrue();
    }

    private static Object invoke(Executable e, Object target, Object[] args) throws Exception {
        if (e instanceof Constructor<?> c) {
            return c.newInstance(args);
        }
        return ((Method) e).invoke(target, args);
    }

    private static void closeIfCloseable(Object o) {
        if (o instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception ignored) {
                // the call should not have returned it anyway
            }
        }
    }

    /** @return "primaryKeyLength" as "primary key length" */
    private static String spaced(String camel) {
        return camel.replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase(Locale.ROOT);
    }

    private static List<Object> badValues(Kind kind, Class<?> type) {
        List<Object> out = new ArrayList<>();
        boolean reference = !type.isPrimitive();
        switch (kind) {
            case ANY -> {
            }
            case NON_NULL -> out.add(null);
            case NAME -> out.addAll(Arrays.asList(null, "", "x".repeat(256), "a/b", "a b", "caf\u00e9"));
            case READER_ID -> out.addAll(Arrays.asList(null, "", "r".repeat(1025)));
            case CONTROLLER_URI -> out.addAll(Arrays.asList(null, "", "tcp://", "http://127.0.0.1:9090",
                    "tcp://127.0.0.1:70000", "tcp://127.0.0.1:9090,", "tcp://h:p",
                    "127.0.0.1:9090"));
            case POSITIVE, NON_NEGATIVE -> {
                boolean positive = kind == Kind.POSITIVE;
                if (type == int.class) {
                    out.addAll(positive ? List.of(0, -1) : List.of(-1));
                } else if (type == long.class) {
                    out.addAll(positive ? List.of(0L, -1L) : List.of(-1L));
                } else if (type == double.class) {
                    out.addAll(positive ? List.of(0.0, -1.0, Double.NaN) : List.of(-1.0, Double.NaN));
                } else if (type == Duration.class) {
                    out.add(null);
                    out.addAll(positive ? List.of(Duration.ZERO, Duration.ofMillis(-1)) : List.of(Duration.ofMillis(-1)));
                } else {
                    throw new IllegalArgumentException("kind " + kind + " does not fit type " + type);
                }
            }
        }
        if (!reference && out.contains(null)) {
            throw new IllegalArgumentException("kind " + kind + " does not fit primitive " + type);
        }
        return out;
    }

    private static String show(Object bad) {
        if (bad == null) {
            return "null";
        }
        String s = bad instanceof String str ? '"' + str + '"' : bad.toString();
        return s.length() > 40 ? s.substring(0, 20) + "…(" + s.length() + " chars)" : s;
    }

    // ---- reflection over the public packages

    private static List<Class<?>> publicTypes() throws IOException, ClassNotFoundException {
        Path root;
        try {
            root = Path.of(SluiceClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        List<Class<?>> out = new ArrayList<>();
        for (String p : PACKAGES) {
            try (Stream<Path> files = Files.list(root.resolve("io/sluice/" + p))) {
                for (Path file : files.sorted().toList()) {
                    String name = file.getFileName().toString();
                    if (!name.endsWith(".class") || name.equals("package-info.class")) {
                        continue;
                    }
                    Class<?> c = Class.forName("io.sluice." + p + "." + name.substring(0, name.length() - 6), false,
                            PublicApiValidationTest.class.getClassLoader());
                    if (isPublicApi(c)) {
                        out.add(c);
                    }
                }
            }
        }
        return out;
    }

    private static boolean isPublicApi(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
            if (!Modifier.isPublic(k.getModifiers()) || k.isAnonymousClass()) {
                return false;
            }
        }
        return true;
    }

    private static String typeName(Class<?> c) {
        return c.getEnclosingClass() == null ? c.getSimpleName() : typeName(c.getEnclosingClass()) + "."
                + c.getSimpleName();
    }

    private static String signature(Class<?> type, Executable e) {
        String params = Arrays.stream(e.getParameterTypes()).map(PublicApiValidationTest::typeName)
                .collect(Collectors.joining(","));
        return typeName(type) + "#" + (e instanceof Constructor<?> ? "<init>" : e.getName()) + "(" + params + ")";
    }

    private static Executable find(String signature) {
        try {
            for (Class<?> type : publicTypes()) {
                List<Executable> all = new ArrayList<>(Arrays.asList(type.getDeclaredConstructors()));
                all.addAll(Arrays.asList(type.getDeclaredMethods()));
                for (Executable e : all) {
                    if (Modifier.isPublic(e.getModifiers()) && !e.isSynthetic() && signature(type, e).equals(signature)
                            && !(e instanceof Method m && m.isBridge())) {
                        return e;
                    }
                }
            }
        } catch (IOException | ClassNotFoundException x) {
            throw new IllegalStateException(x);
        }
        throw new IllegalArgumentException("no public method " + signature);
    }

    private static Rule rule(String signature, Function<Fixture, Object> target, Function<Fixture, Object[]> args,
                             Kind... kinds) {
        return new Rule(signature, target, args, kinds, null);
    }

    private static Rule rule(String signature, Function<Fixture, Object> target, Function<Fixture, Object[]> args,
                             Kind kind, String keyword) {
        return new Rule(signature, target, args, new Kind[] {kind}, keyword);
    }

    private static Object[] a(Object... args) {
        return args;
    }

    // ---- the fixture

    private static Fixture fixture() {
        if (fixture == null) {
            fixture = new Fixture();
        }
        return fixture;
    }

    @AfterAll
    static void closeFixture() {
        if (fixture != null) {
            fixture.close();
        }
        CALLERS.shutdownNow();
    }

    /** An embedded server with a scope, streams, a table and a reader group, and the client objects on them. */
    static final class Fixture implements AutoCloseable {
        /** An update of a state synchronizer's string state: appends its text. */
        record Append(String text) implements Update<String> {
            @Override
            public String applyTo(String state) {
                return state + text;
            }
        }

        static final Serializer<Append> APPEND = new Serializer<>() {
            @Override
            public ByteBuffer serialize(Append value) {
                return StandardCharsets.UTF_8.encode(value.text());
            }

            @Override
            public Append deserialize(ByteBuffer bytes) {
                return new Append(StandardCharsets.UTF_8.decode(bytes).toString());
            }
        };

        private final EmbeddedServer server;
        private final SluiceClient client;
        private final List<AutoCloseable> closeables = new ArrayList<>();
        private final EventStreamWriter<String> writer;
        private final EventPointer pointer;
        private int readerIds;
        private EventStreamReader<String> reader;
        private TransactionalEventStreamWriter<String> txnWriter;
        private ByteStreamReader byteReader;
        private ByteStreamWriter byteWriter;
        private KeyValueTable kvt;
        private TableSynchronizer<String, String> tableSync;
        private StateSynchronizer<String, Append> stateSync;
        private RevisionedStreamClient<String> revisioned;
        private ReaderGroup readerGroup;
        private OAuth2ClientCredentials oauth;
        private Path keycloakJson;

        Fixture() {
            server = EmbeddedServer.builder().inMemory().build();
            client = SluiceClient.connect(server.controllerUri());
            StreamManager streams = client.streamManager();
            streams.createScope(SCOPE);
            streams.createStream(SCOPE, STREAM, StreamConfiguration.builder().build());
            streams.createStream(SCOPE, BYTES, StreamConfiguration.builder().build());
            streams.createStream(SCOPE, SYNC, StreamConfiguration.builder().build());
            client.keyValueTableManager().createKeyValueTable(SCOPE, TABLE, KeyValueTableConfiguration.builder()
                    .partitionCount(1).primaryKeyLength(4).build());
            client.readerGroupManager(SCOPE).createReaderGroup(GROUP, ReaderGroupConfig.builder().stream(SCOPED)
                    .build()).close();
            writer = keep(client.newWriter(SCOPE, STREAM, UTF8));
            writer.writeAndWait("key", "first");
            try (EventStreamReader<String> r = client.newReader(SCOPE, GROUP, "pointer-reader", UTF8)) {
                EventRead<String> read = r.readNextEvent(Duration.ofSeconds(10));
                pointer = read.pointer();
            }
        }

        private <T extends AutoCloseable> T keep(T c) {
            closeables.add(c);
            return c;
        }

        String uri() {
            return server.controllerUri();
        }

        SluiceClient client() {
            return client;
        }

        StreamManager streams() {
            return client.streamManager();
        }

        ReaderGroupManager groups() {
            return client.readerGroupManager(SCOPE);
        }

        KeyValueTableManager tables() {
            return client.keyValueTableManager();
        }

        String nextReaderId() {
            return "r" + readerIds++;
        }

        EventPointer pointer() {
            return pointer;
        }

        TableKey tableKey() {
            return new TableKey(ByteBuffer.allocate(4).putInt(0, 7));
        }

        EventStreamWriter<String> writer() {
            return writer;
        }

        WriteHandle writeHandle() {
            return writer.write("key", "event");
        }

        EventStreamReader<String> reader() {
            if (reader == null) {
                reader = keep(client.newReader(SCOPE, GROUP, nextReaderId(), UTF8));
            }
            return reader;
        }

        EventStreamReader<String> freshReader() {
            return keep(client.newReader(SCOPE, GROUP, nextReaderId(), UTF8));
        }

        ReaderGroup readerGroup() {
            if (readerGroup == null) {
                readerGroup = keep(groups().readerGroup(GROUP));
            }
            return readerGroup;
        }

        TransactionalEventStreamWriter<String> txnWriter() {
            if (txnWriter == null) {
                txnWriter = keep(client.newTransactionalWriter(SCOPE, STREAM, UTF8));
            }
            return txnWriter;
        }

        Transaction<String> txn() {
            return txnWriter().beginTxn();
        }

        ByteStreamReader byteReader() {
            if (byteReader == null) {
                byteReader = keep(client.newByteStreamReader(SCOPE, BYTES));
            }
            return byteReader;
        }

        ByteStreamWriter byteWriter() {
            if (byteWriter == null) {
                byteWriter = keep(client.newByteStreamWriter(SCOPE, BYTES));
            }
            return byteWriter;
        }

        BatchClient batch() {
            return client.batchClient();
        }

        KeyValueTable kvt() {
            if (kvt == null) {
                kvt = keep(client.keyValueTable(SCOPE, TABLE));
            }
            return kvt;
        }

        TableSynchronizer<String, String> tableSync() {
            if (tableSync == null) {
                tableSync = keep(client.newTableSynchronizer(SCOPE, "tsync", UTF8, UTF8));
            }
            return tableSync;
        }

        StateSynchronizer<String, Append> stateSync() {
            if (stateSync == null) {
                stateSync = keep(client.newStateSynchronizer(SCOPE, SYNC, APPEND, UTF8));
            }
            return stateSync;
        }

        RevisionedStreamClient<String> revisioned() {
            if (revisioned == null) {
                revisioned = keep(client.newRevisionedStreamClient(SCOPE, SYNC, UTF8));
            }
            return revisioned;
        }

        OAuth2ClientCredentials oauth() {
            if (oauth == null) {
                oauth = keep(OAuth2ClientCredentials.builder().tokenEndpoint(URI.create("http://127.0.0.1:1/token"))
                        .client("id", "secret").build());
            }
            return oauth;
        }

        Path keycloakJson() {
            if (keycloakJson == null) {
                try {
                    keycloakJson = Files.createTempFile("keycloak", ".json");
                    Files.writeString(keycloakJson, "{\"realm\":\"r\",\"auth-server-url\":\"http://127.0.0.1:1\","
                            + "\"resource\":\"id\",\"credentials\":{\"secret\":\"s\"}}");
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
            return keycloakJson;
        }

        @Override
        public void close() {
            for (AutoCloseable c : closeables.reversed()) {
                try {
                    c.close();
                } catch (Exception e) {
                    // closing what a bad call may have broken
                }
            }
            client.close();
            server.close();
            if (keycloakJson != null) {
                try {
                    Files.deleteIfExists(keycloakJson);
                } catch (IOException e) {
                    // a temporary file
                }
            }
        }
    }
}
