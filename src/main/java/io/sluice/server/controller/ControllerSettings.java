package io.sluice.server.controller;

import java.time.Duration;
import java.util.Objects;

import io.sluice.common.Endpoint;

/**
 * The embedded controller's settings.
 *
 * @param segmentStore the endpoint {@code getURI} returns for every segment
 * @param controller the endpoint {@code getControllerServerList} returns
 * @param pageSize most names per page of a listing (Pravega: 1000)
 * @param minLease shortest transaction lease accepted (Pravega: 10 s)
 * @param maxLease longest transaction lease accepted, also on ping (Pravega: 600 s)
 * @param maxExecutionTimeBound upper bound of a transaction's lifetime (Pravega: 1 day; otherwise 1000 leases)
 * @param leaseCheckInterval how often expired leases are looked for; {@link Duration#ZERO} disables the timer thread
 *        (tests then call {@link EmbeddedControllerService#expireLeases()})
 * @param watermarkInterval how often watermarks are computed from writers' marks (Pravega: 10 s, its
 *        {@code controller.watermarking.frequency.seconds}); {@link Duration#ZERO} disables the timer thread (tests
 *        then call {@link EmbeddedControllerService#computeWatermarks()})
 */
public record ControllerSettings(Endpoint segmentStore, Endpoint controller, int pageSize, Duration minLease,
                                 Duration maxLease, Duration maxExecutionTimeBound, Duration leaseCheckInterval,
                                 Duration watermarkInterval) {

    /** Pravega's default {@link #watermarkInterval()}. */
    public static final Duration DEFAULT_WATERMARK_INTERVAL = Duration.ofSeconds(10);

    /** Pravega's defaults for everything but the endpoints. */
    public static ControllerSettings defaults(Endpoint segmentStore, Endpoint controller) {
        return new ControllerSettings(segmentStore, controller, 1000, Duration.ofSeconds(10), Duration.ofSeconds(600),
                Duration.ofDays(1), Duration.ofSeconds(1), DEFAULT_WATERMARK_INTERVAL);
    }

    /** Checks the fields. */
    public ControllerSettings {
        Objects.requireNonNull(segmentStore, "segmentStore");
        Objects.requireNonNull(controller, "controller");
        Objects.requireNonNull(minLease, "minLease");
        Objects.requireNonNull(maxLease, "maxLease");
        Objects.requireNonNull(maxExecutionTimeBound, "maxExecutionTimeBound");
        Objects.requireNonNull(leaseCheckInterval, "leaseCheckInterval");
        Objects.requireNonNull(watermarkInterval, "watermarkInterval");
        if (watermarkInterval.isNegative()) {
            throw new IllegalArgumentException("watermarkInterval must not be negative, got " + watermarkInterval);
        }
        if (pageSize < 1) {
            throw new IllegalArgumentException("pageSize must be at least 1, got " + pageSize);
        }
        if (minLease.isNegative() || maxLease.compareTo(minLease) < 0) {
            throw new IllegalArgumentException("need 0 <= minLease <= maxLease, got " + minLease + " and " + maxLease);
        }
        if (maxExecutionTimeBound.compareTo(Duration.ZERO) <= 0 || leaseCheckInterval.isNegative()) {
            throw new IllegalArgumentException("maxExecutionTimeBound must be positive and leaseCheckInterval not "
                    + "negative, got " + maxExecutionTimeBound + " and " + leaseCheckInterval);
        }
    }

    /** @return a copy with another page size */
    public ControllerSettings withPageSize(int newPageSize) {
        return new ControllerSettings(segmentStore, controller, newPageSize, minLease, maxLease,
                maxExecutionTimeBound, leaseCheckInterval, watermarkInterval);
    }

    /** @return a copy with other lease bounds */
    public ControllerSettings withLeases(Duration newMinLease, Duration newMaxLease) {
        return new ControllerSettings(segmentStore, controller, pageSize, newMinLease, newMaxLease,
                maxExecutionTimeBound, leaseCheckInterval, watermarkInterval);
    }

    /** @return a copy with another lease check interval ({@link Duration#ZERO}: no timer thread) */
    public ControllerSettings withLeaseCheckInterval(Duration interval) {
        return new ControllerSettings(segmentStore, controller, pageSize, minLease, maxLease, maxExecutionTimeBound,
                interval, watermarkInterval);
    }

    /** @return a copy with another watermark interval ({@link Duration#ZERO}: no timer thread) */
    public ControllerSettings withWatermarkInterval(Duration interval) {
        return new ControllerSettings(segmentStore, controller, pageSize, minLease, maxLease, maxExecutionTimeBound,
                leaseCheckInterval, interval);
    }
}
