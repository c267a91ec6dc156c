package io.sluice.client;

import java.util.function.UnaryOperator;

import io.sluice.common.Endpoint;
import io.sluice.controller.ControllerClient;
import io.sluice.segment.SegmentLocator;

/** What tests in other packages may reach inside a {@link SluiceClient}, which its public API does not expose. */
public final class ClientInternals {

    private ClientInternals() {
    }

    /** @return the controller client {@code client} uses */
    public static ControllerClient controller(SluiceClient client) {
        return client.controller();
    }

    /**
     * Connects a client whose segment store connections go where {@code route} says instead of where the controller
     * says: {@code route} gets each endpoint the controller names (a proxy in front of it, say) and answers the one
     * to connect to. The controller itself is reached directly.
     *
     * @param config the client's settings
     * @param route maps the controller's segment store endpoint to the one to use
     * @return the client
     */
    public static SluiceClient connectRouted(ClientConfig config, UnaryOperator<Endpoint> route) {
        return SluiceClient.connect(config, locator -> new SegmentLocator() {
            @Override
            public Endpoint endpoint(String segment) {
                return route.apply(locator.endpoint(segment));
            }

            @Override
            public void invalidate(String segment) {
                locator.invalidate(segment);
            }

            @Override
            public void invalidate(String segment, Endpoint stale) {
                // stale is the routed endpoint, which the controller's cache never held: forget the entry anyway
                locator.invalidate(segment);
            }
        });
    }
}
