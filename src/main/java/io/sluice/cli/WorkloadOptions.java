package io.sluice.cli;

import java.time.Duration;

import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The options of {@code demo} and {@code bench}, which run the same {@link Workload} (a picocli mixin). Confined
 * to the command's thread.
 */
final class WorkloadOptions {
    @Option(names = "--events", paramLabel = "N", defaultValue = "100000", order = 1,
            description = "events to write and read back (default: ${DEFAULT-VALUE})")
    int events;

    @Option(names = "--size", paramLabel = "BYTES", defaultValue = "100", order = 2, converter = SizeConverter.class,
            description = "bytes per event, " + Workload.HEADER_BYTES + " to " + Workload.MAX_EVENT_BYTES
                    + " (8MiB), or to 1GiB with --large-events; a number of bytes, or with KiB, MiB or GiB "
                    + "(default: ${DEFAULT-VALUE})")
    int size;

    @Option(names = "--large-events", order = 6,
            description = "the writer writes events over 8 MiB as large events (WriterConfig.withLargeEvents: a "
                    + "transient segment, 8 MiB conditional appends, a merge), each write awaited until merged; "
                    + "with big events keep --events and --latency-samples small")
    boolean largeEvents;

    @Option(names = "--segments", paramLabel = "K", defaultValue = "4", order = 3,
            description = "fixed number of segments of the stream (default: ${DEFAULT-VALUE})")
    int segments;

    @Option(names = "--readers", paramLabel = "R", defaultValue = "2", order = 4,
            description = "readers in the reader group, each on its own thread (default: ${DEFAULT-VALUE})")
    int readers;

    @Option(names = "--latency-samples", paramLabel = "L", defaultValue = "2000", order = 5,
            description = "awaited single writes timed after the read phase (default: ${DEFAULT-VALUE})")
    int latencySamples;

    @Option(names = "--latency-thread", paramLabel = "KIND", defaultValue = "platform", order = 5,
            converter = LatencyThreadConverter.class,
            description = "the kind of thread that makes the awaited writes: platform (the command's own thread) or "
                    + "virtual (a new virtual thread, as in an application built on them) (default: ${DEFAULT-VALUE})")
    String latencyThread;

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
        return new Workload.Settings(events, size, segments, readers, latencySamples, idleTimeout, largeEvents,
                virtualLatencyThread());
    }

    /** @return whether {@code --latency-thread} asks for a virtual thread */
    boolean virtualLatencyThread() {
        return "virtual".equals(latencyThread);
    }

    /** {@code platform} or {@code virtual}, in any case; anything else is a usage error. */
    static final class LatencyThreadConverter implements CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String value) {
            String kind = value.trim().toLowerCase(java.util.Locale.ROOT);
            if (!kind.equals("platform") && !kind.equals("virtual")) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a kind of thread: platform or "
                        + "virtual");
            }
            return kind;
        }
    }

    /** Bytes, as a plain number or with a binary unit: {@code 100}, {@code 64KiB}, {@code 12MiB}, {@code 1GiB}. */
    static final class SizeConverter implements CommandLine.ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            String v = value.trim();
            long unit = 1;
            for (String[] u : new String[][] {{"KiB", "1024"}, {"MiB", "1048576"}, {"GiB", "1073741824"}}) {
                if (v.regionMatches(true, v.length() - 3, u[0], 0, 3) && v.length() > 3) {
                    unit = Long.parseLong(u[1]);
                    v = v.substring(0, v.length() - 3).trim();
                    break;
                }
            }
            long n;
            try {
                n = Long.parseLong(v.replace("_", ""));
            } catch (NumberFormatException e) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a size: a number of bytes, "
                        + "or a number with KiB, MiB or GiB (e.g. 12MiB)");
            }
            if (n < 0 || n * unit > Integer.MAX_VALUE) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a size from 0 to 2 GiB");
            }
            return (int) (n * unit);
        }
    }
}
