package io.sluice.table;

import java.nio.ByteBuffer;
import java.util.Iterator;

/**
 * Builds iterations over a key-value table, as Pravega's {@code KeyValueTableIterator}: set the page size with
 * {@link #maxIterationSize(int)}, pick what to iterate with a {@code for...} method, then ask for
 * {@link Selection#keys()} or {@link Selection#entries()}. Entries are read a page (of at most
 * {@code maxIterationSize}) per request, lazily; within a partition they come ordered by key (unsigned bytes).
 * Iterations over primary-key ranges or prefixes visit every partition, one after another.
 * Entries changed during the iteration may be seen old or new.
 */
public interface KeyValueTableIterator {
    /** Page size unless set. */
    int DEFAULT_MAX_ITERATION_SIZE = 10;

    /**
     * @param size the most entries read per request, 1 or more
     * @return this builder
     * @throws IllegalArgumentException if {@code size} is below 1
     */
    KeyValueTableIterator maxIterationSize(int size);

    /**
     * @param primaryKey a primary key
     * @return every entry with that primary key
     */
    Selection forPrimaryKey(ByteBuffer primaryKey);

    /**
     * @param primaryKey a primary key
     * @param fromSecondaryKey the lowest secondary key (included), {@code null} for the lowest possible
     * @param toSecondaryKey the highest secondary key (included), {@code null} for the highest possible
     * @return the entries with that primary key and a secondary key in the range
     */
    Selection forPrimaryKey(ByteBuffer primaryKey, ByteBuffer fromSecondaryKey, ByteBuffer toSecondaryKey);

    /**
     * @param primaryKeyPrefix a prefix of primary keys, at most as long as a primary key
     * @return every entry whose primary key starts with it
     */
    Selection forPrefix(ByteBuffer primaryKeyPrefix);

    /**
     * @param fromPrimaryKey the lowest primary key (included), {@code null} for the lowest possible
     * @param toPrimaryKey the highest primary key (included), {@code null} for the highest possible
     * @return every entry whose primary key is in the range
     */
    Selection forRange(ByteBuffer fromPrimaryKey, ByteBuffer toPrimaryKey);

    /** What to read of the selected entries. */
    interface Selection {
        /** @return the keys, read lazily */
        Iterator<TableKey> keys();

        /** @return the entries, read lazily */
        Iterator<TableEntry> entries();
    }
}
