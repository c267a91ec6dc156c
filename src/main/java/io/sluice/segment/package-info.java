/**
 * Segment-level clients (internal): {@link io.sluice.segment.SegmentWriter} (batched, pipelined, exactly-once
 * appends), segment readers with prefetch, and metadata and table-segment clients. They know segments and
 * endpoints, not streams: the stream layer above routes events and follows scaling.
 */
package io.sluice.segment;
