package io.sluice.controller;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.grpc.Attributes;
import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.Status;
import io.grpc.SynchronizationContext;
import io.sluice.common.Endpoint;
import io.sluice.common.Threads;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a gRPC channel which controller addresses to round-robin over.
 *
 * <ul>
 *   <li><b>Static</b> ({@code tcp://}, {@code tls://}, {@code ssl://}): the URI's endpoints, their host names
 *       resolved with {@link InetAddress#getAllByName}. Resolved again whenever gRPC asks ({@link #refresh()}, e.g.
 *       after a connection failure).</li>
 *   <li><b>Discovery</b> ({@code pravega://}, {@code pravegas://}): {@code discovery} is called (it asks the seed
 *       controllers for {@code getControllerServerList}), then every {@code refreshInterval}, or after
 *       {@code retryInterval} when it failed (Pravega: 120 s and 10 s), and also when gRPC asks.</li>
 * </ul>
 *
 * <p>Each endpoint becomes one address group whose authority override is {@code host:port}, so TLS checks every
 * controller's certificate against its own host name. Resolution blocks (DNS, an RPC) and therefore runs on a
 * virtual thread; results are handed to gRPC in the channel's synchronization context, where all mutable state of
 * this class lives (the fields below are confined to it). Resolutions are at least {@code minGap} apart.
 */
final class ControllerNameResolver extends NameResolver {
    private static final Logger LOG = LoggerFactory.getLogger(ControllerNameResolver.class);

    private final String authority;
    private final List<Endpoint> seeds;
    private final Supplier<List<Endpoint>> discovery;
    private final SynchronizationContext sync;
    private final ScheduledExecutorService timer;
    private final Duration refreshInterval;
    private final Duration retryInterval;
    private final long minGapNanos;

    // confined to the synchronization context
    private Listener2 listener;
    private boolean shutdown;
    private boolean resolving;
    private SynchronizationContext.ScheduledHandle pending;
    private long lastStartNanos;
    private boolean started;

    /**
     * @param seeds the URI's endpoints
     * @param discovery asks for the controller list, blocking; null for static resolution of {@code seeds}
     * @param sync the channel's synchronization context
     * @param timer the channel's timer
     * @param refreshInterval discovery: time between successful resolutions
     * @param retryInterval discovery: time until the next attempt after a failure
     * @param minGap least time between the starts of two resolutions
     */
    ControllerNameResolver(List<Endpoint> seeds, Supplier<List<Endpoint>> discovery, SynchronizationContext sync,
                           ScheduledExecutorService timer, Duration refreshInterval, Duration retryInterval,
                           Duration minGap) {
        this.seeds = List.copyOf(seeds);
        this.authority = this.seeds.getFirst().toString();
        this.discovery = discovery;
        this.sync = Objects.requireNonNull(sync, "sync");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.refreshInterval = refreshInterval;
        this.retryInterval = retryInterval;
        this.minGapNanos = minGap.toNanos();
    }

    @Override
    public String getServiceAuthority() {
        return authority;
    }

    @Override
    public void start(Listener2 newListener) {
        sync.throwIfNotInThisSynchronizationContext();
        if (listener != null) {
            throw new IllegalStateException("controller name resolver already started");
        }
        listener = Objects.requireNonNull(newListener, "listener");
        resolveNow();
    }

    @Override
    public void refresh() {
        sync.throwIfNotInThisSynchronizationContext();
        if (listener == null || shutdown || resolving) {
            return;
        }
        long wait = started ? Math.max(0, lastStartNanos + minGapNanos - System.nanoTime()) : 0;
        schedule(wait);
    }

    @Override
    public void shutdown() {
        sync.throwIfNotInThisSynchronizationContext();
        shutdown = true;
        cancelPending();
    }

    private void schedule(long delayNanos) {
        if (pending != null && pending.isPending()) {
            pending.cancel();
        }
        pending = sync.schedule(this::resolveNow, delayNanos, TimeUnit.NANOSECONDS, timer);
    }

    private void cancelPending() {
        if (pending != null) {
            pending.cancel();
            pending = null;
        }
    }

    private void resolveNow() {
        if (shutdown || resolving) {
            return;
        }
        cancelPending();
        resolving = true;
        started = true;
        lastStartNanos = System.nanoTime();
        Threads.startVirtual("sluice-controller-resolver", () -> {
            Resolution resolution = resolve();
            sync.execute(() -> deliver(resolution));
        });
    }

    private record Resolution(List<EquivalentAddressGroup> groups, Status error) {
    }

    private Resolution resolve() {
        List<Endpoint> endpoints;
        try {
            endpoints = discovery == null ? seeds : discovery.get();
        } catch (RuntimeException e) {
            LOG.warn("controller discovery through {} failed: {}", seeds, e.toString());
            return new Resolution(List.of(), Status.UNAVAILABLE.withDescription("controller discovery through "
                    + seeds + " failed: " + e.getMessage()).withCause(e));
        }
        List<EquivalentAddressGroup> groups = new ArrayList<>();
        List<String> unresolved = new ArrayList<>();
        for (Endpoint endpoint : new LinkedHashSet<>(endpoints)) {
            try {
                List<SocketAddress> addresses = new ArrayList<>();
                for (InetAddress address : InetAddress.getAllByName(endpoint.host())) {
                    addresses.add(new InetSocketAddress(address, endpoint.port()));
                }
                groups.add(new EquivalentAddressGroup(addresses, Attributes.newBuilder()
                        .set(EquivalentAddressGroup.ATTR_AUTHORITY_OVERRIDE, endpoint.toString()).build()));
            } catch (UnknownHostException e) {
                unresolved.add(endpoint.toString());
            }
        }
        if (groups.isEmpty()) {
            String why = endpoints.isEmpty() ? "the controller list is empty" : "cannot resolve " + unresolved;
            return new Resolution(List.of(), Status.UNAVAILABLE.withDescription("no controller address: " + why));
        }
        if (!unresolved.isEmpty()) {
            LOG.warn("cannot resolve controller hosts {}; using the others", unresolved);
        }
        return new Resolution(groups, null);
    }

    private void deliver(Resolution resolution) {
        resolving = false;
        if (shutdown) {
            return;
        }
        boolean ok;
        if (resolution.error() != null) {
            listener.onError(resolution.error());
            ok = false;
        } else {
            LOG.debug("controller addresses: {}", resolution.groups());
            ok = listener.onResult2(ResolutionResult.newBuilder().setAddresses(resolution.groups())
                    .setAttributes(Attributes.EMPTY).build()).isOk();
        }
        if (discovery != null) {
            schedule((ok ? refreshInterval : retryInterval).toNanos());
        }
    }
}
