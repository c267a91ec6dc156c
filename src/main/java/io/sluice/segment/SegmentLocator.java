package io.sluice.segment;

import io.sluice.common.Endpoint;
import io.sluice.controller.ControllerClient;
import io.sluice.controller.SegmentEndpointCache;
import io.sluice.stream.Segment;

/**
 * Where a segment lives. Implemented over the controller's {@code getURI} with a cache. Thread-safe.
 */
public interface SegmentLocator {

    /**
     * @param segment a qualified segment name
     * @return the segment store that serves it (may ask the controller, blocking the caller)
     */
    Endpoint endpoint(String segment);

    /** Forgets a cached endpoint after the segment store answered WrongHost. */
    void invalidate(String segment);

    /**
     * Forgets the cached endpoint of {@code segment} if it is still {@code stale}, the segment store that answered
     * WrongHost: an answer another thread fetched meanwhile is kept. By default forgets it in any case.
     */
    default void invalidate(String segment, Endpoint stale) {
        invalidate(segment);
    }

    /**
     * @param controller the controller to ask ({@code getURI})
     * @return a locator that asks {@code controller} and caches its answers ({@link SegmentEndpointCache})
     */
    static SegmentLocator of(ControllerClient controller) {
        SegmentEndpointCache cache = new SegmentEndpointCache(controller);
        return new SegmentLocator() {
            @Override
            public Endpoint endpoint(String segment) {
                return cache.endpointFor(segment);
            }

            @Override
            public void invalidate(String segment) {
                cache.invalidate(Segment.parse(segment));
            }

            @Override
            public void invalidate(String segment, Endpoint stale) {
                cache.invalidate(Segment.parse(segment), stale);
            }
        };
    }

    /** @return a locator that always answers {@code endpoint} (tests, single-node servers) */
    static SegmentLocator fixed(Endpoint endpoint) {
        return new SegmentLocator() {
            @Override
            public Endpoint endpoint(String segment) {
                return endpoint;
            }

            @Override
            public void invalidate(String segment) {
                // nothing cached
            }
        };
    }
}
