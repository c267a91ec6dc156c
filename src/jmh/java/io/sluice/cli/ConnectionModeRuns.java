package io.sluice.cli;

import java.time.Duration;
import java.util.Map;

import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.stream.ScopedStream;

/**
 * One run of {@code sluice bench}'s workload with a chosen way of reading segment-store connections, so the ways can
 * be compared against one server in one sitting (the command itself runs the defaults only):
 * <ul>
 *   <li>{@code caller-reads}: the default ({@code ClientConfig.Builder.callerReads(true)}, virtual-thread reader);</li>
 *   <li>{@code caller-reads-platform}: the same with {@code platformReaders(true)};</li>
 *   <li>{@code stream}: {@code callerReads(false)}, a virtual thread in a blocking read, as before issue 19's eighth
 *       round;</li>
 *   <li>{@code stream-platform}: {@code callerReads(false)} and {@code platformReaders(true)}.</li>
 * </ul>
 * <pre>
 * java -cp target/benchmarks.jar io.sluice.cli.ConnectionModeRuns CONTROLLER_URI MODE EVENTS SIZE LATENCY_SAMPLES
 *     [platform|virtual]
 * </pre>
 * Prints the run's JSON line (as {@code sluice bench --json}) with the mode added.
 */
public final class ConnectionModeRuns {
    private ConnectionModeRuns() {
    }

    /**
     * Runs it.
     *
     * @param args CONTROLLER_URI MODE EVENTS SIZE LATENCY_SAMPLES [platform|virtual]
     */
    public static void main(String[] args) {
        if (args.length < 5) {
            System.err.println("usage: ConnectionModeRuns CONTROLLER_URI caller-reads|caller-reads-platform|stream|"
                    + "stream-platform EVENTS SIZE LATENCY_SAMPLES [platform|virtual]");
            System.exit(2);
        }
        String mode = args[1];
        ClientConfig.Builder config = ClientConfig.builder(args[0]);
        switch (mode) {
            case "caller-reads" -> config.callerReads(true);
            case "caller-reads-platform" -> config.callerReads(true).platformReaders(true);
            case "stream" -> config.callerReads(false);
            case "stream-platform" -> config.callerReads(false).platformReaders(true);
            default -> throw new IllegalArgumentException("unknown mode '" + mode + "'");
        }
        boolean virtual = args.length > 5 && args[5].equals("virtual");
        Workload.Settings settings = new Workload.Settings(Integer.parseInt(args[2]), Integer.parseInt(args[3]), 1, 1,
                Integer.parseInt(args[4]), Duration.ofSeconds(30), false, virtual);
        String suffix = BenchCommand.randomSuffix();
        try (SluiceClient client = SluiceClient.connect(config.build())) {
            Workload.Report report = Workload.run(client, ScopedStream.of("modes-" + suffix, "events-" + suffix),
                    settings);
            Map<String, Object> context = Workload.context("bench", args[0]);
            context.put("connection_mode", mode);
            System.out.println(JsonWriter.write(report.json(context)));
        }
    }
}
