/**
 * Segment-level clients (internal): {@link io.sluice.segment.SegmentWriter} (batched, pipelined, exactly-once
 * appends), segment readers with prefetch, {@link io.sluice.segment.RevisionedSegment} (a segment as a log of
 * updates with conditional appends and a mark) and {@link io.sluice.segment.StateSynchronizer} (shared state with
 * optimistic concurrency on such a log), the metadata client, and {@link io.sluice.segment.TableSegmentClient}
 * (a table segment's versioned keys, with iteration and a {@link io.sluice.segment.TableSegmentDeltaReader} that
 * follows its changes), and {@link io.sluice.segment.WatermarkFollower} (a stream's {@code _MARK} watermarks against
 * a reader group's position, for its time window). They know segments and endpoints, not streams: the stream layer
 * above routes events and follows scaling.
 */
package io.sluice.segment;
