package io.sluice.admin;

import io.sluice.stream.ReaderGroupConfig;

/**
 * Creates, opens and deletes the reader groups of one scope. Groups are registered with the controller, and their
 * state lives in the stream {@code _RG<name>} of the scope. Thread-safe.
 */
public interface ReaderGroupManager {

    /**
     * Creates a group (or opens it if it exists with this configuration).
     *
     * @return the group
     * @throws io.sluice.errors.NoSuchScopeException if the scope does not exist
     */
    ReaderGroup createReaderGroup(String group, ReaderGroupConfig config);

    /**
     * @return the existing group
     * @throws io.sluice.errors.NoSuchStreamException if there is no such group
     */
    ReaderGroup readerGroup(String group);

    /**
     * Deletes the group and its state.
     *
     * @return false if it did not exist
     */
    boolean deleteReaderGroup(String group);
}
