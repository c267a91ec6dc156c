package io.sluice.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import io.sluice.admin.ReaderGroupManager;
import io.sluice.batch.BatchClient;
import io.sluice.bytestream.ByteStreamReader;
import io.sluice.bytestream.ByteStreamWriter;
import io.sluice.common.ClientMetrics;
import io.sluice.controller.ControllerClient;
import io.sluice.controller.GrpcControllerClient;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.SegmentStores;
import io.sluice.state.RevisionedStreamClient;
import io.sluice.state.StateSynchronizer;
import io.sluice.state.SynchronizerConfig;
import io.sluice.state.Update;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializer;
import io.sluice.stream.Transaction;
import io.sluice.stream.TransactionalEventStreamWriter;
import io.sluice.stream.WriterConfig;
import io.sluice.table.TableSynchronizer;

/**
 * The one entry point of Sluice: connects to a Pravega controller and hands out writers, readers and managers.
 * All of them share this client's connections (a bounded pool per segment store) and its controller channel.
 *
 * <pre>{@code
 * try (SluiceClient client = SluiceClient.connect("tcp://127.0.0.1:9090");
 *      EventStreamWriter<String> writer = client.newWriter("shop", "orders", Serializers.utf8())) {
 *     writer.write("customer-42", "order placed");
 *     writer.flush();
 * }
 * }</pre>
 *
 * <p>Every method blocks the calling thread (a virtual thread is ideal) and needs no executor. Thread-safe.
 * Closing the client closes everything it created.
 */
public final class SluiceClient implements AutoCloseable {
    private final ClientConfig config;
    private final ControllerClient controller;
    private final SegmentStores stores;
    /** Readers this client created and that are still open; closed with the client. */
    private final Set<EventStreamReaderImpl<?>> readers = ConcurrentHashMap.newKeySet();

    private SluiceClient(ClientConfig config, ControllerClient controller, UnaryOperator<SegmentLocator> locators) {
        this.config = config;
        this.controller = controller;
        this.stores = SegmentStores.open(locators.apply(SegmentLocator.of(controller)),
                new SegmentStores.Settings(config.tls(), config.trustStore().orElse(null), config.validateHostname(),
                        config.connectTimeout(), config.maxConnectionsPerSegmentStore(), config.platformReaders(),
                        config.callerReads()),
                config.meterRegistry() == null ? ClientMetrics.NONE : MicrometerClientMetrics.over(config.meterRegistry()));
    }

    /**
     * Connects to the controller at {@code controllerUri} with default settings. Does not block: connections are
     * made on first use.
     *
     * @param controllerUri {@code tcp://host:port}, {@code tls://host:port}, or {@code pravega://}/{@code pravegas://}
     *     for discovery
     */
    public static SluiceClient connect(String controllerUri) {
        return connect(ClientConfig.of(controllerUri));
    }

    /** Connects with the given settings. */
    public static SluiceClient connect(ClientConfig config) {
        Objects.requireNonNull(config, "config");
        return new SluiceClient(config, GrpcControllerClient.create(config.controller()), UnaryOperator.identity());
    }

    /**
     * Connects as {@link #connect(ClientConfig)}, but every segment store location the controller gives passes
     * through {@code locators} first: for tests that put a proxy between the client and the segment stores (not
     * public API).
     */
    static SluiceClient connect(ClientConfig config, UnaryOperator<SegmentLocator> locators) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(locators, "locators");
        return new SluiceClient(config, GrpcControllerClient.create(config.controller()), locators);
    }

    /** @return the settings of this client */
    public ClientConfig config() {
        return config;
    }

    /**
     * Creates a writer with default settings. Blocks to ask the controller for the stream's segments.
     *
     * @throws io.sluice.errors.NoSuchStreamException if the stream does not exist
     */
    public <T> EventStreamWriter<T> newWriter(String scope, String stream, Serializer<T> serializer) {
        return newWriter(scope, stream, serializer, WriterConfig.DEFAULT);
    }

    /** Creates a writer. See {@link #newWriter(String, String, Serializer)}. */
    public <T> EventStreamWriter<T> newWriter(String scope, String stream, Serializer<T> serializer, WriterConfig writerConfig) {
        return new EventStreamWriterImpl<>(ScopedStream.of(scope, stream), serializer, writerConfig, controller, stores);
    }

    /**
     * Creates a transactional writer with default settings: it opens {@link Transaction}s on the stream, each with
     * the default lease ({@link WriterConfig#transactionLease()}).
     */
    public <T> TransactionalEventStreamWriter<T> newTransactionalWriter(String scope, String stream,
                                                                       Serializer<T> serializer) {
        return newTransactionalWriter(scope, stream, serializer, WriterConfig.DEFAULT);
    }

    /** Creates a transactional writer. See {@link #newTransactionalWriter(String, String, Serializer)}. */
    public <T> TransactionalEventStreamWriter<T> newTransactionalWriter(String scope, String stream,
                                                                       Serializer<T> serializer,
                                                                       WriterConfig writerConfig) {
        return new TransactionalEventStreamWriterImpl<>(ScopedStream.of(scope, stream), serializer, writerConfig,
                controller, stores);
    }

    /**
     * Creates a reader in a reader group with default settings ({@link ReaderConfig#DEFAULT}). See
     * {@link #newReader(String, String, String, Serializer, ReaderConfig)}.
     */
    public <T> EventStreamReader<T> newReader(String scope, String group, String readerId, Serializer<T> serializer) {
        return newReader(scope, group, readerId, serializer, ReaderConfig.DEFAULT);
    }

    /**
     * Creates a reader that joins the reader group {@code scope/group} (create the group first with
     * {@link #readerGroupManager(String)}). Blocks to join the group. The reader takes its share of the group's
     * segments at its first {@link EventStreamReader#readNextEvent}, so readers created together share them evenly
     * from the start, and prefetches from then on. If a reader with this id is already in the group, it is taken to
     * be an earlier instance of this one (e.g. before a restart): it is removed, its segments go back to the group,
     * and it fails on its next read.
     *
     * @param scope the group's scope
     * @param group the group's name
     * @param readerId the reader's id, unique within the group (1 to 1024 characters)
     * @param serializer turns event bytes into events
     * @param readerConfig how the reader behaves
     * @return the reader; close it to leave the group
     * @throws io.sluice.errors.NoSuchStreamException if there is no such group
     * @throws IllegalArgumentException if the reader id is empty or too long, or the offline timeout is shorter than
     *     three of the group's refresh intervals
     * @throws io.sluice.errors.ProtocolException if the group's state is not in Sluice's format
     */
    public <T> EventStreamReader<T> newReader(String scope, String group, String readerId, Serializer<T> serializer,
                                              ReaderConfig readerConfig) {
        AtomicReference<EventStreamReaderImpl<?>> self = new AtomicReference<>();
        EventStreamReaderImpl<T> reader = new EventStreamReaderImpl<>(scope, group, readerId, serializer, readerConfig,
                controller, stores, () -> readers.remove(self.get()));
        self.set(reader);
        readers.add(reader);
        return reader;
    }

    /**
     * Creates a writer of raw bytes to a byte stream (a stream with exactly one segment, e.g. created with
     * {@code ScalingPolicy.fixed(1)}), with default settings. See {@link ByteStreamWriter}.
     *
     * @throws io.sluice.errors.NoSuchStreamException if the stream does not exist
     * @throws IllegalArgumentException if the stream has more than one open segment
     * @throws io.sluice.errors.SegmentSealedException if the stream is sealed
     */
    public ByteStreamWriter newByteStreamWriter(String scope, String stream) {
        return newByteStreamWriter(scope, stream, WriterConfig.DEFAULT);
    }

    /**
     * Creates a byte stream writer; of {@code writerConfig} it uses the retry policy, the bound on unacknowledged
     * bytes and the backpressure timeout. See {@link #newByteStreamWriter(String, String)}.
     */
    public ByteStreamWriter newByteStreamWriter(String scope, String stream, WriterConfig writerConfig) {
        return new ByteStreamWriterImpl(ScopedStream.of(scope, stream), writerConfig, controller, stores);
    }

    /**
     * Creates a reader of a byte stream's raw bytes, starting at its head (the first byte not truncated away). See
     * {@link ByteStreamReader}.
     *
     * @throws io.sluice.errors.NoSuchStreamException if the stream does not exist
     * @throws IllegalArgumentException if the stream has more than one segment at its head
     */
    public ByteStreamReader newByteStreamReader(String scope, String stream) {
        return new ByteStreamReaderImpl(ScopedStream.of(scope, stream), controller, stores);
    }

    // ---- batch client (issue 15)

    /**
     * A batch client: the segments between two stream cuts and their events, read on their own and in parallel,
     * without a reader group. See {@link BatchClient}. It uses this client's connections and lives as long as it.
     */
    public BatchClient batchClient() {
        return new BatchClientImpl(controller, stores);
    }

    // ---- end of batch client

    /**
     * @param scope a scope
     * @return the manager of the reader groups of {@code scope} (creates, opens and deletes groups). Does not block.
     */
    public ReaderGroupManager readerGroupManager(String scope) {
        return new ReaderGroupManagerImpl(scope, controller, stores);
    }

    /** @return a manager of scopes and streams (cheap; shares this client's connections) */
    public io.sluice.admin.StreamManager streamManager() {
        return new StreamManagerImpl(controller, stores.calls());
    }

    // ---- key-value tables (issue 15) ----

    /** @return a manager of key-value tables (create, delete, list, configuration); cheap, shares this client */
    public io.sluice.admin.KeyValueTableManager keyValueTableManager() {
        return new KeyValueTableManagerImpl(controller);
    }

    /**
     * Opens an existing key-value table: reads its configuration and partitions from the controller once.
     *
     * @param scope the scope
     * @param name the table
     * @return the table; it shares this client's connections
     * @throws io.sluice.errors.NoSuchStreamException if there is no such table
     */
    public io.sluice.table.KeyValueTable keyValueTable(String scope, String name) {
        return new KeyValueTableImpl(scope, name, controller, stores.calls());
    }

    /**
     * Opens a state synchronizer on an existing stream (create it with one segment): a state shared through the
     * stream's segment, in Pravega's format, so official-client synchronizers can share it. See
     * {@link StateSynchronizer}. Blocks to ask the controller for the stream's segment; reads nothing
     * until {@code fetchUpdates}, {@code initialize} or {@code updateState} is called.
     *
     * @param updateSerializer serializes single updates
     * @param initialSerializer serializes whole states (written by {@code initialize} and {@code compact})
     * @throws io.sluice.errors.NoSuchStreamException if the stream does not exist or is sealed
     */
    public <S, U extends Update<S>> StateSynchronizer<S, U> newStateSynchronizer(
            String scope, String stream, Serializer<U> updateSerializer, Serializer<S> initialSerializer) {
        return newStateSynchronizer(scope, stream, updateSerializer, initialSerializer,
                SynchronizerConfig.DEFAULT);
    }

    /** As {@link #newStateSynchronizer(String, String, Serializer, Serializer)}, with the given settings. */
    public <S, U extends Update<S>> StateSynchronizer<S, U> newStateSynchronizer(
            String scope, String stream, Serializer<U> updateSerializer, Serializer<S> initialSerializer,
            SynchronizerConfig synchronizerConfig) {
        Objects.requireNonNull(updateSerializer, "updateSerializer");
        Objects.requireNonNull(initialSerializer, "initialSerializer");
        Objects.requireNonNull(synchronizerConfig, "synchronizerConfig");
        return new StateSynchronizerImpl<>(RevisionedStreamClientImpl.open(scope, stream, controller, stores),
                updateSerializer, initialSerializer, synchronizerConfig);
    }

    /**
     * Opens a revisioned stream client on an existing stream (create it with one segment): a log of values with
     * conditional appends, in Pravega's format. See {@link RevisionedStreamClient}. Blocks to ask
     * the controller for the stream's segment.
     *
     * @throws io.sluice.errors.NoSuchStreamException if the stream does not exist or is sealed
     */
    public <T> RevisionedStreamClient<T> newRevisionedStreamClient(String scope, String stream,
            Serializer<T> serializer) {
        Objects.requireNonNull(serializer, "serializer");
        return new RevisionedStreamClientImpl<>(RevisionedStreamClientImpl.open(scope, stream, controller, stores),
                serializer);
    }

    /**
     * Opens the table synchronizer {@code name} of {@code scope}, creating its table segment if it does not exist,
     * and reads it: a map shared between processes with optimistic concurrency per key. See
     * {@link TableSynchronizer}. Blocks for the creation and the first read.
     *
     * @param name the synchronizer's name: ASCII letters, digits, '.' and '-'
     * @throws io.sluice.errors.NoSuchScopeException if the scope does not exist
     * @throws IllegalArgumentException if a name is invalid
     */
    public <K, V> TableSynchronizer<K, V> newTableSynchronizer(String scope, String name, Serializer<K> keySerializer,
            Serializer<V> valueSerializer) {
        return newTableSynchronizer(scope, name, keySerializer, valueSerializer,
                SynchronizerConfig.DEFAULT);
    }

    /** As {@link #newTableSynchronizer(String, String, Serializer, Serializer)}, with the given settings. */
    public <K, V> TableSynchronizer<K, V> newTableSynchronizer(String scope, String name, Serializer<K> keySerializer,
            Serializer<V> valueSerializer, SynchronizerConfig synchronizerConfig) {
        return TableSynchronizerImpl.open(scope, name, keySerializer, valueSerializer, synchronizerConfig, controller,
                stores.calls());
    }


    /** @return the controller client this client uses (internal: its type is not public API) */
    ControllerClient controller() {
        return controller;
    }

    /** @return the segment stores (connections and locator) this client's readers and writers share */
    SegmentStores stores() {
        return stores;
    }

    /**
     * Closes the readers this client created (they leave their groups at their positions), then the connections and
     * the controller channel; writers of this client stop working. Blocks while readers leave.
     */
    @Override
    public void close() {
        List<EventStreamReaderImpl<?>> open = new ArrayList<>(readers);
        open.forEach(EventStreamReaderImpl::close);
        stores.close();
        controller.close();
    }
}
