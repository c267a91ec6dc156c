package io.sluice.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import io.sluice.server.EmbeddedServer;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code sluice server}: runs the embedded Pravega-compatible server until Ctrl-C. */
@Command(name = "server", mixinStandardHelpOptions = true, subcommands = ServerCommand.PasswordEntry.class,
        description = {
            "Runs a single-node, Pravega-compatible server: a segment store (Pravega's wire protocol) and a controller",
            "(Pravega's gRPC API). Pravega clients — Sluice's and the official Java client — connect to the controller.",
            "It prints where it listens once it is ready, and stops cleanly on Ctrl-C (SIGINT) or SIGTERM.",
            "With --data-dir, every acknowledged write is on disk (fsync) and survives restarts and crashes;",
            "--in-memory (the default) keeps nothing. With --standby it waits until the server holding --data-dir",
            "stops or dies, then takes the directory over."})
final class ServerCommand implements Callable<Integer> {
    /** Set by picocli; null when {@link #runQuick} filled the options. */
    @Spec
    private CommandSpec spec;

    /** Standard output when {@link #runQuick} runs the command. */
    private PrintWriter quickOut;

    static final class Storage {
        @Option(names = "--data-dir", paramLabel = "DIR", description = "keep data durably in DIR (created if missing)")
        Path dataDir;

        @Option(names = "--in-memory", description = "keep everything in memory (the default)")
        boolean inMemory;
    }

    @ArgGroup(exclusive = true)
    private Storage storage = new Storage();

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "address to listen on (default: ${DEFAULT-VALUE})")
    private String host;

    @Option(names = "--advertised-host", paramLabel = "HOST",
            description = "host name or address clients are told to connect to (the controller's getURI answer for "
                    + "the segment store, and the printed controller URI); default: the --host address, or, when "
                    + "--host is a wildcard such as 0.0.0.0, this machine's address (as Pravega's "
                    + "published.host.nameOrIp; 127.0.0.1 if the machine's name does not resolve)")
    private String advertisedHost;

    @Option(names = "--controller-port", defaultValue = "9090", converter = PortConverter.class,
            description = "controller (gRPC) port; 0 for any free port (default: ${DEFAULT-VALUE})")
    private int controllerPort;

    @Option(names = "--segment-store-port", defaultValue = "12345", converter = PortConverter.class,
            description = "segment store port; 0 for any free port (default: ${DEFAULT-VALUE})")
    private int segmentStorePort;

    @Option(names = "--containers", defaultValue = "1", description = "segment containers, each with its own write log (default: ${DEFAULT-VALUE}); fixed for a data directory")
    private int containers;

    @Option(names = "--no-fsync", description = "acknowledge writes once the OS has them, without fsync (survives a server crash, not a machine crash)")
    private boolean noFsync;

    @Option(names = "--standby",
            description = "be a standby for the server that holds --data-dir: wait (trying its locks every 100 ms) "
                    + "until that server stops or dies, then recover the directory, listen and serve; clients given "
                    + "both controllers (tcp://h:p1,h:p2) move over by themselves. Without it, a second server on a "
                    + "directory in use fails at once")
    private boolean standby;

    @Option(names = "--snapshot-after", paramLabel = "BYTES", defaultValue = "67108864",
            description = "write-log bytes after which a container snapshots its state (default: ${DEFAULT-VALUE})")
    private long snapshotAfter;

    @Option(names = "--watermark-interval", paramLabel = "MILLIS", defaultValue = "10000",
            description = "how often the controller computes watermarks from writers' noted times, in ms; 0 turns it "
                    + "off (default: ${DEFAULT-VALUE}, as Pravega's controller)")
    private long watermarkIntervalMillis;

    @Option(names = "--scale-window", paramLabel = "DURATION", defaultValue = "10m",
            converter = ControllerOptions.DurationConverter.class,
            description = "auto-scaling's window: the cool-down after a segment is created, the pause between two scale"
                    + " requests for a segment and the longest rate window; Pravega's other windows scale with it "
                    + "(e.g. 5s for a demo; default: ${DEFAULT-VALUE}, as Pravega)")
    private java.time.Duration scaleWindow;

    @Option(names = "--retention-interval", paramLabel = "DURATION", defaultValue = "30m",
            converter = ControllerOptions.DurationConverter.class,
            description = "how often the controller enforces retention policies and consumption-based retention "
                    + "(e.g. 10s, 5m); 0s turns it off (default: ${DEFAULT-VALUE}, as Pravega's controller)")
    private java.time.Duration retentionInterval;

    @Option(names = "--max-inflight-bytes", paramLabel = "BYTES", defaultValue = "67108864",
            description = "append bytes a segment-store connection may have waiting to become durable before the "
                    + "server stops reading from it (backpressure; default: ${DEFAULT-VALUE})")
    private int maxInflightBytes;

    @Option(names = "--max-queued-reply-bytes", paramLabel = "BYTES", defaultValue = "16777216",
            description = "reply bytes queued for a connection that does not read them before the server stops "
                    + "reading its requests (backpressure; default: ${DEFAULT-VALUE})")
    private int maxQueuedReplyBytes;

    @Option(names = "--max-frame-before-auth", paramLabel = "BYTES", defaultValue = "1048576",
            description = "with --auth, the largest frame a connection may send before one of its requests carried "
                    + "a valid delegation token (default: ${DEFAULT-VALUE})")
    private int maxFrameBeforeAuth;

    @Option(names = "--auth", paramLabel = "PASSWORD_FILE",
            description = "require Basic credentials from PASSWORD_FILE (UTF-8, lines "
                    + "user:pbkdf2-sha256$iterations$salt$hash:acl; at least one user) and delegation tokens on the "
                    + "segment store; the file is read again when it changes, so removing a user or their rights "
                    + "takes effect at their next token request")
    private Path passwordFile;

    @Option(names = "--token-lifetime", paramLabel = "DURATION", defaultValue = "10m",
            converter = ControllerOptions.DurationConverter.class,
            description = "with --auth, how long the delegation tokens the controller hands out stay valid (whole "
                    + "seconds, at least 1s; e.g. 30s, 5m); clients fetch new ones before they expire, and a user "
                    + "removed from the password file keeps access through the tokens they hold for at most this "
                    + "long (default: ${DEFAULT-VALUE}, as Pravega's controller)")
    private java.time.Duration tokenLifetime;

    @Option(names = "--metrics-port", paramLabel = "PORT", converter = PortConverter.class,
            description = "serve the server's metrics in Prometheus' text format at http://HOST:PORT/metrics "
                    + "(needs Micrometer's Prometheus registry, in target/lib; 0 for any free port)")
    private Integer metricsPort;

    @Option(names = "--ready-file", paramLabel = "FILE", description = "once ready, write the controller URI to FILE (for scripts)")
    private Path readyFile;

    @Option(names = "--tls-cert", paramLabel = "PEM", description = "serve TLS on both ports with this certificate chain (needs --tls-key)")
    private Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "PEM", description = "the certificate's unencrypted PKCS#8 private key (BEGIN PRIVATE KEY)")
    private Path tlsKey;

    @Option(names = {"-v", "--verbose"},
            description = "log the server's progress (INFO) and print the stack trace of a failure")
    private boolean verbose;

    @Option(names = "--json", description = "print the ready line as one JSON object (controller, segmentStore, "
            + "advertisedHost, metrics, dataDir, readyMillis) instead of text, for scripts")
    private boolean json;

    /** Reads a TCP port: 0 to 65535 (a usage error otherwise). */
    static final class PortConverter implements picocli.CommandLine.ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            try {
                return port(value);
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /**
     * @return {@code value} as a TCP port, 0 to 65535
     * @throws IllegalArgumentException naming what is wrong
     */
    static int port(String value) {
        int port;
        try {
            port = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + value + "' is not a port number");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(port + " is not a port: ports are 0 (any free port) to 65535");
        }
        return port;
    }

    /**
     * The system property that keeps (shaded) Netty from loading its native epoll transport: the controller's gRPC
     * listener then uses Java's NIO. Loading epoll unpacks a shared library from the jar into a temporary file first,
     * some 40-70 ms of the server's start; the controller's few calls do not need epoll (segment data does not go
     * through gRPC).
     */
    static final String NETTY_NO_NATIVE_PROPERTY = "io.grpc.netty.shaded.io.netty.transport.noNative";

    /**
     * Runs {@code sluice server ARGS} without picocli's model when {@link QuickOptions} understands the line (the
     * start-up time of the server, docs/benchmarks.md), reporting a failure the way {@code Main} does.
     *
     * @param args the arguments after {@code server}
     * @param out standard output
     * @param err standard error
     * @return the exit status, or null if picocli must run the line (help, a mistake, a subcommand...)
     */
    static Integer runQuick(String[] args, PrintWriter out, PrintWriter err) {
        ServerCommand command = quickParse(args);
        if (command == null) {
            return null;
        }
        command.quickOut = out;
        try {
            return command.call();
        } catch (NotQuick e) {
            return null; // a usage error: picocli parses the line again and reports it
        } catch (Exception e) {
            err.println("sluice server: " + Main.describe(e));
            if (command.verbose) {
                e.printStackTrace(err);
            }
            err.flush();
            return ConnectedCommand.FAILED;
        }
    }

    /**
     * The options of a plain {@code sluice server} line, set without picocli ({@link #runQuick}): the same names,
     * defaults and conversions as the {@code @Option}s above (QuickOptionsTest compares the two on many lines).
     */
    private final class Quick implements QuickOptions.Target {
        Quick() {
            host = "127.0.0.1";
            controllerPort = 9090;
            segmentStorePort = 12345;
            containers = 1;
            snapshotAfter = 67108864;
            watermarkIntervalMillis = 10000;
            scaleWindow = java.time.Duration.ofMinutes(10);
            retentionInterval = java.time.Duration.ofMinutes(30);
            tokenLifetime = java.time.Duration.ofMinutes(10);
            maxInflightBytes = 67108864;
            maxQueuedReplyBytes = 16777216;
            maxFrameBeforeAuth = 1048576;
        }

        @Override
        public Boolean isFlag(String name) {
            return switch (name) {
                case "--in-memory", "--no-fsync", "--standby", "-v", "--verbose", "--json" -> true;
                case "--data-dir", "--host", "--advertised-host", "--controller-port", "--segment-store-port",
                     "--containers", "--snapshot-after", "--watermark-interval", "--scale-window",
                     "--retention-interval", "--max-inflight-bytes", "--max-queued-reply-bytes",
                     "--max-frame-before-auth", "--auth", "--token-lifetime", "--ready-file", "--tls-cert",
                     "--tls-key", "--metrics-port" -> false;
                default -> null;
            };
        }

        @Override
        public String canonical(String name) {
            // one exclusive group: a second storage option is picocli's to report
            return name.equals("-v") ? "--verbose" : name.equals("--in-memory") ? "--data-dir" : name;
        }

        @Override
        public void flag(String name) {
            switch (name) {
                case "--in-memory" -> storage.inMemory = true;
                case "--no-fsync" -> noFsync = true;
                case "--standby" -> standby = true;
                case "--json" -> json = true;
                default -> verbose = true;
            }
        }

        @Override
        public void value(String name, String v) {
            switch (name) {
                case "--data-dir" -> storage.dataDir = Path.of(v);
                case "--host" -> host = v;
                case "--advertised-host" -> advertisedHost = v;
                case "--controller-port" -> controllerPort = port(v);
                case "--segment-store-port" -> segmentStorePort = port(v);
                case "--containers" -> containers = Integer.parseInt(v);
                case "--snapshot-after" -> snapshotAfter = Long.parseLong(v);
                case "--watermark-interval" -> watermarkIntervalMillis = Long.parseLong(v);
                case "--scale-window" -> scaleWindow = Formats.parseDuration(v);
                case "--retention-interval" -> retentionInterval = Formats.parseDuration(v);
                case "--max-inflight-bytes" -> maxInflightBytes = Integer.parseInt(v);
                case "--max-queued-reply-bytes" -> maxQueuedReplyBytes = Integer.parseInt(v);
                case "--max-frame-before-auth" -> maxFrameBeforeAuth = Integer.parseInt(v);
                case "--auth" -> passwordFile = Path.of(v);
                case "--token-lifetime" -> tokenLifetime = Formats.parseDuration(v);
                case "--ready-file" -> readyFile = Path.of(v);
                case "--metrics-port" -> metricsPort = port(v);
                case "--tls-cert" -> tlsCert = Path.of(v);
                case "--tls-key" -> tlsKey = Path.of(v);
                default -> throw new IllegalArgumentException(name);
            }
        }
    }

    /**
     * @param args the arguments after {@code server}
     * @return the command with its options set from {@code args} without picocli, or null if picocli must parse them
     */
    static ServerCommand quickParse(String[] args) {
        ServerCommand command = new ServerCommand();
        return QuickOptions.parse(args, command.new Quick()) ? command : null;
    }

    /** A usage mistake found after the quick parse, which picocli then reports. */
    private static final class NotQuick extends RuntimeException {
        NotQuick() {
            super(null, null, false, false);
        }
    }

    private RuntimeException usage(String message) {
        // through another class, so that loading this one for the quick path loads none of picocli's classes
        return spec == null ? new NotQuick() : Main.parameterError(spec, message);
    }

    /** @return whether Micrometer and its Prometheus registry can be loaded (without loading them) */
    private static boolean micrometerPresent() {
        ClassLoader loader = ServerCommand.class.getClassLoader();
        try {
            Class.forName("io.micrometer.core.instrument.MeterRegistry", false, loader);
            Class.forName("io.micrometer.prometheusmetrics.PrometheusMeterRegistry", false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private PrintWriter out() {
        return spec == null ? quickOut : spec.commandLine().getOut();
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (System.getProperty(NETTY_NO_NATIVE_PROPERTY) == null) {
            // before anything initialises Netty; -D...=false in SLUICE_JAVA_OPTS keeps epoll
            System.setProperty(NETTY_NO_NATIVE_PROPERTY, "true");
        }
        PrintWriter out = out();
        EmbeddedServer.Builder b = EmbeddedServer.builder().host(host).controllerPort(controllerPort)
                .segmentStorePort(segmentStorePort).containers(containers).fsync(!noFsync).snapshotAfterBytes(snapshotAfter);
        try {
            b.limits(new io.sluice.server.ServerLimits(maxInflightBytes, maxQueuedReplyBytes, maxFrameBeforeAuth));
            b.watermarkInterval(java.time.Duration.ofMillis(watermarkIntervalMillis));
            if (advertisedHost != null) {
                b.advertisedHost(advertisedHost);
            }
            b.scaleWindow(scaleWindow);
            b.retentionInterval(retentionInterval);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        try {
            b.tokenLifetime(tokenLifetime);
        } catch (IllegalArgumentException e) {
            throw usage("--token-lifetime: " + e.getMessage());
        }
        if (storage.dataDir != null) {
            b.dataDir(storage.dataDir);
        }
        if (standby) {
            if (storage.dataDir == null) {
                throw usage("--standby needs --data-dir: a standby waits to take over the directory another server "
                        + "holds");
            }
            b.standby(true);
        }
        if (passwordFile != null) {
            b.passwordFile(passwordFile);
        }
        if ((tlsCert == null) != (tlsKey == null)) {
            throw usage("--tls-cert and --tls-key go together");
        }
        if (tlsCert != null) {
            b.tls(new io.sluice.server.ServerTls(tlsCert, tlsKey));
        }
        PrometheusEndpoint metrics = null;
        if (metricsPort != null) {
            if (!micrometerPresent()) {
                throw new IllegalStateException("--metrics-port needs Micrometer's Prometheus registry "
                        + "(io.micrometer:micrometer-registry-prometheus and micrometer-core) on the class path, as in "
                        + "target/lib after mvn package");
            }
            // bound before the server starts: a port in use fails before any recovery
            metrics = PrometheusEndpoint.start(host, metricsPort, b);
        }
        if (standby && json) {
            Map<String, Object> waiting = new LinkedHashMap<>();
            waiting.put("standby", true);
            waiting.put("dataDir", storage.dataDir.toAbsolutePath().toString());
            out.println(JsonWriter.write(waiting));
            out.flush();
        } else if (standby) {
            out.println("Sluice server standby on " + storage.dataDir.toAbsolutePath()
                    + ": waiting until no other server holds it");
            out.flush();
        }
        long started = System.nanoTime();
        EmbeddedServer server;
        try {
            server = b.build();
        } catch (RuntimeException e) {
            if (metrics != null) {
                metrics.close();
            }
            throw e;
        }
        PrometheusEndpoint endpoint = metrics;
        long readyMillis = (System.nanoTime() - started) / 1_000_000;
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            if (endpoint != null) {
                endpoint.close();
            }
            server.close();
            stopped.countDown();
        }, "sluice-server-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        if (json) {
            Map<String, Object> ready = new LinkedHashMap<>();
            ready.put("ready", true);
            ready.put("readyMillis", readyMillis);
            ready.put("controller", server.controllerUri());
            ready.put("segmentStore", server.segmentStoreEndpoint().toString());
            ready.put("advertisedHost", server.advertisedHost());
            ready.put("metrics", endpoint == null ? null : endpoint.url());
            ready.put("dataDir", storage.dataDir == null ? null : storage.dataDir.toAbsolutePath().toString());
            out.println(JsonWriter.write(ready));
            out.flush();
            writeReadyFile(server);
            stopped.await();
            return 0;
        }
        out.println("Sluice server ready in " + readyMillis + " ms");
        out.println("  controller:    " + server.controllerUri());
        out.println("  segment store: " + server.segmentStoreEndpoint());
        if (!server.advertisedHost().equals(host)) {
            out.println("  advertised:    " + server.advertisedHost());
        }
        if (endpoint != null) {
            out.println("  metrics:       " + endpoint.url());
        }
        out.println("  data:          " + (storage.dataDir == null ? "in memory (nothing is kept)" : storage.dataDir.toAbsolutePath()));
        out.println("Press Ctrl-C to stop.");
        out.flush();
        writeReadyFile(server);
        stopped.await();
        return 0;
    }

    /** Writes the controller URI to {@code --ready-file}, if given, atomically: a script sees it whole or not at all. */
    private void writeReadyFile(EmbeddedServer server) throws IOException {
        if (readyFile != null) {
            Path tmp = readyFile.resolveSibling(readyFile.getFileName() + ".tmp");
            Files.writeString(tmp, server.controllerUri() + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, readyFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * Whether the process's console is a terminal someone types at. JDK 21 has a console only then; JDK 22 and later
     * have one always and say so with {@code Console.isTerminal()}, looked up here since the build targets 21.
     */
    static boolean interactive(java.io.Console console) {
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
        } catch (NoSuchMethodException e) {
            return true;
        } catch (ReflectiveOperationException | ClassCastException e) {
            return false;
        }
    }

    /** {@code sluice server password-entry USER --acl ACL}: prints a password-file line. */
    @Command(name = "password-entry", mixinStandardHelpOptions = true,
            description = {"Prints a line for the --auth password file: user:pbkdf2-sha256$iterations$salt$hash:acl.",
                "The password is read from standard input (one line; typed at a terminal, without echo). ACL: pattern=LEVEL;... with LEVEL READ or",
                "READ_UPDATE, patterns * / scope/* scope/stream or Pravega's prn::* prn::/ prn::/scope:S/stream:X."})
    static final class PasswordEntry implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @picocli.CommandLine.Parameters(paramLabel = "USER", description = "the user name")
        private String user;

        @Option(names = "--acl", required = true, description = "what the user may do")
        private String acl;

        @Option(names = {"-v", "--verbose"}, description = "print the stack trace of a failure")
        private boolean verbose;

        @Override
        public Integer call() throws IOException {
            // the arguments before the password: a mistake is reported before anyone types a secret
            try {
                io.sluice.server.controller.PasswordFile.entry(user, "-".toCharArray(), acl, 1);
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
            }
            InputStream in = ((Main) spec.root().userObject()).stdin();
            java.io.Console console = System.console();
            String password;
            if (in == System.in && interactive(console)) {
                // typed at a terminal: without echo, as passwd does
                char[] typed = console.readPassword("Password for %s: ", user);
                password = typed == null ? null : new String(typed);
            } else {
                password = new java.io.BufferedReader(new java.io.InputStreamReader(in, StandardCharsets.UTF_8)).readLine();
            }
            if (password == null || password.isEmpty()) {
                spec.commandLine().getErr().println("sluice server password-entry: no password on standard input");
                return 1;
            }
            spec.commandLine().getOut().println(io.sluice.server.controller.PasswordFile.entry(user, password.toCharArray(), acl));
            return 0;
        }
    }
}
