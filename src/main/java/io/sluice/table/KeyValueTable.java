package io.sluice.table;

import java.util.List;

/**
 * A key-value table: entries keyed by a {@link TableKey} (primary + optional secondary key), spread over the table's
 * partitions by a hash of the primary key exactly as Pravega's Java client spreads them, and stored under the same
 * key bytes (primary followed by secondary), so either client reads what the other wrote. Get one from
 * {@code SluiceClient.keyValueTable(scope, name)}.
 *
 * <pre>{@code
 * Version v = table.update(new Put(key, value));
 * TableEntry e = table.get(key);                       // null if missing
 * table.update(new Put(key, other, e.version()));      // BadKeyVersionException if someone wrote meanwhile
 * }</pre>
 *
 * <p>Thread-safe; every method blocks for its requests. Keys of the wrong lengths are an
 * {@link IllegalArgumentException}.
 */
public interface KeyValueTable extends AutoCloseable {

    /** @return the table's scope */
    String scope();

    /** @return the table's name */
    String name();

    /** @return the table's configuration (partitions, key lengths) */
    KeyValueTableConfiguration configuration();

    /**
     * Applies one modification.
     *
     * @param modification an {@link Insert}, {@link Put} or {@link Remove}
     * @return the key's new version; {@code null} for a {@link Remove}
     * @throws io.sluice.errors.BadKeyVersionException if its condition fails (the key exists for an Insert, or is at
     *     another version); nothing changes, unless its {@code possiblyApplied()} says an earlier attempt went
     *     unanswered (a lost connection), whose change may be the one the retry met: read the key to know
     * @throws io.sluice.errors.NoSuchKeyException if it names a version and the key does not exist; nothing changes
     *     (with the same exception for a retry: {@code possiblyApplied()})
     */
    Version update(TableModification modification);

    /**
     * Applies several modifications atomically, all or none. They must all have the same primary key (so they are in
     * one partition) and be either all removals or all inserts/puts, as with Pravega's client; no key twice.
     *
     * @param modifications the modifications, at most 256
     * @return the keys' new versions in order ({@code null} elements for removals); empty for no modifications
     * @throws IllegalArgumentException if the primary keys differ, removals are mixed with updates, or a key repeats
     * @throws io.sluice.errors.BadKeyVersionException if any condition fails; nothing changes
     * @throws io.sluice.errors.NoSuchKeyException if any names a version of a missing key; nothing changes
     */
    List<Version> update(List<? extends TableModification> modifications);

    /**
     * @param key the key
     * @return its entry, or {@code null} if it does not exist
     */
    TableEntry get(TableKey key);

    /**
     * @param keys the keys (any primary keys; duplicates are read twice)
     * @return one element per key, in order: its entry or {@code null} if missing (the list allows nulls)
     */
    List<TableEntry> getAll(List<TableKey> keys);

    /**
     * @param key the key
     * @return whether the key exists
     */
    boolean exists(TableKey key);

    /** @return a builder of iterators over this table's keys or entries */
    KeyValueTableIterator iterator();

    /** Releases nothing the client does not own (connections are the client's); present for try-with-resources. */
    @Override
    void close();
}
