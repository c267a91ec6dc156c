package io.sluice.cli;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.sluice.common.Threads;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import io.sluice.client.SluiceClient;
import io.sluice.stream.ScopedStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sluice bench}: the {@link Workload} against any server. */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measures write and read throughput and the latency of awaited writes against a Pravega "
                + "server (the real Pravega or Sluice's own), and verifies what was read.",
            WorkloadOptions.WORKLOAD,
            "With --transactions T the run measures transactions instead: one transactional writer runs T "
                + "transactions one after the other (begin, --txn-events writes, commit, which returns once the "
                + "transaction is COMMITTED), then a reader group reads the T x N events back and verifies them as "
                + "above; --events and --latency-samples are not used. It reports events/s and the commit latency "
                + "(p50, p99) under \"transactions\", as compat/official-client.sh bench --transactions does.",
            "With --byte-stream the run measures a byte stream instead: --events writes of --size bytes to a new "
                + "one-segment stream and a flush, then a reader reads them back and checks every byte; it reports "
                + "write.mb_per_s and read.mb_per_s, as compat/official-client.sh bench --byte-stream does.",
            "With --kvt the run measures a key-value table instead (see docs/key-value-tables.md): on a new table of "
                + "--segments partitions (8-byte primary, 4-byte secondary keys), --kvt-concurrency callers run "
                + "--events single puts of --size-byte values, --events gets of them, then batches of --kvt-batch "
                + "puts under one primary key and a getAll of each batch, every call awaited and every value checked; "
                + "it reports entries/s and p50/p99 latency per phase under \"kvt\", as compat/official-client.sh "
                + "bench --kvt does.",
            "With --batch the run measures batch reads instead: the events are written as above, then the batch "
                + "client lists the stream's segments and reads every range on a virtual thread of its own, all at "
                + "once, checking every event; --readers and --latency-samples are not used. It reports "
                + "write and read events/s and MB/s, as compat/official-client.sh bench --batch does.",
            "With --writers W (more than 1) the run measures scale instead: a stream of K segments, W writers "
                + "(writer w writes its share of the N events with one routing key, chosen to fall in segment w mod "
                + "K, so W = K gives every segment one writer), each writing on a virtual thread of its own without "
                + "waiting, then flushing; a reader group of R readers reads them back and checks each writer's "
                + "order; with everything open it measures the heap (live after a collection, and the most used) "
                + "and the platform threads; then the W writers at once make the L awaited writes between them. It "
                + "reports setup, write, read, latency and resources, as compat/official-client.sh bench --writers "
                + "does.",
            "Every run uses a scope and stream of its own (sluice-bench-<random>/events-<random>), deleted at the end, "
                + "also when the run is interrupted (Ctrl-C). On a terminal a progress line on standard error shows "
                + "events written and read while a plain run lasts longer than a second (never with --json).",
            "--json prints one line with the keys of compat/official-client.sh bench (write.events_per_s, "
                + "read.events_per_s, latency.p50_us, latency.p99_us, verify.ok, ...), so the two clients can be "
                + "compared side by side on one server."},
        footer = {"%nExit status: 0 success, 1 the verification failed (the output says why) or the run failed "
                + "(standard error says why), 2 bad usage."})
final class BenchCommand extends ClientCommand {
    @Mixin
    WorkloadOptions workload;

    @Option(names = "--transactions", paramLabel = "T", defaultValue = "0", order = 6,
            description = "measure T transactions one after the other instead of plain writes (default: "
                    + "${DEFAULT-VALUE}: plain writes)")
    int transactions;

    @Option(names = "--txn-events", paramLabel = "N", defaultValue = "100", order = 7,
            description = "events per transaction with --transactions (default: ${DEFAULT-VALUE})")
    int txnEvents;

    @Option(names = "--byte-stream", order = 8,
            description = "measure a byte stream instead: --events writes of --size bytes to a new one-segment "
                    + "stream, a flush, then one reader reads them all back and checks them")
    boolean byteStream;

    @Option(names = "--kvt", order = 9,
            description = "measure a key-value table instead: single puts, gets, batched puts and getAll")
    boolean kvt;

    @Option(names = "--kvt-concurrency", paramLabel = "C", defaultValue = "1", order = 10,
            description = "with --kvt, concurrent callers (virtual threads); 1 is the latency run (default: "
                    + "${DEFAULT-VALUE})")
    int kvtConcurrency;

    @Option(names = "--kvt-batch", paramLabel = "B", defaultValue = "100", order = 11,
            description = "with --kvt, entries per atomic batch, 1 to " + KvtWorkload.MAX_BATCH + " (default: "
                    + "${DEFAULT-VALUE})")
    int kvtBatch;

    @Option(names = "--batch", order = 12,
            description = "measure batch reads instead: N events over K segments, then the batch client reads "
                    + "every segment's range on a virtual thread of its own, all at once, and checks every event")
    boolean batch;

    @Option(names = "--writers", paramLabel = "W", defaultValue = "1", order = 13,
            description = "measure scale instead with W > 1 writers: each writes its share of the N events with "
                    + "one routing key, in segment (writer index mod K); then the readers, the heap and threads, and "
                    + "awaited writes of all writers at once (up to " + ScaleWorkload.MAX_WRITERS + " writers and "
                    + ScaleWorkload.MAX_SEGMENTS + " segments; default: ${DEFAULT-VALUE})")
    int writers;

    private Workload.Settings settings;
    private KvtWorkload.Settings kvtSettings;
    private ScaleWorkload.Settings scaleSettings;

    @Override
    void validate() {
        if (writers < 1) {
            throw new IllegalArgumentException("--writers must be at least 1, but is " + writers);
        }
        if (workload.virtualLatencyThread() && (writers > 1 || kvt || byteStream || batch || transactions > 0)) {
            throw new IllegalArgumentException("--latency-thread applies to the plain workload's awaited writes, not "
                    + "to --writers, --kvt, --byte-stream, --batch or --transactions");
        }
        if (writers > 1) {
            if (kvt || byteStream || batch || transactions > 0 || workload.largeEvents) {
                throw new IllegalArgumentException("--writers does not go with --kvt, --byte-stream, --batch, "
                        + "--transactions or --large-events");
            }
            scaleSettings = new ScaleWorkload.Settings(workload.events, workload.size, workload.segments,
                    workload.readers, writers, workload.latencySamples, options.timeout);
            return;
        }
        settings = workload.settings(options.timeout);
        if (transactions < 0) {
            throw new IllegalArgumentException("--transactions must not be negative, but is " + transactions);
        }
        if (txnEvents < 1) {
            throw new IllegalArgumentException("--txn-events must be at least 1, but is " + txnEvents);
        }
        if (byteStream && (transactions > 0 || settings.largeEvents())) {
            throw new IllegalArgumentException("--byte-stream does not go with --transactions or --large-events");
        }
        if (kvt) {
            if (byteStream || batch || transactions > 0 || settings.largeEvents()) {
                throw new IllegalArgumentException("--kvt does not go with --byte-stream, --batch, --transactions or "
                        + "--large-events");
            }
            kvtSettings = new KvtWorkload.Settings(settings.events(), settings.size(), settings.segments(),
                    kvtConcurrency, kvtBatch);
        }
        if (batch && (transactions > 0 || byteStream)) {
            throw new IllegalArgumentException("--batch does not go with --transactions or --byte-stream");
        }
        if (transactions > 0) {
            long events = (long) transactions * txnEvents;
            if (events > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("--transactions x --txn-events must be at most "
                        + Integer.MAX_VALUE + " events, but is " + events);
            }
            settings = new Workload.Settings((int) events, settings.size(), settings.segments(), settings.readers(),
                    0, settings.idleTimeout());
        }
    }

    @Override
    Result execute(SluiceClient client) {
        String suffix = randomSuffix();
        ScopedStream stream = ScopedStream.of("sluice-bench-" + suffix, "events-" + suffix);
        // Ctrl-C (or SIGTERM) in the middle of a run: the scope and what is in it go with the process, as at a
        // normal end; the hook gives the deletion a few seconds, then lets the JVM exit
        AtomicBoolean finished = new AtomicBoolean();
        Thread cleanup = new Thread(() -> {
            if (!finished.get()) {
                CompletableFuture<Void> deleted = CompletableFuture.runAsync(() -> {
                    try {
                        client.streamManager().deleteScopeRecursive(stream.scope());
                    } catch (RuntimeException e) {
                        // best effort: the process is going; the scope's name is random
                    }
                }, r -> Threads.startVirtual("sluice-bench-cleanup", r));
                try {
                    deleted.get(CLEANUP_SECONDS, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // gone with the process
                }
            }
        }, "sluice-bench-interrupted");
        Runtime.getRuntime().addShutdownHook(cleanup);
        try (Progress progress = Progress.forTerminal(spec.commandLine().getErr(), options.json).start()) {
            return run(client, stream, suffix, progress);
        } finally {
            finished.set(true);
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException e) {
                // the JVM is shutting down already: the hook runs (and finds the run finished)
            }
        }
    }

    /** How long a run cut short by Ctrl-C waits for its scope to be deleted. */
    private static final long CLEANUP_SECONDS = 10;

    private Result run(SluiceClient client, ScopedStream stream, String suffix, Progress progress) {
        if (scaleSettings != null) {
            ScaleWorkload.Report report = ScaleWorkload.run(client, stream, scaleSettings, progress);
            List<String> lines = new ArrayList<>();
            lines.add("Sluice bench (scale) against " + config.controllerUri());
            lines.addAll(report.lines());
            return new Result(report.json(Workload.context("bench", config.controllerUri().toString())), lines,
                    report.ok() ? 0 : FAILED);
        }
        if (kvt) {
            KvtWorkload.Report report = KvtWorkload.run(client, stream.scope(), "kvt-" + suffix, kvtSettings);
            List<String> lines = new ArrayList<>();
            lines.add("Sluice bench (key-value table) against " + config.controllerUri());
            lines.addAll(report.lines());
            return new Result(report.json(Workload.context("bench", config.controllerUri().toString())), lines,
                    report.ok() ? 0 : FAILED);
        }
        if (byteStream) {
            ByteStreamWorkload.Report report = ByteStreamWorkload.run(client, stream, settings.events(),
                    settings.size());
            List<String> lines = new ArrayList<>();
            lines.add("Sluice bench (byte stream) against " + config.controllerUri());
            lines.addAll(report.lines());
            return new Result(report.json(Workload.context("bench", config.controllerUri().toString())), lines,
                    report.ok() ? 0 : FAILED);
        }
        if (batch) {
            BatchWorkload.Report report = BatchWorkload.run(client, stream, settings);
            List<String> lines = new ArrayList<>();
            lines.add("Sluice bench (batch reads) against " + config.controllerUri());
            lines.addAll(report.lines());
            return new Result(report.json(Workload.context("bench", config.controllerUri().toString())), lines,
                    report.ok() ? 0 : FAILED);
        }
        if (transactions > 0) {
            TxnWorkload.Report report = TxnWorkload.run(client, stream, settings, transactions, txnEvents);
            List<String> lines = new ArrayList<>();
            lines.add("Sluice bench (transactions) against " + config.controllerUri());
            lines.addAll(report.lines());
            return new Result(report.json(Workload.context("bench", config.controllerUri().toString())), lines,
                    report.ok() ? 0 : FAILED);
        }
        Workload.Report report = Workload.run(client, stream, settings, progress);
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
