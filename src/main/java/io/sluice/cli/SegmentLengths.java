package io.sluice.cli;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.auth.AccessOperation;
import io.sluice.segment.DelegationTokenProvider;
import io.sluice.common.Deadline;
import io.sluice.controller.ControllerClient;
import io.sluice.controller.ControllerClientConfig;
import io.sluice.errors.SluiceException;
import io.sluice.segment.SegmentCalls;
import io.sluice.segment.SegmentInfo;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.SegmentMetadataClient;
import io.sluice.segment.SegmentStores;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;

/**
 * Asks the segment stores for segments' lengths and start offsets ({@code GetStreamSegmentInfo}), finding each
 * segment's store with the controller's {@code getURI}. TLS follows the controller URI's scheme and trust settings.
 * One instance per command; confined to its thread; {@link #close()} closes the connections.
 */
final class SegmentLengths implements AutoCloseable {
    private final ControllerClient controller;
    private final SegmentStores stores;
    private final SegmentLocator locator;
    private final SegmentCalls calls;
    private final Map<ScopedStream, DelegationTokenProvider> tokens = new HashMap<>();

    /**
     * @param controller where to ask for the segment stores' addresses (and for tokens, should one expire)
     * @param config the controller configuration: TLS and trust store, and {@code operationTimeout} bounds connects
     */
    SegmentLengths(ControllerClient controller, ControllerClientConfig config) {
        this.controller = controller;
        this.locator = SegmentLocator.of(controller);
        this.stores = SegmentStores.open(locator, new SegmentStores.Settings(config.controllerUri().tls(),
                config.trustStore().orElse(null), config.validateHostname(),
                ControllerOptions.connectTimeout(config), 1, false, false)); // no writes to await here
        this.calls = stores.calls();
    }

    /**
     * Reads the metadata of each segment, one after the other. Blocks until all answered or {@code deadline}.
     *
     * @param segments the segments
     * @param delegationToken the controller's token for them ("" without auth or when none came with them)
     * @param deadline when to give up
     * @return each segment's info, in the order of {@code segments}
     * @throws SluiceException naming the segment that failed (the cause says why)
     */
    Map<Segment, SegmentInfo> read(List<Segment> segments, String delegationToken, Deadline deadline) {
        Map<Segment, SegmentInfo> infos = new LinkedHashMap<>();
        for (Segment segment : segments) {
            DelegationTokenProvider provider = tokens.computeIfAbsent(segment.scopedStream(), s -> {
                DelegationTokenProvider p = DelegationTokenProvider.fromController(controller, s, AccessOperation.READ);
                p.offer(delegationToken); // "" (no auth) is never fetched again; an expired token is refreshed
                return p;
            });
            try {
                infos.put(segment, new SegmentMetadataClient(calls, segment.qualifiedName(), provider).info(deadline));
            } catch (RuntimeException e) {
                throw new SluiceException("cannot read the length of segment " + segment.qualifiedName()
                        + where(segment) + ": " + e.getMessage(), e);
            }
        }
        return infos;
    }

    /** @return " from the segment store at host:port", or "" if even that is unknown */
    private String where(Segment segment) {
        try {
            return " from the segment store at " + locator.endpoint(segment.qualifiedName());
        } catch (RuntimeException e) {
            return "";
        }
    }

    /** Closes the connections. */
    @Override
    public void close() {
        stores.close();
    }
}
