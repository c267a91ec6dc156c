package io.sluice.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

import io.sluice.common.Endpoint;
import io.sluice.connection.FaultProxy;

/**
 * A {@link FaultProxy} in front of every segment store a client is sent to, each started on the same seeded
 * schedule as it is first needed (a schedule per proxy, from the seed and the proxy's number): the route a
 * {@link MixedWorkload} takes to the segment stores when the network is to fail. Thread-safe.
 */
public final class FaultyNetwork implements UnaryOperator<Endpoint>, AutoCloseable {
    private final long seed;
    private final Map<Endpoint, FaultProxy> proxies = new ConcurrentHashMap<>();

    /** @param seed the seed of the first proxy's schedule ({@link FaultProxy.Schedule#mixed}) */
    public FaultyNetwork(long seed) {
        this.seed = seed;
    }

    /** @return the proxy in front of {@code segmentStore}, started on first use */
    @Override
    public Endpoint apply(Endpoint segmentStore) {
        return proxies.computeIfAbsent(segmentStore, e -> {
            try {
                FaultProxy p = new FaultProxy(e);
                p.startSchedule(FaultProxy.Schedule.mixed(seed + proxies.size()));
                return p;
            } catch (IOException x) {
                throw new UncheckedIOException("cannot open a proxy in front of " + e, x);
            }
        }).endpoint();
    }

    /** Stops every schedule; the proxies go on forwarding without faults. */
    public void calm() throws InterruptedException {
        for (FaultProxy p : proxies.values()) {
            p.stopSchedule();
        }
    }

    /** @return the proxies made so far */
    public List<FaultProxy> proxies() {
        return new ArrayList<>(proxies.values());
    }

    /** @return the faults injected, summed over the proxies */
    public Map<FaultProxy.Fault, Integer> counts() {
        Map<FaultProxy.Fault, Integer> m = new EnumMap<>(FaultProxy.Fault.class);
        for (FaultProxy p : proxies.values()) {
            p.counts().forEach((f, n) -> m.merge(f, n, Integer::sum));
        }
        return m;
    }

    /** @return the connections each fault hit, summed over the proxies */
    public Map<FaultProxy.Fault, Integer> connectionsHit() {
        Map<FaultProxy.Fault, Integer> m = new EnumMap<>(FaultProxy.Fault.class);
        for (FaultProxy p : proxies.values()) {
            p.connectionsHit().forEach((f, n) -> m.merge(f, n, Integer::sum));
        }
        return m;
    }

    /** @return connections made through the proxies */
    public int connections() {
        return proxies.values().stream().mapToInt(FaultProxy::connections).sum();
    }

    /** @return a line for a log: the seed, the faults, the connections */
    public String summary() {
        return "seed " + seed + ", " + proxies.size() + " proxies, faults injected " + counts()
                + " (connections hit " + connectionsHit() + "), " + connections() + " connections made";
    }

    /** Closes every proxy. */
    @Override
    public void close() throws IOException {
        for (FaultProxy p : proxies.values()) {
            p.close();
        }
    }
}
