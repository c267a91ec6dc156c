package io.sluice.compat;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What an interop test class on both servers shares: before its tests, the official client's driver built and
 * {@link BothServers} started (the embedded server beside the real one); after each test, the streams it created
 * deleted; after the class, the embedded server stopped. Register it after the {@link RealPravegaScope} it takes
 * (JUnit orders registered extensions by {@code @Order}, not by declaration).
 */
final class BothServersExtension implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
    private final RealPravegaScope real;
    private BothServers servers;

    BothServersExtension(RealPravegaScope real) {
        this.real = real;
    }

    /** @return both servers, while the class's tests run */
    BothServers servers() {
        if (servers == null) {
            throw new IllegalStateException("both servers are started before the class's tests, not now");
        }
        return servers;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        OfficialClient.build();
        servers = new BothServers(real);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (servers != null) {
            servers.deleteCreated();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (servers != null) {
            servers.close();
            servers = null;
        }
    }
}
