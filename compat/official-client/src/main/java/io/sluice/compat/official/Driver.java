package io.sluice.compat.official;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pravega.client.ClientConfig;
import io.pravega.client.admin.StreamManager;

/**
 * The official Pravega 0.13 Java client driver: runs {@code verify} (a functional check of the official client
 * against a server), {@code bench} (throughput and latency with the workload of Sluice's {@code bench}) or
 * {@code route} (one event per given routing key, for comparing where clients route keys) against any controller
 * URI, in its own JVM with its own class path. See {@link Options#USAGE} and compat/README.md.
 *
 * <p>Prints exactly one JSON line on stdout at the end (also when the watchdog ends a run that overran
 * {@code --timeout-seconds}); everything else goes to stderr. Exit code 0 only if every check passed.
 */
public final class Driver {
    static {
        // slf4j-simple reads these once, when the first logger is made: set defaults the caller may override
        setDefault("org.slf4j.simpleLogger.logFile", "System.err");
        setDefault("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        setDefault("org.slf4j.simpleLogger.log.io.sluice", "info");
        setDefault("org.slf4j.simpleLogger.showDateTime", "true");
        setDefault("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        setDefault("org.slf4j.simpleLogger.showShortLogName", "true");
    }

    static final Logger LOG = LoggerFactory.getLogger(Driver.class);

    /** Exit code when every check passed. */
    static final int EXIT_OK = 0;
    /** Exit code when a check failed or the run failed. */
    static final int EXIT_FAILED = 1;
    /** Exit code for a bad command line. */
    static final int EXIT_USAGE = 2;
    /** Exit code when the watchdog ended the run. */
    static final int EXIT_TIMEOUT = 3;

    private static final int CONNECT_TIMEOUT_MS = 10_000;
    private static final AtomicBoolean EMITTED = new AtomicBoolean();
    private static final PrintStream STDOUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    /**
     * Heap held back for the watchdog: it lets go of it before reporting, so the JSON line still gets written when
     * the client has filled the heap.
     */
    private static volatile byte[] watchdogReserve = new byte[8 * 1024 * 1024];

    private Driver() {
    }

    /**
     * Runs the driver and exits the JVM.
     *
     * @param args the mode and options, see {@link Options#USAGE}
     */
    public static void main(String[] args) {
        long start = System.nanoTime();
        Options options;
        try {
            options = Options.parse(args);
        } catch (Options.UsageException e) {
            if (e.getMessage().equals("help")) {
                STDOUT.println(Options.USAGE);
                System.exit(EXIT_OK);
            }
            System.err.println("official-client driver: " + e.getMessage());
            System.err.println(Options.USAGE);
            Report report = new Report();
            report.put("error", "usage: " + e.getMessage());
            emit(report, EXIT_USAGE);
            return;
        }

        Report report = new Report();
        report.put("mode", options.mode());
        report.put("client", "io.pravega:pravega-client");
        report.put("version", clientVersion());
        report.put("jdk", System.getProperty("java.version"));
        report.put("controller", options.controller().toString());
        report.put("scope", options.scope());

        ClientConfig config = ClientConfig.builder().controllerURI(options.controller()).build();
        Run run = new Run(options, config, start);
        startWatchdog(run, report);

        boolean ok;
        try {
            requireReachable(run);
            ok = switch (options.mode()) {
                case "verify" -> verify(run, report);
                case "route" -> RoutePart.run(run, report);
                case "txn-interop" -> TxnInteropPart.run(run, report);
                case "watermarks" -> WatermarkPart.run(run, report);
                case "large-events" -> LargeEventPart.run(run, report);
                case "bytestream-interop" -> ByteStreamInteropPart.run(run, report);
                case "kvt-interop" -> KvtInteropPart.run(run, report);
                case "batch-read" -> BatchInteropPart.run(run, report);
                case "sync-interop" -> SyncInteropPart.run(run, report);
                case "autoscale" -> AutoScalePart.run(run, report);
                case "retention" -> RetentionInteropPart.run(run, report);
                default -> bench(run, report);
            };
        } catch (Throwable t) {
            LOG.error("run failed in phase '{}'", run.phase(), t);
            report.put("error", "in phase '" + run.phase() + "': " + Part.describe(t));
            ok = false;
        }
        report.put("total_ms", (System.nanoTime() - start) / 1_000_000);
        report.put("ok", ok);
        LOG.info("done in {} ms: {}", (System.nanoTime() - start) / 1_000_000, ok ? "ok" : "FAILED");
        emit(report, ok ? EXIT_OK : EXIT_FAILED);
    }

    /**
     * Fails fast, with a clear message, when nothing listens at the controller's address: the official client
     * would otherwise retry its first call for minutes.
     */
    private static void requireReachable(Run run) throws IOException {
        URI uri = run.options.controller();
        run.phase("connecting to " + uri);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), CONNECT_TIMEOUT_MS);
        } catch (IOException e) {
            throw new IOException("nothing accepts connections at the controller " + uri + " (" + e.getMessage()
                    + ")", e);
        }
    }

    private static boolean verify(Run run, Report report) {
        Options o = run.options;
        boolean ok = true;
        try (StreamManager streamManager = StreamManager.create(run.config)) {
            long t0 = System.nanoTime();
            createScope(run, report, streamManager);
            report.put("scope_ms", (System.nanoTime() - t0) / 1_000_000);
            for (String name : o.parts()) {
                Part part = new Part(name);
                report.put(name, part);
                part.start();
                try {
                    switch (name) {
                        case "events" -> EventsPart.run(run, part, streamManager);
                        case "txn" -> TxnPart.run(run, part, streamManager);
                        case "kvt" -> KvtPart.run(run, part);
                        case "bytestream" -> ByteStreamPart.run(run, part, streamManager);
                        case "synchronizer" -> SynchronizerPart.run(run, part, streamManager);
                        default -> throw new IllegalArgumentException("unknown part " + name);
                    }
                } catch (Throwable t) {
                    part.error(t);
                } finally {
                    part.finish();
                }
                LOG.info("{}: {}", name, part.ok() ? "ok" : "FAILED");
                ok &= part.ok();
            }
        }
        if (!o.keep()) {
            ok &= cleanup(run, report);
        }
        return ok;
    }

    private static boolean bench(Run run, Report report) throws Exception {
        Options o = run.options;
        boolean ok;
        try (StreamManager streamManager = StreamManager.create(run.config)) {
            createScope(run, report, streamManager);
            ok = Bench.run(run, report, streamManager);
        }
        if (!o.keep()) {
            ok &= cleanup(run, report);
        }
        return ok;
    }

    /** Creates the run's scope; an existing one (given with --scope) is used as it is and kept at cleanup. */
    private static void createScope(Run run, Report report, StreamManager streamManager) {
        Options o = run.options;
        run.phase("creating scope " + o.scope() + " at " + o.controller());
        if (!streamManager.createScope(o.scope())) {
            LOG.info("scope {} exists already: using it, and keeping it at cleanup", o.scope());
            report.put("scope_existed", true);
            run.keepScope();
        }
    }

    private static boolean cleanup(Run run, Report report) {
        Part part = new Part("cleanup");
        report.put("cleanup", part);
        part.start();
        run.phase("cleanup: deleting what the run created");
        try {
            run.cleanup(part);
        } catch (Throwable t) {
            part.error(t);
        } finally {
            part.finish();
        }
        return part.ok();
    }

    /** Prints the report once (the first caller wins) and exits with {@code code}; the loser never returns. */
    private static void emit(Report report, int code) {
        emit(report, code, code == EXIT_TIMEOUT);
    }

    /** As {@link #emit(Report, int)}; with {@code halt}, ends the JVM without running shutdown hooks. */
    private static void emit(Report report, int code, boolean halt) {
        if (EMITTED.compareAndSet(false, true)) {
            STDOUT.println(report.toJson());
            STDOUT.flush();
            System.err.flush();
            // The official client keeps non-daemon threads; exit explicitly. halt() for the watchdog, whose
            // run may be stuck in a shutdown hook's way.
            if (halt) {
                Runtime.getRuntime().halt(code);
            }
            System.exit(code);
        }
        // the other party is printing and exiting; wait for it
        while (true) {
            try {
                TimeUnit.SECONDS.sleep(60);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void startWatchdog(Run run, Report report) {
        Thread watchdog = new Thread(() -> {
            String abortReason;
            try {
                abortReason = run.awaitDeadlineOrAbort();
            } catch (InterruptedException e) {
                return;
            }
            watchdogReserve = null;
            String phase = run.phase();
            if (abortReason != null) {
                try {
                    LOG.error("run aborted in phase '{}': {}", phase, abortReason);
                } catch (Throwable t) {
                    System.err.println("watchdog: run aborted: " + abortReason);
                }
                report.put("ok", false);
                report.put("error", "aborted in phase '" + phase + "': " + abortReason);
                emit(report, EXIT_FAILED, true);
                return;
            }
            try {
                LOG.error("timed out after {} s in phase '{}'; thread dump follows", run.options.timeoutSeconds(),
                        phase);
                dumpThreads();
            } catch (Throwable t) {
                // e.g. OutOfMemoryError when the client filled the heap (bench --writers with many writers):
                // the JSON line and the exit matter more than the dump
                System.err.println("watchdog: no thread dump: " + t);
            }
            report.put("ok", false);
            report.put("error", "timed out after " + run.options.timeoutSeconds() + " s in phase '" + phase + "'");
            report.put("timed_out", true);
            emit(report, EXIT_TIMEOUT);
        }, "watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    private static void dumpThreads() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            Thread t = e.getKey();
            sb.append('"').append(t.getName()).append("\" ").append(t.getState()).append('\n');
            for (StackTraceElement frame : e.getValue()) {
                sb.append("    at ").append(frame).append('\n');
            }
        }
        System.err.print(sb);
    }

    private static String clientVersion() {
        Package p = ClientConfig.class.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        return v == null ? "0.13.0" : v;
    }

    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
