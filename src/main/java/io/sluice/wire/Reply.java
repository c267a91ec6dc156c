package io.sluice.wire;

/**
 * A command a segment store sends back. Failures are the {@link ErrorReply} branch, so a handler can match
 * them as a group.
 */
public sealed interface Reply extends WireCommand permits
        Hello, KeepAlive,
        AppendSetup, DataAppended, ConditionalCheckFailed, SegmentRead, StreamSegmentInfo, SegmentCreated,
        SegmentSealed, SegmentDeleted, SegmentPolicyUpdated, SegmentAttribute, SegmentAttributeUpdated,
        SegmentTruncated, OffsetLocated, SegmentsMerged, SegmentsBatchMerged, StorageFlushed, StorageChunksListed,
        TableSegmentInfo, TableEntriesUpdated, TableKeysRemoved, TableRead, TableKeysRead, TableEntriesRead,
        TableEntriesDeltaRead, ErrorReply {
}
