package io.sluice.cli;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import io.sluice.client.SluiceClient;
import io.sluice.stream.ScopedStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code sluice bench}: the {@link Workload} against any server. */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measures write and read throughput and the latency of awaited writes against a Pravega "
                + "server (the real Pravega or Sluice's own), and verifies what was read.",
            WorkloadOptions.WORKLOAD,
            "Every run uses a scope and stream of its own (sluice-bench-<random>/events-<random>).",
            "--json prints one line with the keys of compat/official-client.sh bench (write.events_per_s, "
                + "read.events_per_s, latency.p50_us, latency.p99_us, verify.ok, ...), so the two clients can be "
                + "compared side by side on one server."},
        footer = {"%nExit status: 0 success, 1 the verification failed (the output says why) or the run failed "
                + "(standard error says why), 2 bad usage."})
final class BenchCommand extends ClientCommand {
    @Mixin
    WorkloadOptions workload;

    private Workload.Settings settings;

    @Override
    void validate() {
        settings = workload.settings(options.timeout);
    }

    @Override
    Result execute(SluiceClient client) {
        String suffix = randomSuffix();
        ScopedStream stream = ScopedStream.of("sluice-bench-" + suffix, "events-" + suffix);
        Workload.Report report = Workload.run(client, stream, settings);
        List<String> lines = new ArrayList<>();
        lines.add("Sluice bench against " + config.controllerUri());
        lines.addAll(report.lines());
        return new Result(report.json(Workload.context("bench", config.controllerUri().toString())), lines,
                report.ok() ? 0 : FAILED);
    }

    /** @return 8 random hex digits that make a run's names unique */
    static String randomSuffix() {
        byte[] bytes = new byte[4];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
