package io.sluice.client;

import io.sluice.controller.ControllerClient;

/** What tests in other packages may reach inside a {@link SluiceClient}, which its public API does not expose. */
public final class ClientInternals {

    private ClientInternals() {
    }

    /** @return the controller client {@code client} uses */
    public static ControllerClient controller(SluiceClient client) {
        return client.controller();
    }
}
