package io.sluice.table;

/**
 * A change to one key of a key-value table, for {@link KeyValueTable#update}: {@link Insert}, {@link Put} or
 * {@link Remove}.
 */
public sealed interface TableModification permits Insert, Put, Remove {
    /** @return the key this modification changes */
    TableKey key();
}
