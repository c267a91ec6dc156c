package io.sluice.client;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sluice.common.ClientMetrics;
import io.sluice.common.Threads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's metrics in a Micrometer {@link MeterRegistry} (names and meanings in {@code docs/metrics.md}). The only
 * client class that names Micrometer's types: {@link SluiceClient} loads it only when {@link ClientConfig} carries a
 * registry, so a client without one runs without Micrometer on the class path. Thread-safe.
 */
final class MicrometerClientMetrics implements ClientMetrics {
    /** Reader-group lags are recomputed at most this often (each computation calls the controller). */
    static final Duration DEFAULT_LAG_REFRESH = Duration.ofSeconds(10);
    private static final Logger LOG = LoggerFactory.getLogger(MicrometerClientMetrics.class);
    private final MeterRegistry registry;
    /** The writers alive now, summed by the in-flight gauges when they are read. */
    private final Set<InFlight> writers = ConcurrentHashMap.newKeySet();
    /** How old a reader group's lag may be before a read of its gauge computes it again. */
    private final Duration lagRefresh;

    private MicrometerClientMetrics(MeterRegistry registry, Duration lagRefresh) {
        this.registry = registry;
        this.lagRefresh = lagRefresh;
        Gauge.builder("sluice.client.append.inflight.events", this, m -> m.inFlight(false))
                .description("events written and not yet acknowledged (queued or sent), over all writers")
                .strongReference(true).register(registry);
        Gauge.builder("sluice.client.append.inflight.bytes", this, m -> m.inFlight(true))
                .description("bytes of the events written and not yet acknowledged, over all writers")
                .baseUnit("bytes").strongReference(true).register(registry);
    }

    /**
     * @param registry an {@code io.micrometer.core.instrument.MeterRegistry} (typed Object so that callers need not
     *     name Micrometer's types)
     * @return metrics recorded in it
     */
    static ClientMetrics over(Object registry) {
        return over(registry, DEFAULT_LAG_REFRESH);
    }

    /** Like {@link #over(Object)}, with reader-group lags recomputed at most every {@code lagRefresh}. */
    static ClientMetrics over(Object registry, Duration lagRefresh) {
        return new MicrometerClientMetrics((MeterRegistry) Objects.requireNonNull(registry, "registry"),
                Objects.requireNonNull(lagRefresh, "lagRefresh"));
    }

    private double inFlight(boolean bytes) {
        long total = 0;
        for (InFlight w : writers) {
            total += bytes ? w.inFlightBytes() : w.inFlightEvents();
        }
        return total;
    }

    /** @return {@code scope/stream} of a segment's qualified name ({@code scope/stream/number.#epoch.n...}) */
    static String streamOf(String segment) {
        int slash = segment.lastIndexOf('/');
        return slash < 0 ? segment : segment.substring(0, slash);
    }

    @Override
    public Appends appends(String segment, InFlight source) {
        Objects.requireNonNull(source, "source");
        String stream = streamOf(segment);
        writers.add(source);
        return new WriterMeters(stream, source);
    }

    @Override
    public void checkpoint(String readerGroup, long nanos) {
        Timer.builder("sluice.client.checkpoint.duration").description("from initiating a checkpoint to its completion")
                .tag("reader_group", readerGroup).register(registry).record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public Runnable readerGroup(String readerGroup, LongSupplier unreadBytes) {
        UnreadBytes lag = new UnreadBytes(readerGroup, unreadBytes, lagRefresh);
        Gauge gauge = Gauge.builder("sluice.client.reader.unread.bytes", lag, UnreadBytes::value)
                .description("bytes between the reader group's position and its streams' tails (refreshed at most "
                        + "every " + lagRefresh.toSeconds() + " s, off the scrape's thread)")
                .baseUnit("bytes").tag("reader_group", readerGroup).strongReference(true).register(registry);
        return () -> registry.remove(gauge);
    }

    /**
     * A reader group's lag as a gauge: computing it calls the controller and the segment stores, so a read of the
     * gauge returns the last value (NaN before the first) and, when that is older than the refresh interval, starts
     * one computation on a virtual thread of its own.
     */
    private static final class UnreadBytes {
        private final String group;
        private final LongSupplier source;
        private final long refreshNanos;
        private final AtomicBoolean computing = new AtomicBoolean();
        private volatile double last = Double.NaN;
        private volatile long computedAt;
        private volatile boolean computed;

        UnreadBytes(String group, LongSupplier source, Duration refresh) {
            this.group = group;
            this.source = source;
            this.refreshNanos = refresh.toNanos();
        }

        double value() {
            boolean stale = !computed || System.nanoTime() - computedAt >= refreshNanos;
            if (stale && computing.compareAndSet(false, true)) {
                Threads.startVirtual("sluice-reader-lag-" + group, () -> {
                    try {
                        last = source.getAsLong();
                        computedAt = System.nanoTime();
                        computed = true;
                    } catch (RuntimeException e) {
                        LOG.debug("unread bytes of reader group {} not computed: {}", group, e.toString());
                    } finally {
                        computing.set(false);
                    }
                });
            }
            return last;
        }
    }

    /** One writer's meters, looked up once when it opens. */
    private final class WriterMeters implements Appends {
        private final InFlight source;
        private final Timer latency;
        private final DistributionSummary blockEvents;
        private final DistributionSummary blockBytes;
        private final Counter reconnects;
        private final AtomicBoolean closed = new AtomicBoolean();

        WriterMeters(String stream, InFlight source) {
            this.source = source;
            this.latency = Timer.builder("sluice.client.append.latency")
                    .description("from sending an append block to its acknowledgement (durable), per block")
                    .tag("stream", stream).register(registry);
            this.blockEvents = DistributionSummary.builder("sluice.client.append.block.events")
                    .description("events per append block sent").tag("stream", stream).register(registry);
            this.blockBytes = DistributionSummary.builder("sluice.client.append.block.bytes")
                    .description("bytes per append block sent (events as framed on the wire)").baseUnit("bytes")
                    .tag("stream", stream).register(registry);
            this.reconnects = Counter.builder("sluice.client.reconnects")
                    .description("times a writer's connection broke and the writer set its session up again")
                    .tag("stream", stream).register(registry);
        }

        @Override
        public boolean enabled() {
            return true;
        }

        @Override
        public void block(int events, long bytes) {
            blockEvents.record(events);
            blockBytes.record(bytes);
        }

        @Override
        public void acknowledged(long nanos) {
            latency.record(nanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void reconnect() {
            reconnects.increment();
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                writers.remove(source);
            }
        }
    }
}
