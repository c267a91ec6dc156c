/**
 * Durable storage of the embedded server (internal): versioned write logs and snapshots per resource, in the
 * serverless-storage design of FeatureBase DAX, plus chunk files for bulk data.
 *
 * <p>A resource (bucket, key) — for the server, a segment container — is its latest snapshot plus the write logs
 * after it. {@link io.sluice.storage.ServerlessStorage} holds one owner's view of a resource and enforces the call
 * order (load snapshot, load log, lock, load log again, append; increment, snapshot; unlock) on top of the two
 * services, {@link io.sluice.storage.WriteLogService} and {@link io.sluice.storage.SnapshotService}. Bulk data that
 * a snapshot covers lives in a {@link io.sluice.storage.ChunkStore}, so snapshots stay small.
 *
 * <p>{@link io.sluice.storage.LocalStorage} keeps everything under a data directory: checksummed log records,
 * fsync before an append is acknowledged (relaxed by {@link io.sluice.storage.Durability#OS_BUFFERED}), group
 * commit, torn-tail truncation on recovery, and an OS advisory lock per resource that excludes other processes.
 * {@link io.sluice.storage.InMemoryStorage} has the same contract in memory. See {@code docs/storage.md}.
 */
package io.sluice.storage;
