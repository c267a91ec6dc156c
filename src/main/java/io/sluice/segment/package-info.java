/**
 * Segment-level clients (internal): {@link io.sluice.segment.SegmentWriter} (batched, pipelined, exactly-once
 * appends), segment readers with prefetch, {@link io.sluice.segment.RevisionedSegment} (a segment as a log of
 * updates with conditional appends and a mark) and {@link io.sluice.segment.StateSynchronizer} (shared state with
 * optimistic concurrency on such a log), and metadata and table-segment clients. They know segments and endpoints,
 * not streams: the stream layer above routes events and follows scaling.
 */
package io.sluice.segment;
