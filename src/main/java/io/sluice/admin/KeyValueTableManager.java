package io.sluice.admin;

import java.util.List;

import io.sluice.table.KeyValueTableConfiguration;

/**
 * Creates, lists and deletes key-value tables. Get one from {@code SluiceClient.keyValueTableManager()}; it shares
 * the client's controller connection. Thread-safe; every method blocks for its controller call.
 */
public interface KeyValueTableManager {

    /**
     * Creates a table in an existing scope.
     *
     * @param scope the scope
     * @param name the table's name
     * @param config its partitions and key lengths
     * @return true if created; false if it exists already with the same configuration
     * @throws io.sluice.errors.AlreadyExistsException if it exists with another configuration
     * @throws io.sluice.errors.NoSuchScopeException if the scope does not exist
     */
    boolean createKeyValueTable(String scope, String name, KeyValueTableConfiguration config);

    /**
     * Deletes a table and its entries.
     *
     * @return true if deleted, false if there was no such table
     */
    boolean deleteKeyValueTable(String scope, String name);

    /**
     * @param scope the scope
     * @return the names of its tables
     * @throws io.sluice.errors.NoSuchScopeException if the scope does not exist
     */
    List<String> listKeyValueTables(String scope);

    /**
     * @return the table's configuration
     * @throws io.sluice.errors.NoSuchStreamException if there is no such table
     */
    KeyValueTableConfiguration getConfiguration(String scope, String name);
}
