package io.sluice.client;

import io.sluice.common.Endpoint;
import io.sluice.controller.SegmentEndpointCache;
import io.sluice.segment.SegmentLocator;

/** Finds segment stores through the controller's {@code getURI}, cached. Thread-safe. */
final class ControllerLocator implements SegmentLocator {
    private final SegmentEndpointCache cache;

    ControllerLocator(SegmentEndpointCache cache) {
        this.cache = cache;
    }

    @Override
    public Endpoint endpoint(String segment) {
        return cache.endpointFor(segment);
    }

    @Override
    public void invalidate(String segment) {
        cache.invalidate(io.sluice.stream.Segment.parse(segment));
    }
}
