package io.sluice.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import javax.net.ssl.SSLContext;

import io.sluice.common.Endpoint;
import io.sluice.common.ServerMetrics;
import io.sluice.common.Threads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The segment store's listener: accepts connections (plain or TLS) and serves each on its own virtual threads.
 * Thread-safe; {@link #close()} stops accepting and closes every connection.
 */
public final class SegmentStoreServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentStoreServer.class);
    /** How long {@link #close()} waits for the accepting thread to leave {@code accept}. */
    private static final long ACCEPT_EXIT_WAIT_MILLIS = 5_000;

    private final SegmentStore store;
    private final TokenVerifier tokens;
    private final ServerLimits limits;
    private final ServerSocket listener;
    private final Set<ServerConnection> connections = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private final ServerMetrics metrics;
    private final Thread acceptor;

    /**
     * Binds and starts accepting.
     *
     * @param store the segments to serve
     * @param bind address and port (0 = any free port)
     * @param tls a TLS context for encrypted connections, or {@code null} for plain TCP
     * @param tokens checks the delegation token of each request
     * @throws IOException if the address cannot be bound
     */
    public SegmentStoreServer(SegmentStore store, InetSocketAddress bind, SSLContext tls, TokenVerifier tokens) throws IOException {
        this(store, bind, tls, tokens, ServerLimits.DEFAULTS);
    }

    /**
     * Binds and starts accepting.
     *
     * @param store the segments to serve
     * @param bind address and port (0 = any free port)
     * @param tls a TLS context for encrypted connections, or {@code null} for plain TCP
     * @param tokens checks the delegation token of each request
     * @param limits what each connection may hold of the server's memory
     * @throws IOException if the address cannot be bound
     */
    public SegmentStoreServer(SegmentStore store, InetSocketAddress bind, SSLContext tls, TokenVerifier tokens,
                              ServerLimits limits) throws IOException {
        this(store, bind, tls, tokens, limits, ServerMetrics.NONE);
    }

    /**
     * Binds and starts accepting; its connections report appends and reads to {@code metrics}.
     *
     * @see #SegmentStoreServer(SegmentStore, InetSocketAddress, SSLContext, TokenVerifier, ServerLimits)
     * @throws IOException if the address cannot be bound
     */
    public SegmentStoreServer(SegmentStore store, InetSocketAddress bind, SSLContext tls, TokenVerifier tokens,
                              ServerLimits limits, ServerMetrics metrics) throws IOException {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.store = Objects.requireNonNull(store, "store");
        this.tokens = Objects.requireNonNull(tokens, "tokens");
        this.limits = Objects.requireNonNull(limits, "limits");
        this.listener = tls == null ? new ServerSocket() : tls.getServerSocketFactory().createServerSocket();
        listener.setReuseAddress(true);
        listener.bind(bind, 128);
        this.acceptor = Threads.startVirtual("sluice-segmentstore-accept-" + listener.getLocalPort(), this::acceptLoop);
        LOG.debug("segment store listening on {}", listener.getLocalSocketAddress());
    }

    /** @return where clients connect (the bound host and the actual port) */
    public Endpoint endpoint() {
        return new Endpoint(listener.getInetAddress().getHostAddress(), listener.getLocalPort());
    }

    /** @return the number of open client connections */
    public int connectionCount() {
        return connections.size();
    }

    /**
     * Closes every client connection now (clients reconnect); for operators and for tests of reconnect paths.
     *
     * @return how many connections were closed
     */
    public int dropConnections() {
        int n = 0;
        for (ServerConnection c : connections) {
            c.close();
            n++;
        }
        return n;
    }

    private void acceptLoop() {
        while (!closed) {
            Socket socket;
            try {
                socket = listener.accept();
            } catch (IOException | RuntimeException | OutOfMemoryError e) {
                if (closed || listener.isClosed()) {
                    return;
                }
                // out of file descriptors or memory for a moment: the listener itself is fine, keep accepting
                LOG.warn("accepting a connection failed: {}", e.toString());
                pauseAfterFailedAccept();
                continue;
            }
            try {
                serve(socket);
            } catch (RuntimeException | OutOfMemoryError e) {
                // one connection that cannot be set up must not end the listener: refuse it and go on accepting
                LOG.error("serving a connection from {} failed", socket.getRemoteSocketAddress(), e);
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // it is being dropped anyway
                }
            }
        }
    }

    /** A short pause, so a listener that keeps failing (no file descriptors left) does not spin. */
    private static void pauseAfterFailedAccept() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void serve(Socket socket) {
        ServerConnection[] holder = new ServerConnection[1];
        ServerConnection c = new ServerConnection(socket, store, tokens, limits, metrics,
                () -> connections.remove(holder[0]));
        holder[0] = c;
        connections.add(c);
        if (closed) {
            c.close();
            return;
        }
        c.start();
    }

    /**
     * Stops accepting and closes every connection. When it returns, the port refuses new connections: the listening
     * socket is released only once the thread parked in {@code accept} has left it (until then the kernel would still
     * complete handshakes), so this waits for that thread, at most {@value #ACCEPT_EXIT_WAIT_MILLIS} ms.
     */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            LOG.debug("closing the listener", e);
        }
        awaitAcceptorExit();
        for (ServerConnection c : connections) {
            c.close();
        }
    }

    private void awaitAcceptorExit() {
        if (Thread.currentThread() == acceptor) {
            return;
        }
        try {
            if (!acceptor.join(Duration.ofMillis(ACCEPT_EXIT_WAIT_MILLIS))) {
                LOG.warn("the accepting thread of {} did not stop within {} ms", acceptor.getName(), ACCEPT_EXIT_WAIT_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
