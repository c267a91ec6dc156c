package io.sluice.cli;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;
import io.sluice.connection.ConnectionConfig;
import io.sluice.connection.ConnectionFactory;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.RawClient;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.connection.TlsConfig;
import io.sluice.connection.TlsConnectionFactory;
import io.sluice.controller.ControllerClient;
import io.sluice.controller.ControllerClientConfig;
import io.sluice.errors.SluiceException;
import io.sluice.stream.Segment;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.StreamSegmentInfo;

/**
 * Asks the segment stores for segments' lengths and start offsets ({@code GetStreamSegmentInfo}), finding each
 * segment's store with the controller's {@code getURI}. TLS follows the controller URI's scheme and trust settings.
 * One instance per command; confined to its thread; {@link #close()} closes the connections.
 */
final class SegmentLengths implements AutoCloseable {
    private final ControllerClient controller;
    private final ConnectionPool pool;
    private final RawClient raw;
    private final Map<Segment, Endpoint> endpoints = new HashMap<>();

    /**
     * @param controller where to ask for the segment stores' addresses
     * @param config the controller configuration: TLS and trust store, and {@code operationTimeout} bounds connects
     */
    SegmentLengths(ControllerClient controller, ControllerClientConfig config) {
        this.controller = controller;
        ConnectionConfig connections = ControllerOptions.connections(config);
        TlsConfig tls = ControllerOptions.segmentStoreTls(config);
        ConnectionFactory factory = tls == null ? new TcpConnectionFactory(connections)
                : new TlsConnectionFactory(connections, tls);
        this.pool = new ConnectionPool(factory, 1, ConnectionPool.DEFAULT_MAX_FLOWS_PER_CONNECTION);
        this.raw = new RawClient(pool);
    }

    /**
     * Reads the metadata of each segment, one after the other. Blocks until all answered or {@code deadline}.
     *
     * @param segments the segments
     * @param delegationToken the controller's token for them ("" without auth)
     * @param deadline when to give up
     * @return each segment's info, in the order of {@code segments}
     * @throws SluiceException naming the segment and segment store that failed (the cause says why)
     */
    Map<Segment, StreamSegmentInfo> read(List<Segment> segments, String delegationToken, Deadline deadline) {
        Map<Segment, StreamSegmentInfo> infos = new LinkedHashMap<>();
        for (Segment segment : segments) {
            Endpoint endpoint = endpoints.computeIfAbsent(segment, controller::endpointFor);
            try {
                infos.put(segment, raw.call(endpoint,
                        id -> new GetStreamSegmentInfo(id, segment.qualifiedName(), delegationToken),
                        StreamSegmentInfo.class, deadline));
            } catch (RuntimeException e) {
                throw new SluiceException("cannot read the length of segment " + segment.qualifiedName()
                        + " from the segment store at " + endpoint + ": " + e.getMessage(), e);
            }
        }
        return infos;
    }

    /** Closes the connections. */
    @Override
    public void close() {
        pool.close();
    }
}
