package io.sluice.server.controller;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

import io.sluice.controller.grpc.v1.CreateKeyValueTableStatus;
import io.sluice.controller.grpc.v1.CreateReaderGroupResponse;
import io.sluice.controller.grpc.v1.CreateScopeStatus;
import io.sluice.controller.grpc.v1.CreateStreamStatus;
import io.sluice.controller.grpc.v1.DeleteKVTableStatus;
import io.sluice.controller.grpc.v1.DeleteReaderGroupStatus;
import io.sluice.controller.grpc.v1.DeleteScopeStatus;
import io.sluice.controller.grpc.v1.DeleteStreamStatus;
import io.sluice.controller.grpc.v1.KeyValueTableConfig;
import io.sluice.controller.grpc.v1.KeyValueTableConfigResponse;
import io.sluice.controller.grpc.v1.PingTxnStatus;
import io.sluice.controller.grpc.v1.ReaderGroupConfigResponse;
import io.sluice.controller.grpc.v1.ReaderGroupConfiguration;
import io.sluice.controller.grpc.v1.RemoveWriterResponse;
import io.sluice.controller.grpc.v1.ScaleResponse;
import io.sluice.controller.grpc.v1.ScaleStatusResponse;
import io.sluice.controller.grpc.v1.SegmentRange;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.controller.grpc.v1.SubscribersResponse;
import io.sluice.controller.grpc.v1.TimestampResponse;
import io.sluice.controller.grpc.v1.TxnStatus;
import io.sluice.controller.grpc.v1.UpdateReaderGroupResponse;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;
import io.sluice.controller.grpc.v1.UpdateSubscriberStatus;
import io.sluice.server.controller.ControllerEvent.KeyRange;

/**
 * What the controller does, independent of gRPC plumbing and auth: a facade over its parts, each a class of its own
 * around one {@link ControllerContext} (journal, serial keys, segment admin, clock, settings):
 * {@link Scopes}, {@link Streams} (lifecycle), {@link Scaling} (epochs and segments), {@link Truncation},
 * {@link Transactions} (with {@link TxnCompletion}, the background commit and abort work), {@link WriterMarks} and
 * {@link Watermarks}, {@link ReaderGroups} (and subscribers), {@link KeyValueTables} and {@link Recovery}. New code
 * may use the parts directly ({@link #scaling()}, {@link #truncation()}...); the methods here only delegate.
 *
 * <p>Each operation validates, logs its events through the {@link Journal} and drives the segment store through
 * {@link SegmentAdmin}. Changes to one stream, reader group, key-value table or scope run one at a time on that
 * entity's {@link SerialExecutors} key; callers block until their operation is done (transaction commits and aborts
 * finish in the background, as in Pravega).
 *
 * <p>Semantics follow Pravega 0.13's controller ({@code ControllerService}, {@code StreamMetadataTasks},
 * {@code StreamTransactionMetadataTasks}, {@code PersistentStreamBase}); where Pravega would fail an RPC with a
 * generic INTERNAL/UNKNOWN status on bad input, this answers INVALID_ARGUMENT, which clients do not retry.
 *
 * <p>Thread-safe. Methods block (metadata logging, segment store calls); they throw
 * {@link io.grpc.StatusRuntimeException} for answers that are gRPC errors.
 */
final class ControllerCore {
    private final ControllerContext context;
    private final Scopes scopes;
    private final Streams streams;
    private final Scaling scaling;
    private final Truncation truncation;
    private final Transactions transactions;
    private final WriterMarks writerMarks;
    private final Watermarks watermarks;
    private final ReaderGroups readerGroups;
    private final KeyValueTables kvts;
    private final Recovery recovery;

    ControllerCore(Journal journal, SerialExecutors executors, SegmentAdmin admin, Clock clock,
                   ControllerSettings settings) {
        this.context = new ControllerContext(journal, executors, admin, clock, settings);
        this.writerMarks = new WriterMarks(context);
        TxnCompletion completion = new TxnCompletion(context, writerMarks);
        this.transactions = new Transactions(context, completion);
        this.scaling = new Scaling(context);
        this.streams = new Streams(context, scaling, completion);
        this.truncation = new Truncation(context);
        this.readerGroups = new ReaderGroups(context, streams);
        this.kvts = new KeyValueTables(context);
        this.scopes = new Scopes(context, streams, readerGroups, kvts);
        this.recovery = new Recovery(context, scopes, streams, scaling, truncation, completion, readerGroups, kvts);
        this.watermarks = new Watermarks(journal, executors, admin, clock);
    }

    ControllerSettings settings() {
        return context.settings();
    }

    // ---------------------------------------------------------------- parts

    /** @return what the parts share: journal, serial keys, segment admin, clock, settings */
    ControllerContext context() {
        return context;
    }

    Scopes scopes() {
        return scopes;
    }

    Streams streams() {
        return streams;
    }

    Scaling scaling() {
        return scaling;
    }

    Truncation truncation() {
        return truncation;
    }

    Transactions transactions() {
        return transactions;
    }

    WriterMarks writerMarks() {
        return writerMarks;
    }

    ReaderGroups readerGroups() {
        return readerGroups;
    }

    KeyValueTables keyValueTables() {
        return kvts;
    }

    Recovery recovery() {
        return recovery;
    }

    // ---------------------------------------------------------------- keys

    static String streamKey(String scope, String stream) {
        return ControllerContext.streamKey(scope, stream);
    }

    static String readerGroupKey(String scope, String readerGroup) {
        return ControllerContext.readerGroupKey(scope, readerGroup);
    }

    static String kvtKey(String scope, String kvt) {
        return ControllerContext.kvtKey(scope, kvt);
    }

    static String scopeKey(String scope) {
        return ControllerContext.scopeKey(scope);
    }

    // ---------------------------------------------------------------- scopes

    CreateScopeStatus.Status createScope(String scope) {
        return scopes.createScope(scope);
    }

    boolean scopeExists(String scope) {
        return scopes.scopeExists(scope);
    }

    /** @return one page of scope names after {@code token} that pass the filter, and the next token */
    Page listScopes(String token, Predicate<String> filter) {
        return scopes.listScopes(token, filter);
    }

    DeleteScopeStatus.Status deleteScope(String scope) {
        return scopes.deleteScope(scope);
    }

    /** Seals and deletes everything in a scope, then the scope. A missing scope is a success, as in Pravega. */
    DeleteScopeStatus.Status deleteScopeRecursive(String scope) {
        return scopes.deleteScopeRecursive(scope);
    }

    // ---------------------------------------------------------------- streams

    CreateStreamStatus.Status createStream(String scope, String stream, StreamConfig requested) {
        return streams.createStream(scope, stream, requested);
    }

    boolean streamExists(String scope, String stream) {
        return streams.streamExists(scope, stream);
    }

    StreamConfig streamConfig(String scope, String stream) {
        return streams.streamConfig(scope, stream);
    }

    /** @return one page of stream names, or null if the scope does not exist */
    Page listStreams(String scope, String token, String tag, Predicate<String> filter) {
        return streams.listStreams(scope, token, tag, filter);
    }

    UpdateStreamStatus.Status updateStream(String scope, String stream, StreamConfig requested) {
        return streams.updateStream(scope, stream, requested);
    }

    UpdateStreamStatus.Status sealStream(String scope, String stream) {
        return streams.sealStream(scope, stream);
    }

    DeleteStreamStatus.Status deleteStream(String scope, String stream) {
        return streams.deleteStream(scope, stream);
    }

    UpdateStreamStatus.Status truncateStream(String scope, String stream, Map<Long, Long> streamCut) {
        return truncation.truncateStream(scope, stream, streamCut);
    }

    /** @return segment id to offset at the head of the stream (its truncation point) */
    Map<Long, Long> head(String scope, String stream) {
        return truncation.head(scope, stream);
    }

    // ---------------------------------------------------------------- segments and scaling

    /** @return the active segments sorted by key (none once sealed) */
    List<SegmentRange> currentSegments(String scope, String stream) {
        return scaling.currentSegments(scope, stream);
    }

    List<SegmentRange> epochSegments(String scope, String stream, int epoch) {
        return scaling.epochSegments(scope, stream, epoch);
    }

    /** @return each successor of the segment with its predecessors' ids */
    Map<SegmentRange, List<Long>> successors(String scope, String stream, long segmentId) {
        return scaling.successors(scope, stream, segmentId);
    }

    /** @return ids of the segments between two stream cuts (empty map: the start, or the current end) */
    List<Long> segmentsBetween(String scope, String stream, Map<Long, Long> from, Map<Long, Long> to) {
        return scaling.segmentsBetween(scope, stream, from, to);
    }

    boolean isSegmentValid(String scope, String stream, long segmentId) {
        return scaling.isSegmentValid(scope, stream, segmentId);
    }

    boolean isStreamCutValid(String scope, String stream, Map<Long, Long> streamCut) {
        return scaling.isStreamCutValid(scope, stream, streamCut);
    }

    ScaleResponse scale(String scope, String stream, List<Long> sealed, List<KeyRange> requestedRanges,
                        long timestamp) {
        return scaling.scale(scope, stream, sealed, requestedRanges, timestamp);
    }

    /** Pravega's {@code validateInputRange}; see {@link Scaling#validScaleInput}. */
    static boolean validScaleInput(EpochRecord active, List<Long> sealed, List<KeyRange> ranges) {
        return Scaling.validScaleInput(active, sealed, ranges);
    }

    /** Pravega's {@code checkScale}: is the scale that started from {@code epoch} done? */
    ScaleStatusResponse.ScaleStatus checkScale(String scope, String stream, int epoch) {
        return scaling.checkScale(scope, stream, epoch);
    }

    // ---------------------------------------------------------------- transactions

    /** A created transaction: its id and the segments to write to (ids carry the transaction's epoch). */
    record CreatedTxn(UUID id, List<SegmentRange> segments) {
    }

    CreatedTxn createTransaction(String scope, String stream, long leaseMillis) {
        return transactions.createTransaction(scope, stream, leaseMillis);
    }

    PingTxnStatus.Status pingTransaction(String scope, String stream, UUID txnId, long leaseMillis) {
        return transactions.pingTransaction(scope, stream, txnId, leaseMillis);
    }

    TxnStatus.Status commitTransaction(String scope, String stream, UUID txnId, String writerId, long timestamp) {
        return transactions.commitTransaction(scope, stream, txnId, writerId, timestamp);
    }

    TxnStatus.Status abortTransaction(String scope, String stream, UUID txnId) {
        return transactions.abortTransaction(scope, stream, txnId);
    }

    /**
     * Tries again the background transaction work that failed earlier.
     *
     * @return how many streams were retried
     */
    int retryFailedWork() {
        return transactions.retryFailedWork();
    }

    io.sluice.controller.grpc.v1.TxnState.State transactionState(String scope, String stream, UUID txnId) {
        return transactions.transactionState(scope, stream, txnId);
    }

    /** @return completed transactions, oldest first, with whether each committed */
    Map<UUID, Boolean> completedTransactions(String scope, String stream) {
        return transactions.completedTransactions(scope, stream);
    }

    /** Aborts every open transaction whose lease expired; the segment work happens in the background. */
    int expireLeases() {
        return transactions.expireLeases();
    }

    // ---------------------------------------------------------------- reader groups and subscribers

    CreateReaderGroupResponse createReaderGroup(ReaderGroupConfiguration requested) {
        return readerGroups.createReaderGroup(requested);
    }

    ReaderGroupConfigResponse readerGroupConfig(String scope, String name) {
        return readerGroups.readerGroupConfig(scope, name);
    }

    UpdateReaderGroupResponse updateReaderGroup(ReaderGroupConfiguration requested) {
        return readerGroups.updateReaderGroup(requested);
    }

    /**
     * @param readerGroupId must match the group's id; empty matches any
     */
    DeleteReaderGroupStatus.Status deleteReaderGroup(String scope, String name, String readerGroupId) {
        return readerGroups.deleteReaderGroup(scope, name, readerGroupId);
    }

    SubscribersResponse listSubscribers(String scope, String stream) {
        return readerGroups.listSubscribers(scope, stream);
    }

    UpdateSubscriberStatus.Status updateSubscriberStreamCut(String scope, String stream, String subscriber,
                                                            String readerGroupId, long generation,
                                                            Map<Long, Long> streamCut) {
        return readerGroups.updateSubscriberStreamCut(scope, stream, subscriber, readerGroupId, generation,
                streamCut);
    }

    // ---------------------------------------------------------------- watermarking

    /** @return the periodic watermarking of every stream */
    Watermarks watermarks() {
        return watermarks;
    }

    TimestampResponse.Status noteTimestampFromWriter(String scope, String stream, String writer, long timestamp,
                                                     Map<Long, Long> position) {
        return writerMarks.noteTimestampFromWriter(scope, stream, writer, timestamp, position);
    }

    /** Pravega's {@code compareWriterPositions}; see {@link WriterMarks#positionAdvances}. */
    static boolean positionAdvances(Map<Long, Long> position1, Map<Long, Long> position2) {
        return WriterMarks.positionAdvances(position1, position2);
    }

    RemoveWriterResponse.Status removeWriter(String scope, String stream, String writer) {
        return writerMarks.removeWriter(scope, stream, writer);
    }

    // ---------------------------------------------------------------- key-value tables

    CreateKeyValueTableStatus.Status createKeyValueTable(KeyValueTableConfig requested) {
        return kvts.createKeyValueTable(requested);
    }

    List<SegmentRange> kvtSegments(String scope, String name) {
        return kvts.kvtSegments(scope, name);
    }

    /** @return one page of table names, or null if the scope does not exist */
    Page listKvts(String scope, String token, Predicate<String> filter) {
        return kvts.listKvts(scope, token, filter);
    }

    KeyValueTableConfigResponse kvtConfig(String scope, String name) {
        return kvts.kvtConfig(scope, name);
    }

    DeleteKVTableStatus.Status deleteKeyValueTable(String scope, String name) {
        return kvts.deleteKeyValueTable(scope, name);
    }

    // ---------------------------------------------------------------- recovery

    /**
     * Finishes, in the background, everything the replayed log shows as begun but not done.
     *
     * @return futures of the submitted work
     */
    List<CompletableFuture<?>> resumeUnfinishedWork() {
        return recovery.resumeUnfinishedWork();
    }

    /** One page of a listing: names and the token for the next page (the last name, or the old token if empty). */
    record Page(List<String> names, String token) {
    }
}
