package io.sluice.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import io.sluice.client.SluiceClient;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.ScopedStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code sluice demo}: starts an embedded server in this process and runs the {@link Workload} against it, so a
 * newcomer sees the client and the server work (and how fast) with one command. One instance runs once.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Starts an embedded Sluice server in this process (in memory unless --data-dir), then "
                + "writes events through the client, reads them back through a reader group, verifies them and "
                + "prints the throughput. Takes a few seconds with the defaults.",
            WorkloadOptions.WORKLOAD,
            "--json prints one line with the same keys as 'sluice bench --json'."},
        footer = {"%nExit status: 0 success, 1 the verification failed (the output says why) or the run failed "
                + "(standard error says why), 2 bad usage."})
final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    WorkloadOptions workload;

    @Option(names = "--data-dir", paramLabel = "DIR", order = 10,
            description = "run the server on DIR (created if missing; durable, fsync before every acknowledgement) "
                    + "instead of in memory")
    Path dataDir;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "30s", order = 11,
            converter = ControllerOptions.DurationConverter.class,
            description = "the read phase gives up when no event arrived for this long (default: ${DEFAULT-VALUE})")
    Duration timeout;

    @Option(names = "--json", order = 12, description = "print one JSON object on standard output instead of text, "
            + "for failures too")
    boolean json;

    @Option(names = {"-v", "--verbose"}, order = 13, description = "print the stack trace of a failure")
    boolean verbose;

    @Override
    public Integer call() {
        Workload.Settings settings;
        try {
            settings = workload.settings(timeout);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        String where = dataDir == null ? "in memory" : "data in " + dataDir.toAbsolutePath();
        ConnectedCommand.Result result;
        try {
            long started = System.nanoTime();
            EmbeddedServer.Builder builder = EmbeddedServer.builder();
            if (dataDir != null) {
                builder.dataDir(dataDir);
            }
            try (EmbeddedServer server = builder.build();
                 SluiceClient client = SluiceClient.connect(server.controllerUri())) {
                long readyMillis = (System.nanoTime() - started) / 1_000_000;
                String suffix = BenchCommand.randomSuffix();
                Workload.Report report;
                try (Progress progress = Progress.forTerminal(spec.commandLine().getErr(), json).start()) {
                    report = Workload.run(client, ScopedStream.of("sluice-demo-" + suffix, "events-" + suffix),
                            settings, progress);
                }
                Map<String, Object> context = Workload.context("demo", server.controllerUri());
                context.put("server", "embedded, " + where);
                List<String> lines = new ArrayList<>();
                lines.add("Sluice demo: embedded server (" + where + ") ready in " + readyMillis + " ms at "
                        + server.controllerUri());
                lines.addAll(report.lines());
                result = new ConnectedCommand.Result(report.json(context), lines,
                        report.ok() ? 0 : ConnectedCommand.FAILED);
            }
        } catch (RuntimeException e) {
            String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            return ConnectedCommand.fail(spec, e, message, json, verbose);
        }
        return ConnectedCommand.print(spec, result, json);
    }
}
