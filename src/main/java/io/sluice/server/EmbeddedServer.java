package io.sluice.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.HandlerRegistry;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.sluice.common.Endpoint;
import io.sluice.common.ServerMetrics;
import io.sluice.common.Threads;
import io.sluice.errors.AuthenticationException;
import io.sluice.errors.AuthorizationException;
import io.sluice.errors.TokenExpiredException;
import io.sluice.server.auth.AccessLevel;
import io.sluice.server.auth.DelegationTokens;
import io.sluice.server.controller.ControllerSettings;
import io.sluice.server.controller.EmbeddedControllerService;
import io.sluice.server.controller.PasswordFile;
import io.sluice.server.controller.ReloadingPasswordFile;
import io.sluice.wire.AuthTokenCheckFailed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node, Pravega-compatible server in this process: a segment store speaking Pravega's wire protocol and a
 * controller speaking its gRPC API. Pravega clients (Sluice's and the official one) connect to
 * {@link #controllerUri()}.
 *
 * <pre>{@code
 * try (EmbeddedServer server = EmbeddedServer.builder().inMemory().build();
 *      SluiceClient client = SluiceClient.connect(server.controllerUri())) {
 *     ...
 * }
 * }</pre>
 *
 * Binds loopback by default; port 0 picks free ports. Thread-safe; {@link #close()} stops everything.
 */
public final class EmbeddedServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedServer.class);
    /** A standby's default lock poll, in milliseconds. */
    public static final long DEFAULT_STANDBY_POLL_MILLIS = 100;
    /** A standby's default lock poll ({@link Builder#standbyPoll}). */
    public static final Duration DEFAULT_STANDBY_POLL = Duration.ofMillis(DEFAULT_STANDBY_POLL_MILLIS);

    private final SegmentStore store;
    private final SegmentStoreServer segmentStoreServer;
    private final EmbeddedControllerService controller;
    private final Server grpc;
    private final ExecutorService grpcExecutor;
    private final Endpoint controllerEndpoint;
    private final String advertisedHost;
    private final AutoCloseable storage;
    private final io.sluice.server.controller.ScaleRequestListener autoScaler;
    private final SegmentRateTracker scaleRates;
    private boolean tlsOn;

    private EmbeddedServer(Builder b) throws IOException {
        long started = System.nanoTime();
        // building the controller API's protobuf descriptors takes a few hundred ms on a cold JVM: do it on the
        // other core while the listeners start
        Thread warmUp = warmUp();
        // the configuration's files first: a bad certificate or password file fails before any recovery or bind
        SSLContext ssl = b.tls == null ? null : b.tls.sslContext();
        ReloadingPasswordFile users = b.passwordFile == null ? null : loadPasswordFile(b.passwordFile);
        // typed by our own interface: Micrometer's classes load only when a registry was given
        ServerMetrics metrics = b.meterRegistry == null ? ServerMetrics.NONE
                : MicrometerServerMetrics.over(b.meterRegistry);
        StoreAndStorage opened = b.dataDir == null ? new StoreAndStorage(SegmentStore.inMemory(b.containers), null)
                : openDataDir(b, metrics);
        this.store = opened.store();
        this.storage = opened.storage();
        DelegationTokens tokens = b.passwordFile == null ? null : b.tokens != null ? b.tokens
                : new DelegationTokens(DelegationTokens.randomSecret(), b.tokenLifetime, java.time.Clock.systemUTC());
        TokenVerifier verifier = tokens == null ? TokenVerifier.ACCEPT_ALL : verifierOf(tokens);
        try {
            // the gRPC listener starts on another thread while the segment store's listener comes up here
            DeferredRegistry registry = new DeferredRegistry();
            this.grpcExecutor = Threads.perTaskExecutor("sluice-controller-");
            NettyServerBuilder nb = NettyServerBuilder.forAddress(new InetSocketAddress(b.host, b.controllerPort))
                    .executor(grpcExecutor)
                    .fallbackHandlerRegistry(registry);
            if (b.tls != null) {
                nb.useTransportSecurity(b.tls.certificateChain().toFile(), b.tls.privateKey().toFile());
            }
            this.tlsOn = b.tls != null;
            java.util.concurrent.CompletableFuture<Server> grpcStarted = new java.util.concurrent.CompletableFuture<>();
            Threads.startVirtual("sluice-controller-start", () -> {
                try {
                    grpcStarted.complete(nb.build().start());
                } catch (IOException | RuntimeException e) {
                    grpcStarted.completeExceptionally(e);
                }
            });
            try {
                this.segmentStoreServer = new SegmentStoreServer(store,
                        new InetSocketAddress(b.host, b.segmentStorePort), ssl, verifier, b.limits, metrics);
            } catch (IOException | RuntimeException e) {
                // the controller's listener may be up by now: it must not outlive the failed start
                grpcStarted.thenAccept(Server::shutdownNow);
                throw bindFailure("segment store", b.host, b.segmentStorePort, e);
            }
            try {
                this.grpc = grpcStarted.join();
            } catch (java.util.concurrent.CompletionException e) {
                segmentStoreServer.close();
                throw bindFailure("controller", b.host, b.controllerPort, e.getCause());
            }
            this.controllerEndpoint = new Endpoint(b.host, grpc.getPort());
            this.advertisedHost = b.advertisedHost != null ? b.advertisedHost : AdvertisedHost.defaultFor(b.host);
            Endpoint ss = new Endpoint(advertisedHost, segmentStoreServer.endpoint().port());
            joinQuietly(warmUp);
            ControllerSettings settings = ControllerSettings.defaults(ss, new Endpoint(advertisedHost, grpc.getPort()))
                    .withWatermarkInterval(b.watermarkInterval);
            if (b.minLease != null) {
                settings = settings.withLeases(b.minLease, settings.maxLease())
                        .withLeaseCheckInterval(b.leaseCheckInterval);
            }
            EmbeddedControllerService.Builder cb = EmbeddedControllerService.builder(store, settings);
            if (b.retentionInterval != null) {
                cb.retentionInterval(b.retentionInterval);
            }
            if (b.passwordFile != null) {
                cb.auth(users, tokens);
            }
            if (opened.controllerStore() != null) {
                cb.store(opened.controllerStore());
            }
            this.controller = cb.build();
            this.autoScaler = controller.autoScaler(b.scaleWindow, System::currentTimeMillis);
            this.scaleRates = SegmentRateTracker.start(store, b.scaleWindow, autoScaler);
            registry.service = controller.serviceDefinition();
            if (b.meterRegistry != null) {
                MicrometerServerMetrics.gauges(b.meterRegistry, store, segmentStoreServer);
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly(opened.storage());
            throw e;
        }
        LOG.info("Sluice server ready in {} ms: controller {}, segment store {}{}", (System.nanoTime() - started) / 1_000_000,
                controllerUri(), segmentStoreServer.endpoint(), b.dataDir == null ? " (in memory)" : " (data in " + b.dataDir + ")");
    }

    /** Opens the data directory, naming it in the failure. */
    private static StoreAndStorage openDataDir(Builder b, ServerMetrics metrics) throws IOException {
        try {
            return DurableSegmentStore.open(b.dataDir, b.containers, b.fsync, b.snapshotAfterBytes, b.storageFiles,
                    b.standby ? b.standbyPoll : null, metrics);
        } catch (IOException e) {
            throw new IOException("data directory " + b.dataDir + " cannot be used: " + IoErrors.describe(e), e);
        } catch (java.io.UncheckedIOException e) {
            throw new IOException("data directory " + b.dataDir + " cannot be used: "
                    + IoErrors.describe(e.getCause()), e.getCause());
        }
    }

    /**
     * Reads the password file, naming the file and what is wrong with it.
     *
     * @throws IOException if it cannot be read
     * @throws IllegalArgumentException if it is not UTF-8, holds a malformed line, or defines no user (a server
     *     nobody could use is refused rather than started)
     */
    static ReloadingPasswordFile loadPasswordFile(Path file) throws IOException {
        ReloadingPasswordFile users;
        try {
            users = new ReloadingPasswordFile(file);
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new IllegalArgumentException("password file " + file + " is not UTF-8 text", e);
        } catch (IOException e) {
            throw new IOException("cannot read the password file: " + IoErrors.describe(e), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
        if (users.get().size() == 0) {
            throw new IllegalArgumentException("password file " + file + " defines no user, so nobody could use the "
                    + "server: add a line made by 'sluice server password-entry USER --acl ACL' (or "
                    + "PasswordFile.entry)");
        }
        return users;
    }

    /** @return a failure to listen on {@code host:port}, in words that say which listener and why */
    private static IOException bindFailure(String listener, String host, int port, Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String why = root instanceof java.net.BindException && root.getMessage() != null ? root.getMessage()
                : root instanceof IOException io ? IoErrors.describe(io) : String.valueOf(root.getMessage());
        String hint = why.contains("in use") ? " (another server is listening there; choose another port or 0)" : "";
        String address = (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        return new IOException("cannot listen on " + address + " for the " + listener + ": " + why
                + hint, e);
    }

    /** Starts initialising the controller API's classes in the background (see the constructor). */
    static Thread warmUp() {
        return Threads.startVirtual("sluice-warm-up", () -> {
            io.sluice.controller.grpc.v1.ControllerProto.getDescriptor();
            io.sluice.controller.grpc.v1.ControllerServiceGrpc.getServiceDescriptor();
        });
    }

    private static void joinQuietly(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static TokenVerifier verifierOf(DelegationTokens tokens) {
        return new TokenVerifier() {
            @Override
            public AuthTokenCheckFailed.ErrorCode check(String token, String segment, boolean write) {
                try {
                    tokens.check(token, segment, write ? AccessLevel.READ_UPDATE : AccessLevel.READ);
                    return null;
                } catch (TokenExpiredException e) {
                    return AuthTokenCheckFailed.ErrorCode.TOKEN_EXPIRED;
                } catch (AuthenticationException | AuthorizationException | IllegalArgumentException e) {
                    return AuthTokenCheckFailed.ErrorCode.TOKEN_CHECK_FAILED;
                }
            }

            @Override
            public java.util.function.BooleanSupplier expiry(String token) {
                DelegationTokens.Claims claims;
                try {
                    claims = tokens.verify(token);
                } catch (RuntimeException e) {
                    return () -> true;   // not valid (any more): the session it set up must not go on
                }
                return () -> tokens.expired(claims);
            }
        };
    }

    /** @return a builder: in memory, loopback, free ports */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * @return the controller's URI for clients, e.g. {@code tcp://127.0.0.1:9090} ({@code tls://} with TLS on): the
     *     {@linkplain #advertisedHost() advertised host} and the controller's port
     */
    public String controllerUri() {
        return (tlsOn ? "tls://" : "tcp://") + new Endpoint(advertisedHost, controllerEndpoint.port());
    }

    /**
     * @return the host clients are told to connect to (in the controller's {@code getURI} and
     *     {@code getControllerServerList} answers and {@link #controllerUri()}): {@link Builder#advertisedHost}, by
     *     default the listening host, or this machine's address when listening on a wildcard address
     */
    public String advertisedHost() {
        return advertisedHost;
    }

    /** @return where the controller listens */
    public Endpoint controllerEndpoint() {
        return controllerEndpoint;
    }

    /** @return where the segment store listens */
    public Endpoint segmentStoreEndpoint() {
        return segmentStoreServer.endpoint();
    }

    /** @return the segment store's data (for tests and tools) */
    public SegmentStore segmentStore() {
        return store;
    }

    /** @return the segment store's listener (for tests: e.g. dropping client connections) */
    public SegmentStoreServer segmentStoreServer() {
        return segmentStoreServer;
    }

    /** @return the controller service (for tests) */
    public EmbeddedControllerService controllerService() {
        return controller;
    }

    /** Stops both listeners, waits for running work, and closes the storage. Idempotent. */
    @Override
    public void close() {
        grpc.shutdownNow();
        segmentStoreServer.close();
        try {
            grpc.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        scaleRates.close();
        autoScaler.close();
        controller.close();
        grpcExecutor.shutdownNow();
        closeQuietly(storage);
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.warn("closing {} failed", c, e);
        }
    }

    /**
     * Serves the controller service once it exists: the gRPC server must be listening (to learn its port) before the
     * service, which announces that port, can be built. Until then calls fail as unimplemented.
     */
    private static final class DeferredRegistry extends HandlerRegistry {
        volatile ServerServiceDefinition service;

        @Override
        public ServerMethodDefinition<?, ?> lookupMethod(String methodName, String authority) {
            ServerServiceDefinition s = service;
            return s == null ? null : s.getMethod(methodName);
        }
    }

    /** What a segment store needs to run: the store, and the storage to close with it (null in memory). */
    record StoreAndStorage(SegmentStore store, AutoCloseable storage, io.sluice.server.controller.ControllerStore controllerStore) {
        StoreAndStorage(SegmentStore store, AutoCloseable storage) {
            this(store, storage, null);
        }
    }

    /** Configures an {@link EmbeddedServer}. Not thread-safe. */
    public static final class Builder {
        private Path dataDir;
        private boolean fsync = true;
        private String host = "127.0.0.1";
        private String advertisedHost;
        private int controllerPort;
        private int segmentStorePort;
        private int containers = 1;
        private Path passwordFile;
        private Duration tokenLifetime = DelegationTokens.DEFAULT_LIFETIME;
        private long snapshotAfterBytes = DurableSegmentStore.SNAPSHOT_AFTER_BYTES;
        private ServerTls tls;
        private ServerLimits limits = ServerLimits.DEFAULTS;
        private Duration watermarkInterval = ControllerSettings.DEFAULT_WATERMARK_INTERVAL;
        private Duration retentionInterval;
        private DelegationTokens tokens;
        private io.sluice.storage.FileOpener storageFiles = io.sluice.storage.FileOpener.DEFAULT;
        private Duration minLease;
        private Duration leaseCheckInterval;
        private Duration scaleWindow = SegmentRateTracker.PRAVEGA_WINDOW;
        private boolean standby;
        private Duration standbyPoll = DEFAULT_STANDBY_POLL;
        /** An io.micrometer.core.instrument.MeterRegistry, or null: typed Object so that Micrometer stays optional. */
        private Object meterRegistry;

        private Builder() {
        }

        /**
         * Makes this server a standby for the one serving its data directory: {@link #build()} then waits until no
         * other server (in this process or another) holds the directory's containers and controller metadata — the
         * other one stopped or died — instead of failing, taking each lock as soon as it is free (tried every
         * {@link #standbyPoll}), recovers, and only then binds its ports and returns. Until then it serves nothing
         * and reads nothing the other server may still write. Clients given both servers' controllers
         * ({@code tcp://h:p1,h:p2}) move over by themselves. Needs {@link #dataDir}. See docs/embedded-server.md.
         *
         * @param on true for a standby; false (the default): fail at once if another server holds the directory
         * @return this
         */
        public Builder standby(boolean on) {
            this.standby = on;
            return this;
        }

        /**
         * Sets how often a {@linkplain #standby standby} tries a lock another server holds (default
         * {@value #DEFAULT_STANDBY_POLL_MILLIS} ms): about how long after the other server dies it takes over.
         *
         * @param interval at least 1 ms and at most 1 minute
         * @return this
         * @throws IllegalArgumentException if out of range
         */
        public Builder standbyPoll(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.toMillis() < 1 || interval.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException("standbyPoll must be between 1 ms and 1 minute: " + interval);
            }
            this.standbyPoll = interval;
            return this;
        }

        /** For tests: opens the data directory's data files through {@code files} (one failing like a full disk). */
        Builder storageFiles(io.sluice.storage.FileOpener files) {
            this.storageFiles = Objects.requireNonNull(files, "files");
            return this;
        }

        /** @return this, keeping everything in memory (the default): nothing survives the process */
        public Builder inMemory() {
            this.dataDir = null;
            return this;
        }

        /** @return this, keeping data durably under {@code dir} (created if missing) */
        public Builder dataDir(Path dir) {
            this.dataDir = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /**
         * @param on true (default): every acknowledged append was fsynced first; false: acknowledged once written to
         *     the OS, which survives a crash of the server process but not of the machine
         * @return this
         */
        public Builder fsync(boolean on) {
            this.fsync = on;
            return this;
        }

        /**
         * @param bytes write-log bytes after which a container snapshots its state (default 64 MiB): smaller means
         *     faster restarts, larger means less snapshot work
         * @return this
         */
        public Builder snapshotAfterBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("snapshotAfterBytes must be positive: " + bytes);
            }
            this.snapshotAfterBytes = bytes;
            return this;
        }

        /** @return this, listening on {@code address} (default 127.0.0.1) */
        public Builder host(String address) {
            this.host = Objects.requireNonNull(address, "address");
            return this;
        }

        /**
         * Sets the host clients are told to connect to: what the controller's {@code getURI} (where the segment store
         * is) and {@code getControllerServerList} answer, and {@link EmbeddedServer#controllerUri()}. Default: the
         * {@linkplain #host listening host}; for a wildcard one ({@code 0.0.0.0}, {@code ::}) this machine's address
         * ({@link java.net.InetAddress#getLocalHost()}, what Pravega listens on by default), or {@code 127.0.0.1} if
         * the machine's name does not resolve. Set it when clients reach the server by another name (a container, a
         * NAT, a DNS name).
         *
         * @return this
         * @throws IllegalArgumentException if {@code hostOrAddress} is empty, holds blanks or is a wildcard address
         */
        public Builder advertisedHost(String hostOrAddress) {
            this.advertisedHost = AdvertisedHost.check(Objects.requireNonNull(hostOrAddress, "hostOrAddress"));
            return this;
        }

        /** @return this, with the controller on {@code port} (0: a free port, the default) */
        public Builder controllerPort(int port) {
            this.controllerPort = checkPort(port);
            return this;
        }

        /** @return this, with the segment store on {@code port} (0: a free port, the default) */
        public Builder segmentStorePort(int port) {
            this.segmentStorePort = checkPort(port);
            return this;
        }

        /** @return this, spreading segments over {@code n} containers (each with its own write log) */
        public Builder containers(int n) {
            if (n < 1 || n > 64) {
                throw new IllegalArgumentException("containers must be in 1..64: " + n);
            }
            this.containers = n;
            return this;
        }

        /**
         * Turns authentication on: controller calls need Basic credentials from {@code file} (see
         * {@link PasswordFile}), segment-store commands need the controller's delegation tokens. The file is read
         * again when it changes ({@link ReloadingPasswordFile}): a user removed from it, or whose rights shrank, gets
         * no new token from their next controller call on.
         *
         * @return this
         */
        public Builder passwordFile(Path file) {
            this.passwordFile = Objects.requireNonNull(file, "file");
            return this;
        }

        /**
         * With authentication on, how long the delegation tokens the controller hands out stay valid (default
         * {@link DelegationTokens#DEFAULT_LIFETIME}, 10 minutes, as Pravega's
         * {@code controller.security.auth.delegationToken.ttl.seconds}). Clients fetch a new one before it expires.
         * A user removed from the password file keeps access through the tokens they hold for at most this long.
         *
         * @param lifetime at least one second, whole seconds (tokens carry their expiry in seconds)
         * @return this
         * @throws IllegalArgumentException if {@code lifetime} is shorter than a second or not whole seconds
         */
        public Builder tokenLifetime(Duration lifetime) {
            Objects.requireNonNull(lifetime, "lifetime");
            if (lifetime.compareTo(Duration.ofSeconds(1)) < 0 || lifetime.toNanosPart() != 0) {
                throw new IllegalArgumentException("the delegation token lifetime must be whole seconds, at least 1 s,"
                        + " not " + lifetime.toString().substring(2).toLowerCase(java.util.Locale.ROOT));
            }
            this.tokenLifetime = lifetime;
            return this;
        }

        /**
         * With authentication on, signs and checks delegation tokens with {@code delegationTokens} instead of a
         * random secret, the {@link #tokenLifetime} and the system clock: for tests that mint tokens of their own
         * (expired, forged, for other streams) or run the tokens' clock.
         *
         * @return this
         */
        public Builder delegationTokens(DelegationTokens delegationTokens) {
            this.tokens = Objects.requireNonNull(delegationTokens, "delegationTokens");
            return this;
        }

        /**
         * Turns TLS on for both listeners (controller and segment store) with this identity.
         *
         * @return this
         */
        public Builder tls(ServerTls identity) {
            this.tls = Objects.requireNonNull(identity, "identity");
            return this;
        }

        /**
         * Sets the auto-scaling window (default Pravega's, 10 minutes): the cool-down after a segment is created,
         * the pause between two scale requests for one segment and the longest rate window; the other windows of
         * Pravega's rule scale with it (see docs/scaling.md). Short windows are for tests and demos.
         *
         * @param window at least 12 ms
         * @return this
         */
        public Builder scaleWindow(Duration window) {
            this.scaleWindow = new SegmentRateTracker.Windows(window).window();
            return this;
        }

        /**
         * Sets what each segment-store connection may hold of the server's memory (default
         * {@link ServerLimits#DEFAULTS}).
         *
         * @return this
         */
        public Builder limits(ServerLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * Sets how the controller times transactions out: the shortest lease it accepts (Pravega's and the default:
         * 10 s) and how often it looks for leases that ran out (default 1 s). Shorter values let a test see a lease
         * expire in a second or two; the longest lease stays 600 s.
         *
         * @param minLease shortest transaction lease a client may ask for, at least 1 ms and at most 600 s
         * @param checkInterval how often expired leases are aborted, at least 1 ms
         * @return this
         */
        public Builder transactionLeases(Duration minLease, Duration checkInterval) {
            Objects.requireNonNull(minLease, "minLease");
            Objects.requireNonNull(checkInterval, "checkInterval");
            if (minLease.toMillis() < 1 || minLease.compareTo(Duration.ofSeconds(600)) > 0) {
                throw new IllegalArgumentException("minLease must be between 1 ms and 600 s: " + minLease);
            }
            if (checkInterval.toMillis() < 1) {
                throw new IllegalArgumentException("checkInterval must be at least 1 ms: " + checkInterval);
            }
            this.minLease = minLease;
            this.leaseCheckInterval = checkInterval;
            return this;
        }

        /**
         * Sets how often the controller computes watermarks from writers' marks into the {@code _MARK} streams
         * (default 10 s, as in Pravega; tests set it lower). {@link Duration#ZERO} turns the timer off.
         *
         * @return this
         * @throws IllegalArgumentException if negative
         */
        public Builder watermarkInterval(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.isNegative()) {
                throw new IllegalArgumentException("watermarkInterval must not be negative: " + interval);
            }
            this.watermarkInterval = interval;
            return this;
        }

        /**
         * Sets how often the controller enforces streams' retention policies and consumption-based retention
         * (default 30 min, as Pravega's {@code controller.retention.frequency.minutes}; tests set it lower; see
         * docs/retention.md). {@link Duration#ZERO} turns the timer off.
         *
         * @return this
         * @throws IllegalArgumentException if negative
         */
        public Builder retentionInterval(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.isNegative()) {
                throw new IllegalArgumentException("retentionInterval must not be negative: " + interval);
            }
            this.retentionInterval = interval;
            return this;
        }

        private static int checkPort(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be in 0..65535: " + port);
            }
            return port;
        }

        /**
         * Starts the server: recovers the data directory if there is one, binds both ports and returns once clients
         * can connect. A {@linkplain #standby standby} first waits, without limit, until it holds the data directory.
         *
         * @throws UncheckedIOException if a port cannot be bound or the data directory cannot be used
         * @throws IllegalArgumentException if a standby has no data directory
         * @throws io.sluice.errors.StreamingInterruptedException if interrupted while waiting as a standby
         */
        public EmbeddedServer build() {
            if (standby && dataDir == null) {
                throw new IllegalArgumentException("a standby server needs a data directory (dataDir): it waits to "
                        + "take over the directory another server holds");
            }
            try {
                return new EmbeddedServer(this);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the Sluice server: " + e.getMessage(), e);
            }
        }

        /**
         * Records the server's metrics in {@code registry} (see {@code docs/metrics.md}: appends, reads, durable-flush
         * latency, containers, segments, connections). Needs {@code io.micrometer:micrometer-core} on the class path,
         * which Sluice's pom declares optional; without this call the server never loads it.
         *
         * @param registry a Micrometer meter registry
         * @return this
         */
        public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** @return the same as {@link #build()} */
        public EmbeddedServer start() {
            return build();
        }
    }
}
