package io.sluice.controller;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.sluice.common.Endpoint;

/**
 * Creates the {@link ControllerNameResolver} of one channel. Each channel gets its own provider instance (not
 * registered globally) and the fixed target {@value #TARGET}; the real endpoints come from the constructor.
 */
final class ControllerNameResolverProvider extends NameResolverProvider {
    static final String SCHEME = "sluice-controller";
    static final String TARGET = SCHEME + ":///controller";

    /** Pravega's retry delay after a failed discovery. */
    static final Duration DISCOVERY_RETRY = Duration.ofSeconds(10);
    /** Least time between two resolutions, whatever gRPC asks. */
    static final Duration MIN_GAP = Duration.ofSeconds(1);

    private final List<Endpoint> seeds;
    private final Supplier<List<Endpoint>> discovery;
    private final Duration refreshInterval;

    /**
     * @param seeds the endpoints of the controller URI
     * @param discovery asks for the controller list (blocking), or null for static resolution
     * @param refreshInterval how often discovery runs
     */
    ControllerNameResolverProvider(List<Endpoint> seeds, Supplier<List<Endpoint>> discovery, Duration refreshInterval) {
        this.seeds = List.copyOf(seeds);
        this.discovery = discovery;
        this.refreshInterval = Objects.requireNonNull(refreshInterval, "refreshInterval");
    }

    @Override
    public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
        if (!SCHEME.equals(targetUri.getScheme())) {
            return null;
        }
        return new ControllerNameResolver(seeds, discovery, args.getSynchronizationContext(),
                args.getScheduledExecutorService(), refreshInterval, DISCOVERY_RETRY, MIN_GAP);
    }

    @Override
    public String getDefaultScheme() {
        return SCHEME;
    }

    @Override
    protected boolean isAvailable() {
        return true;
    }

    @Override
    protected int priority() {
        return 5;
    }
}
