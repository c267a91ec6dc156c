package io.sluice.admin;

import java.util.List;

import io.sluice.stream.EventPointer;
import io.sluice.stream.KeyRange;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializer;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.StreamCut;
import io.sluice.stream.TransactionInfo;

/**
 * Creates, inspects, changes and deletes scopes and streams. Every method blocks until the controller has answered
 * (retrying transient failures within the client's policy). Thread-safe.
 */
public interface StreamManager {

    /** @return false if the scope already existed */
    boolean createScope(String scope);

    /** @return whether the scope exists */
    boolean scopeExists(String scope);

    /** @return every scope's name */
    List<String> listScopes();

    /**
     * Deletes an empty scope.
     *
     * @return false if it did not exist
     * @throws io.sluice.errors.PreconditionFailedException if it still holds streams, tables or reader groups
     */
    boolean deleteScope(String scope);

    /**
     * Deletes a scope with everything in it (streams are sealed and deleted, reader groups and tables deleted).
     *
     * @return false if it did not exist (asked first: the controller itself reports success for a missing scope)
     */
    boolean deleteScopeRecursive(String scope);

    /**
     * @return false if the stream already existed (its configuration is not changed)
     * @throws io.sluice.errors.NoSuchScopeException if the scope does not exist
     */
    boolean createStream(String scope, String stream, StreamConfiguration configuration);

    /** Changes a stream's configuration (scaling and retention policies, tags). */
    void updateStream(String scope, String stream, StreamConfiguration configuration);

    /** @return whether the stream exists */
    boolean streamExists(String scope, String stream);

    /** @return the stream's configuration */
    StreamConfiguration streamConfiguration(String scope, String stream);

    /** @return the names of the streams of a scope (internal {@code _}-streams left out) */
    List<String> listStreams(String scope);

    /** @return the names of the streams of a scope that carry {@code tag} */
    List<String> listStreams(String scope, String tag);

    /** @return the stream's configuration, head and tail cuts */
    StreamInfo streamInfo(String scope, String stream);

    /** @return the stream's current segments with their key ranges */
    List<SegmentWithRange> currentSegments(String scope, String stream);

    /**
     * Reads one event by its pointer ({@link io.sluice.stream.EventRead#pointer()}), without a reader or a reader
     * group. Blocks for the read; follows a moved segment and refreshes an expired token.
     *
     * @param pointer where the event is
     * @param serializer turns its bytes into the event
     * @return the event
     * @throws io.sluice.errors.NoSuchSegmentException if its segment is gone
     * @throws io.sluice.errors.SegmentTruncatedException if it was truncated away
     * @throws IllegalArgumentException if there is no event at the pointer
     */
    <T> T fetchEvent(EventPointer pointer, Serializer<T> serializer);

    /**
     * The stream's completed transactions (committed or aborted), as the controller keeps them. The real Pravega
     * 0.13 lists only those of its first batch of completed transactions (its controller reads batch 0), so on a
     * cluster that has run a while it may list none; the embedded server lists the stream's recent ones.
     *
     * @throws io.sluice.errors.NoSuchStreamException if the stream does not exist
     */
    List<TransactionInfo> listCompletedTransactions(String scope, String stream);

    /** Seals the stream: no more writes; readers reach its end. */
    void sealStream(String scope, String stream);

    /**
     * Deletes a sealed stream.
     *
     * @return false if it did not exist
     * @throws io.sluice.errors.PreconditionFailedException if it is not sealed
     */
    boolean deleteStream(String scope, String stream);

    /** Deletes the stream's data before {@code cut} (readers can no longer read it). */
    void truncateStream(String scope, String stream, StreamCut cut);

    /**
     * Scales the stream by hand: seals {@code sealed} and replaces them by new segments covering {@code newRanges}
     * (which must cover exactly the sealed segments' key ranges). Blocks until the scale is done.
     *
     * @return the new segments
     */
    List<SegmentWithRange> scaleStream(String scope, String stream, List<Segment> sealed, List<KeyRange> newRanges);
}
