/**
 * Connections to segment stores (internal). The only package that touches sockets.
 *
 * <p>A {@link io.sluice.connection.Connection} carries many {@link io.sluice.connection.Flow flows}: each flow
 * owns the high 32 bits of its request ids, and the connection's reader thread routes every reply into the
 * queue of the flow whose id it carries. Writes from any number of threads go through one writer thread per
 * connection, which batches whatever has queued into one socket write. {@link io.sluice.connection.ConnectionPool}
 * shares a bounded number of connections per endpoint; {@link io.sluice.connection.RawClient} is request/reply on
 * top of it.
 */
package io.sluice.connection;
