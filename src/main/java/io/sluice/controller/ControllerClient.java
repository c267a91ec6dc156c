package io.sluice.controller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;

import io.sluice.auth.AccessOperation;
import io.sluice.common.Endpoint;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.StreamCut;
import io.sluice.stream.TransactionInfo;
import io.sluice.stream.TxnState;
import io.sluice.table.KeyValueTableConfiguration;

/**
 * The Pravega controller, as the rest of the client sees it: every RPC of the controller API
 * ({@code io.pravega.controller.stream.api.grpc.v1.ControllerService} in {@code proto/controller.proto}; what the
 * client relies on: docs/controller.md §5) as a blocking method.
 *
 * <h2>Contract of every method</h2>
 * <ul>
 *   <li><b>Blocking.</b> Each method runs on the caller's thread (meant to be a virtual thread) and returns when the
 *       controller has answered, after retrying transient failures, or when the operation's deadline has passed.
 *       Methods returning an {@link Iterator} block in {@code hasNext()} when they fetch the next page.</li>
 *   <li><b>Thread-safe.</b> Any number of threads may call concurrently.</li>
 *   <li><b>Results as in Pravega's Java client.</b> Create methods return {@code false} if the object already
 *       existed, delete methods return {@code false} if it did not exist; other outcomes the controller reports
 *       are exceptions.</li>
 *   <li><b>Exceptions</b> (all unchecked):
 *     <ul>
 *       <li>{@link io.sluice.errors.NoSuchScopeException} "scope 'x' does not exist",
 *           {@link io.sluice.errors.NoSuchStreamException} for a missing stream, reader group or key-value
 *           table;</li>
 *       <li>{@link io.sluice.errors.PreconditionFailedException} when the object is in the wrong state (scope not
 *           empty, stream not sealed or already sealed, reader group generation mismatch);</li>
 *       <li>{@link io.sluice.errors.TransactionFailedException} for transactions that are gone or failed;</li>
 *       <li>{@link IllegalArgumentException} for names or values the client or controller rejects;</li>
 *       <li>{@link io.sluice.errors.AuthenticationException} / {@link io.sluice.errors.AuthorizationException} when
 *           the controller rejects the credentials or the operation;</li>
 *       <li>{@link io.sluice.errors.ControllerFailureException} when the controller reports a failure or an
 *           unknown status;</li>
 *       <li>{@link io.sluice.errors.RetriesExhaustedException} (cause: the last
 *           {@link io.sluice.errors.RetriableException}, e.g. {@link io.sluice.errors.ConnectionFailedException} or
 *           {@link io.sluice.errors.DeadlineExceededException}) when transient failures outlast the retry policy or
 *           the operation deadline;</li>
 *       <li>{@link io.sluice.errors.IncompatibleServerException} when the controller does not implement the
 *           RPC;</li>
 *       <li>{@link io.sluice.errors.StreamingInterruptedException} when the calling thread is interrupted (the
 *           interrupt flag stays set);</li>
 *       <li>{@link IllegalStateException} once the client is closed.</li>
 *     </ul>
 *   </li>
 * </ul>
 */
public interface ControllerClient extends AutoCloseable {

    // ---- scopes ----

    /**
     * RPC {@code createScope}.
     *
     * @param scope a user scope name ({@link io.sluice.stream.Names#validateUserScope(String)})
     * @return true if created, false if it already existed
     */
    boolean createScope(String scope);

    /**
     * RPC {@code checkScopeExists}.
     *
     * @param scope the scope
     * @return true if the scope exists
     */
    boolean scopeExists(String scope);

    /**
     * RPC {@code listScopes}, lazily: each page is fetched when the previous one is used up; iteration ends at the
     * first empty page.
     *
     * @return an iterator over all scope names; not thread-safe
     */
    Iterator<String> scopeIterator();

    /**
     * All pages of RPC {@code listScopes}.
     *
     * @return all scope names
     */
    default List<String> listScopes() {
        return drain(scopeIterator());
    }

    /**
     * RPC {@code deleteScope}: deletes an empty scope.
     *
     * @param scope the scope
     * @return true if deleted, false if it did not exist
     * @throws io.sluice.errors.PreconditionFailedException if the scope still holds streams, reader groups or tables
     */
    boolean deleteScope(String scope);

    /**
     * RPC {@code deleteScopeRecursive}: seals and deletes every stream, reader group and table in the scope, then
     * the scope.
     *
     * @param scope the scope
     * @return true if the controller answered SUCCESS — which Pravega 0.13's controller (and Sluice's) also answers
     *     for a scope that does not exist; false only for SCOPE_NOT_FOUND, which they never send. Ask
     *     {@link #scopeExists} first to tell the two apart.
     */
    boolean deleteScopeRecursive(String scope);

    // ---- streams ----

    /**
     * RPC {@code createStream}.
     *
     * @param stream the stream; its name must be a user stream name
     * @param config the configuration
     * @return true if created, false if it already existed
     * @throws io.sluice.errors.NoSuchScopeException if the scope does not exist
     */
    boolean createStream(ScopedStream stream, StreamConfiguration config);

    /**
     * RPC {@code updateStream}: replaces the configuration (Pravega's returns an always-true boolean; this returns
     * nothing).
     *
     * @param stream the stream
     * @param config the new configuration
     * @throws io.sluice.errors.PreconditionFailedException if the stream is sealed
     */
    void updateStream(ScopedStream stream, StreamConfiguration config);

    /**
     * RPC {@code getStreamConfiguration}.
     *
     * @param stream the stream
     * @return its configuration
     */
    StreamConfiguration streamConfiguration(ScopedStream stream);

    /**
     * RPC {@code checkStreamExists}.
     *
     * @param stream the stream
     * @return true if it exists
     */
    boolean streamExists(ScopedStream stream);

    /**
     * RPC {@code listStreamsInScope}, lazily page by page. Internal streams ({@code _RG…}, {@code _MARK…}) are
     * included, as the controller sends them.
     *
     * @param scope the scope
     * @return an iterator over the scope's streams; not thread-safe; {@code hasNext()} throws
     *     {@link io.sluice.errors.NoSuchScopeException} if the scope does not exist
     */
    Iterator<ScopedStream> streamIterator(String scope);

    /**
     * All pages of RPC {@code listStreamsInScope}.
     *
     * @param scope the scope
     * @return the scope's streams
     */
    default List<ScopedStream> listStreams(String scope) {
        return drain(streamIterator(scope));
    }

    /**
     * RPC {@code listStreamsInScopeForTag}, lazily page by page.
     *
     * @param scope the scope
     * @param tag the tag
     * @return an iterator over the streams carrying {@code tag}; not thread-safe
     */
    Iterator<ScopedStream> streamIterator(String scope, String tag);

    /**
     * All pages of RPC {@code listStreamsInScopeForTag}.
     *
     * @param scope the scope
     * @param tag the tag
     * @return the streams carrying {@code tag}
     */
    default List<ScopedStream> listStreams(String scope, String tag) {
        return drain(streamIterator(scope, tag));
    }

    /**
     * RPC {@code sealStream}: no more writes; required before {@link #deleteStream(ScopedStream)}.
     *
     * @param stream the stream
     */
    void sealStream(ScopedStream stream);

    /**
     * RPC {@code deleteStream}.
     *
     * @param stream the stream, sealed
     * @return true if deleted, false if it did not exist
     * @throws io.sluice.errors.PreconditionFailedException if the stream is not sealed
     */
    boolean deleteStream(ScopedStream stream);

    /**
     * RPC {@code truncateStream}: deletes the data before {@code cut}.
     *
     * @param stream the stream
     * @param cut a bounded cut of {@code stream}
     * @throws io.sluice.errors.PreconditionFailedException if the stream is sealed
     */
    void truncateStream(ScopedStream stream, StreamCut cut);

    // ---- segments ----

    /**
     * RPC {@code getCurrentSegments}: the open segments with their key ranges (what a writer routes to).
     *
     * @param stream the stream
     * @return the segments and the delegation token for them
     */
    StreamSegments currentSegments(ScopedStream stream);

    /**
     * RPC {@code getSegments}: the segments and offsets at a point in time.
     *
     * @param stream the stream
     * @param timestampMillis milliseconds since the epoch; 0 for the head of the stream
     * @return the cut at that time
     */
    StreamCut segmentsAtTime(ScopedStream stream, long timestampMillis);

    /**
     * The head of the stream: {@link #segmentsAtTime(ScopedStream, long)} at time 0.
     *
     * @param stream the stream
     * @return the stream cut at its head
     */
    default StreamCut headStreamCut(ScopedStream stream) {
        return segmentsAtTime(stream, 0);
    }

    /**
     * RPC {@code getSegmentsImmediatelyFollowing}: what replaced a sealed segment.
     *
     * @param segment a segment
     * @return its successors with their predecessors; empty if the segment is not sealed
     */
    SegmentSuccessors successors(Segment segment);

    /**
     * RPC {@code getSegmentsBetween}: every segment between two cuts (batch reads).
     *
     * @param stream the stream
     * @param from the start ({@link StreamCut#UNBOUNDED}: the head)
     * @param to the end ({@link StreamCut#UNBOUNDED}: the tail)
     * @return the segments and the delegation token for them
     * @throws IllegalArgumentException if a cut belongs to another stream
     */
    SegmentSet segmentsBetween(ScopedStream stream, StreamCut from, StreamCut to);

    /**
     * RPC {@code getEpochSegments}.
     *
     * @param stream the stream
     * @param epoch the epoch, from 0
     * @return the segments of that epoch with key ranges
     */
    StreamSegments epochSegments(ScopedStream stream, int epoch);

    /**
     * RPC {@code getURI}: the segment store that serves {@code segment}. Uncached; see
     * {@link SegmentEndpointCache}.
     *
     * @param segment the segment (transaction segments are served with their parent)
     * @return the segment store's address
     */
    Endpoint endpointFor(Segment segment);

    /**
     * RPC {@code isSegmentValid}.
     *
     * @param segment the segment
     * @return true if the segment is open
     */
    boolean isSegmentValid(Segment segment);

    /**
     * RPC {@code isStreamCutValid}.
     *
     * @param stream the stream
     * @param cut a cut of {@code stream}
     * @return true if the cut covers the key space with consistent segments
     */
    boolean isStreamCutValid(ScopedStream stream, StreamCut cut);

    // ---- scaling ----

    /**
     * RPC {@code scale}: starts a manual scale that seals {@code sealed} and creates segments for
     * {@code newRanges}. Poll {@link #checkScale(ScopedStream, int)} with the returned epoch to see it finish.
     *
     * @param stream the stream
     * @param sealed the segments to seal, of {@code stream}
     * @param newRanges key ranges of the new segments; together they must cover exactly the sealed segments' keys
     * @return whether the scale started, and its epoch and new segments
     */
    ScaleResult scale(ScopedStream stream, List<Segment> sealed, List<KeyRange> newRanges);

    /**
     * RPC {@code checkScale}.
     *
     * @param stream the stream
     * @param epoch the epoch {@link #scale} returned (the epoch being scaled out of, not the new one)
     * @return true once the scale is complete (the active epoch is past {@code epoch}), false while it is in progress
     * @throws IllegalArgumentException if {@code epoch} is later than the stream's active epoch
     */
    boolean checkScale(ScopedStream stream, int epoch);

    // ---- transactions ----

    /**
     * RPC {@code createTransaction}.
     *
     * @param stream the stream
     * @param lease how long the transaction stays open without a ping (millisecond precision)
     * @return the transaction id and the segments to write to
     */
    TxnSegments createTransaction(ScopedStream stream, Duration lease);

    /**
     * RPC {@code pingTransaction}: extends the lease.
     *
     * @param stream the stream
     * @param txnId the transaction
     * @param lease the new lease
     * @return {@link TxnState#OPEN}, or {@link TxnState#COMMITTED} / {@link TxnState#ABORTED} if it already ended
     * @throws io.sluice.errors.TransactionFailedException if the lease is too large, the transaction exceeded its
     *     maximum execution time or is unknown
     */
    TxnState pingTransaction(ScopedStream stream, UUID txnId, Duration lease);

    /**
     * RPC {@code commitTransaction}. The controller commits asynchronously: poll
     * {@link #transactionState(ScopedStream, UUID)} for {@link TxnState#COMMITTED}.
     *
     * @param stream the stream
     * @param txnId the transaction
     * @param writerId the writer that owns the transaction
     * @param timestamp the writer's time for watermarking, if it notes time ({@code Long.MIN_VALUE} is sent when
     *     absent, as Pravega's Java client does)
     * @throws io.sluice.errors.TransactionFailedException if the transaction was already committed or aborted
     */
    void commitTransaction(ScopedStream stream, UUID txnId, String writerId, OptionalLong timestamp);

    /**
     * RPC {@code abortTransaction}.
     *
     * @param stream the stream
     * @param txnId the transaction
     * @throws io.sluice.errors.TransactionFailedException if the transaction was already committed or aborted
     */
    void abortTransaction(ScopedStream stream, UUID txnId);

    /**
     * RPC {@code checkTransactionState}.
     *
     * @param stream the stream
     * @param txnId the transaction
     * @return its state
     * @throws io.sluice.errors.TransactionFailedException if the controller does not know the transaction
     */
    TxnState transactionState(ScopedStream stream, UUID txnId);

    /**
     * RPC {@code listCompletedTransactions}.
     *
     * @param stream the stream
     * @return the recently completed transactions (committed or aborted)
     */
    List<TransactionInfo> listCompletedTransactions(ScopedStream stream);

    // ---- reader groups and subscribers ----

    /**
     * RPC {@code createReaderGroup}. Idempotent on the controller: for an existing group it returns the stored
     * configuration.
     *
     * @param scope the scope
     * @param group a reader group name
     * @param config the configuration
     * @return the configuration with the id and generation the controller assigned
     * @throws io.sluice.errors.NoSuchScopeException if the scope does not exist
     */
    ReaderGroupConfig createReaderGroup(String scope, String group, ReaderGroupConfig config);

    /**
     * RPC {@code getReaderGroupConfig}.
     *
     * @param scope the scope
     * @param group the reader group
     * @return its configuration
     * @throws io.sluice.errors.NoSuchStreamException if the group does not exist
     */
    ReaderGroupConfig readerGroupConfig(String scope, String group);

    /**
     * RPC {@code updateReaderGroup}.
     *
     * @param scope the scope
     * @param group the reader group
     * @param config the new configuration, carrying the current generation and id
     * @return the new generation
     * @throws io.sluice.errors.NoSuchStreamException if the group does not exist
     * @throws io.sluice.errors.PreconditionFailedException if the controller rejects the configuration (e.g. its
     *     generation is outdated)
     */
    long updateReaderGroup(String scope, String group, ReaderGroupConfig config);

    /**
     * RPC {@code deleteReaderGroup}.
     *
     * @param scope the scope
     * @param group the reader group
     * @param readerGroupId its id
     * @return true if deleted, false if it did not exist (Pravega's Java client throws instead)
     */
    boolean deleteReaderGroup(String scope, String group, UUID readerGroupId);

    /**
     * RPC {@code listSubscribers}: reader groups whose position holds back retention.
     *
     * @param stream the stream
     * @return the subscribers' scoped reader group names
     */
    List<String> listSubscribers(ScopedStream stream);

    /**
     * RPC {@code updateSubscriberStreamCut}: how far a subscribed reader group has read.
     *
     * @param stream the stream
     * @param subscriber the subscriber (scoped reader group name)
     * @param readerGroupId the reader group's id
     * @param generation the reader group's configuration generation
     * @param cut the position, a cut of {@code stream}
     * @throws io.sluice.errors.NoSuchStreamException if the stream or subscriber does not exist
     * @throws io.sluice.errors.PreconditionFailedException on a generation mismatch
     * @throws IllegalArgumentException if the controller finds the cut invalid
     */
    void updateSubscriberStreamCut(ScopedStream stream, String subscriber, UUID readerGroupId, long generation,
                                   StreamCut cut);

    // ---- watermarks ----

    /**
     * RPC {@code noteTimestampFromWriter}: a writer's time and position, for watermarks.
     *
     * @param writerId the writer
     * @param stream the stream
     * @param timestamp the writer's time
     * @param position the writer's position, a bounded cut of {@code stream}
     * @throws IllegalArgumentException if the controller rejects the time or position
     */
    void noteTimestampFromWriter(String writerId, ScopedStream stream, long timestamp, StreamCut position);

    /**
     * RPC {@code removeWriter}: the writer is gone and no longer holds back watermarks.
     *
     * @param writerId the writer
     * @param stream the stream
     * @return true if removed, false if the controller did not know the writer (Pravega's Java client throws)
     */
    boolean removeWriter(String writerId, ScopedStream stream);

    // ---- key-value tables ----

    /**
     * RPC {@code createKeyValueTable}.
     *
     * @param scope the scope
     * @param table a key-value table name
     * @param config the configuration
     * @return true if created, false if it already existed
     * @throws io.sluice.errors.NoSuchScopeException if the scope does not exist
     */
    boolean createKeyValueTable(String scope, String table, KeyValueTableConfiguration config);

    /**
     * RPC {@code getCurrentSegmentsKeyValueTable}: the table's partitions. The segments' stream part is the table
     * name; the segment-store name of a partition is {@code scope/<table>_kvtable/N.#epoch.E}.
     *
     * @param scope the scope
     * @param table the table
     * @return the partitions with key ranges and a delegation token
     */
    StreamSegments keyValueTableSegments(String scope, String table);

    /**
     * RPC {@code listKeyValueTablesInScope}, lazily page by page.
     *
     * @param scope the scope
     * @return an iterator over the table names; not thread-safe
     */
    Iterator<String> keyValueTableIterator(String scope);

    /**
     * All pages of RPC {@code listKeyValueTablesInScope}.
     *
     * @param scope the scope
     * @return the table names
     */
    default List<String> listKeyValueTables(String scope) {
        return drain(keyValueTableIterator(scope));
    }

    /**
     * RPC {@code getKeyValueTableConfiguration}.
     *
     * @param scope the scope
     * @param table the table
     * @return its configuration
     * @throws io.sluice.errors.NoSuchStreamException if the table does not exist
     */
    KeyValueTableConfiguration keyValueTableConfiguration(String scope, String table);

    /**
     * RPC {@code deleteKeyValueTable}.
     *
     * @param scope the scope
     * @param table the table
     * @return true if deleted, false if it did not exist
     */
    boolean deleteKeyValueTable(String scope, String table);

    // ---- auth and discovery ----

    /**
     * RPC {@code getDelegationToken}: a token the segment store accepts for {@code stream}.
     *
     * @param stream the stream
     * @param operation what the token is for
     * @return the token (a JWT); empty when the controller runs without auth
     */
    String delegationToken(ScopedStream stream, AccessOperation operation);

    /**
     * Whether this controller has answered a request for a delegation token ({@code getDelegationToken}, or the token
     * that comes with {@code getCurrentSegments}) with the empty token. A Pravega controller does exactly when it runs
     * without auth, and then for every stream, so a client that knows it need not ask again for another stream's.
     * Never blocks.
     *
     * @return true once an empty token was seen; false before (and always for a controller that runs with auth)
     */
    default boolean grantsEmptyTokens() {
        return false;
    }

    /**
     * RPC {@code getControllerServerList}.
     *
     * @return the controller instances
     */
    List<Endpoint> controllerServerList();

    /**
     * Releases the connections. Calls in progress fail; later calls throw {@link IllegalStateException}.
     * Idempotent; blocks briefly while the channel shuts down.
     */
    @Override
    void close();

    private static <T> List<T> drain(Iterator<T> iterator) {
        List<T> all = new ArrayList<>();
        iterator.forEachRemaining(all::add);
        return all;
    }
}
