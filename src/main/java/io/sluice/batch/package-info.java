/**
 * Batch reads: the segments of a stream between two stream cuts, each with its start and end offsets
 * ({@link io.sluice.batch.SegmentRange}), read on their own and in any order or in parallel
 * ({@link io.sluice.batch.BatchClient#readSegment}), without a reader group. Get a client with
 * {@link io.sluice.client.SluiceClient#batchClient()}.
 */
package io.sluice.batch;
