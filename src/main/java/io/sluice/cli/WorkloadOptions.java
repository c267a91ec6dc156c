package io.sluice.cli;

import java.time.Duration;

import picocli.CommandLine.Option;

/**
 * The options of {@code demo} and {@code bench}, which run the same {@link Workload} (a picocli mixin). Confined
 * to the command's thread.
 */
final class WorkloadOptions {
    @Option(names = "--events", paramLabel = "N", defaultValue = "100000", order = 1,
            description = "events to write and read back (default: ${DEFAULT-VALUE})")
    int events;

    @Option(names = "--size", paramLabel = "BYTES", defaultValue = "100", order = 2,
            description = "bytes per event, " + Workload.HEADER_BYTES + " to " + Workload.MAX_EVENT_BYTES
                    + " (default: ${DEFAULT-VALUE})")
    int size;

    @Option(names = "--segments", paramLabel = "K", defaultValue = "4", order = 3,
            description = "fixed number of segments of the stream (default: ${DEFAULT-VALUE})")
    int segments;

    @Option(names = "--readers", paramLabel = "R", defaultValue = "2", order = 4,
            description = "readers in the reader group, each on its own thread (default: ${DEFAULT-VALUE})")
    int readers;

    @Option(names = "--latency-samples", paramLabel = "L", defaultValue = "2000", order = 5,
            description = "awaited single writes timed after the read phase (default: ${DEFAULT-VALUE})")
    int latencySamples;

    /** The description paragraph both commands share: what the workload does and measures. */
    static final String WORKLOAD = "Creates a stream of K fixed segments; one writer writes N events of BYTES bytes "
            + "over " + Workload.KEYS + " routing keys without waiting, then flushes (write time: first write to "
            + "the end of the flush); a new reader group of R readers reads them back (read time: start of the "
            + "readers to the N-th event) and checks every event's content, that none is missing or duplicated, and "
            + "each key's order; then L awaited writes (writeAndWait) one after the other give the latency "
            + "percentiles. The read phase gives up when no event arrived for --timeout; a lost server fails the run "
            + "within about --timeout. At the end the run deletes its reader group, stream and scope.";

    /**
     * @param idleTimeout when the read phase gives up
     * @return the settings these options describe
     * @throws IllegalArgumentException naming the option that is out of range
     */
    Workload.Settings settings(Duration idleTimeout) {
        return new Workload.Settings(events, size, segments, readers, latencySamples, idleTimeout);
    }
}
