package io.sluice.connection;

import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;

/**
 * Opens connections to segment stores. Implementations differ only in how they make the socket
 * ({@link TcpConnectionFactory}, {@link TlsConnectionFactory}); everything above works with any of them.
 */
public interface ConnectionFactory {

    /**
     * Opens a connection: connects, sends {@code Hello(17, 5)} and waits for the server's Hello. Blocks until the
     * connection is ready or {@code deadline} (capped by the configured connect timeout) passes.
     *
     * @param endpoint the segment store
     * @param deadline when to give up
     * @return an open connection
     * @throws io.sluice.errors.ConnectionFailedException if the server cannot be reached, does not answer Hello in
     *     time, or sends something that is not the protocol (retriable)
     * @throws io.sluice.errors.IncompatibleServerException if the server's protocol versions do not overlap ours
     */
    Connection connect(Endpoint endpoint, Deadline deadline);
}
