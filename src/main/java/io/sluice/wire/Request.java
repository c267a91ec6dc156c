package io.sluice.wire;

/**
 * A command a client sends to a segment store. {@link Hello} and {@link KeepAlive} travel both ways and are
 * also {@link Reply replies}; {@link Padding} and {@link PartialEvent} only occur inside an append stream.
 */
public sealed interface Request extends WireCommand permits
        Hello, KeepAlive, Padding, PartialEvent,
        SetupAppend, AppendBlock, AppendBlockEnd, ConditionalAppend, ConditionalBlockEnd,
        ReadSegment, GetStreamSegmentInfo, CreateSegment, SealSegment, DeleteSegment, UpdateSegmentPolicy,
        GetSegmentAttribute, UpdateSegmentAttribute, TruncateSegment, CreateTransientSegment, LocateOffset,
        MergeSegments, MergeSegmentsBatch, FlushToStorage, ListStorageChunks,
        GetTableSegmentInfo, CreateTableSegment, DeleteTableSegment, UpdateTableEntries, RemoveTableKeys,
        ReadTable, ReadTableKeys, ReadTableEntries, ReadTableEntriesDelta {
}
