package io.sluice.admin;

import io.sluice.stream.ReaderGroupConfig;

/**
 * Creates, opens and deletes the reader groups of one scope. Groups are registered with the controller, and their
 * state lives in the stream {@code _RG<name>} of the scope, in Sluice's own format (Pravega's Java client cannot
 * share a Sluice group, nor Sluice one of the Java client's). Thread-safe; every method blocks for the controller and
 * segment-store calls it needs. Get one from {@code SluiceClient.readerGroupManager(scope)}.
 */
public interface ReaderGroupManager {

    /**
     * Creates a group and writes its initial state: every segment of the starting cuts ({@link
     * io.sluice.stream.StreamCut#UNBOUNDED}: the stream's head) waits for a reader. Opens the group instead if it
     * exists with the same configuration.
     *
     * @param group the group's name
     * @param config what it reads
     * @return the group (close it when done; the group itself stays)
     * @throws io.sluice.errors.NoSuchScopeException if the scope does not exist
     * @throws io.sluice.errors.NoSuchStreamException if a stream of the configuration does not exist
     * @throws io.sluice.errors.AlreadyExistsException if the group exists with another configuration
     * @throws IllegalArgumentException if the name is not a valid group name, or a starting cut is not a valid cut
     */
    ReaderGroup createReaderGroup(String group, ReaderGroupConfig config);

    /**
     * @param group the group's name
     * @return the existing group
     * @throws io.sluice.errors.NoSuchStreamException if there is no such group
     * @throws io.sluice.errors.ProtocolException if the group's state is not in Sluice's format
     */
    ReaderGroup readerGroup(String group);

    /**
     * Deletes the group and its state (readers still in it fail on their next update).
     *
     * @param group the group's name
     * @return false if it did not exist
     */
    boolean deleteReaderGroup(String group);
}
