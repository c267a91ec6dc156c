package io.sluice.server;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sluice.common.ServerMetrics;

/**
 * The embedded server's metrics in a Micrometer {@link MeterRegistry} (names and meanings in {@code docs/metrics.md}).
 * The only server class that names Micrometer's types: {@link EmbeddedServer} calls it (through methods typed by
 * {@code Object} and {@link ServerMetrics}) only when its builder was given a registry, so a server without one runs
 * without Micrometer on the class path. Thread-safe.
 */
final class MicrometerServerMetrics implements ServerMetrics {
    private final Counter appends;
    private final Counter appendedEvents;
    private final Counter appendedBytes;
    private final Counter reads;
    private final Counter readBytes;
    private final Timer durableFlush;

    private MicrometerServerMetrics(MeterRegistry registry) {
        this.appends = Counter.builder("sluice.server.appends")
                .description("appends made durable and acknowledged (one per append block or conditional append)")
                .register(registry);
        this.appendedEvents = Counter.builder("sluice.server.appended.events")
                .description("events in the appends made durable").register(registry);
        this.appendedBytes = Counter.builder("sluice.server.appended.bytes")
                .description("bytes in the appends made durable").baseUnit("bytes").register(registry);
        this.reads = Counter.builder("sluice.server.reads").description("segment reads answered with data")
                .register(registry);
        this.readBytes = Counter.builder("sluice.server.read.bytes").description("bytes returned by segment reads")
                .baseUnit("bytes").register(registry);
        this.durableFlush = Timer.builder("sluice.server.durable.flush")
                .description("one group commit of a write log: writing a batch of records and (with fsync) forcing it")
                .register(registry);
    }

    /**
     * @param registry an {@code io.micrometer.core.instrument.MeterRegistry} (typed Object: see the class comment)
     * @return counters and timers recorded in it
     */
    static ServerMetrics over(Object registry) {
        return new MicrometerServerMetrics((MeterRegistry) Objects.requireNonNull(registry, "registry"));
    }

    /** Registers the gauges read from the running server: containers, segments, open connections. */
    static void gauges(Object registry, SegmentStore store, SegmentStoreServer server) {
        MeterRegistry r = (MeterRegistry) registry;
        Gauge.builder("sluice.server.containers", store, SegmentStore::containerCount)
                .description("segment containers of the segment store").strongReference(true).register(r);
        Gauge.builder("sluice.server.segments", store, SegmentStore::segmentCount)
                .description("segments that exist (stream, transaction, table and internal ones)")
                .strongReference(true).register(r);
        Gauge.builder("sluice.server.connections", server, SegmentStoreServer::connectionCount)
                .description("open client connections to the segment store").strongReference(true).register(r);
    }

    @Override
    public void appended(int events, long bytes) {
        appends.increment();
        appendedEvents.increment(events);
        appendedBytes.increment(bytes);
    }

    @Override
    public void read(long bytes) {
        reads.increment();
        readBytes.increment(bytes);
    }

    @Override
    public void durableFlush(long nanos) {
        durableFlush.record(nanos, TimeUnit.NANOSECONDS);
    }
}
