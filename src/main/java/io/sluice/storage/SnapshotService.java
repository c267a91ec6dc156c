package io.sluice.storage;

import java.io.InputStream;
import java.util.List;

/**
 * Versioned snapshots of resources: each (bucket, key, version) holds one immutable blob, written whole or not at
 * all. Modelled on FeatureBase DAX's {@code SnapshotService}; names follow the rules of
 * {@link WriteLogService}. Thread-safe; every method may block on I/O.
 */
public interface SnapshotService {

    /**
     * Opens snapshot {@code version} for reading, after checking its integrity.
     *
     * @return the snapshot's bytes; the caller closes it
     * @throws CorruptedDataException if its checksum or format check fails
     * @throws StorageException if it does not exist or cannot be read
     */
    InputStream read(String bucket, String key, long version);

    /**
     * Stores snapshot {@code version} with the bytes of {@code data}, read to its end (and not closed). Replaces
     * an existing snapshot of that version atomically.
     *
     * @throws StorageException if reading {@code data} or writing fails; nothing is stored then
     */
    void write(String bucket, String key, long version, InputStream data);

    /**
     * Stores snapshot {@code version} with whatever {@code writer} writes.
     *
     * @throws StorageException if {@code writer} or writing fails; nothing is stored then
     */
    void writeTo(String bucket, String key, long version, SnapshotWriter writer);

    /**
     * Lists the resource's snapshot versions.
     *
     * @return the versions in ascending order; empty if there are none
     * @throws StorageException if listing fails
     */
    List<Long> list(String bucket, String key);

    /**
     * Deletes snapshot {@code version}; does nothing if it does not exist.
     *
     * @throws StorageException if the deletion fails
     */
    void delete(String bucket, String key, long version);
}
