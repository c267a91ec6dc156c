package io.sluice.connection;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.common.Endpoint;
import io.sluice.common.Threads;

/**
 * A TCP proxy on loopback in front of a segment store (tests). It can cut every connection through it at once, the
 * way a network failure does (bytes in flight in either direction are lost, a frame may arrive half), and it can
 * hold back what the server sends (replies pile up unforwarded until released), and it can refuse service the way a
 * server that is down does ({@link #refuse()}: every connection is cut and each new one reset at once, until
 * {@link #pass()}). Each accepted connection gets its own connection to the target and two virtual threads copying
 * bytes. Thread-safe.
 */
public final class LoopbackProxy implements AutoCloseable {
    private static final int BUFFER = 64 * 1024;

    private final ServerSocket server;
    private final Endpoint target;
    /** A connection through the proxy: the client's socket and the one to the target. */
    private record Pair(Socket client, Socket upstream) {
        void close() {
            closeQuietly(client);
            closeQuietly(upstream);
        }
    }

    private final List<Pair> open = new CopyOnWriteArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private final List<String> endings = new CopyOnWriteArrayList<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    /** Guarded by lock. */
    private boolean holding;
    private volatile boolean refusing;

    /**
     * @param target where to forward connections
     * @throws IOException if the listening socket cannot be opened
     */
    public LoopbackProxy(Endpoint target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Threads.startVirtual("loopback-proxy-accept", this::acceptLoop);
    }

    /** @return where clients connect */
    public Endpoint endpoint() {
        return new Endpoint(server.getInetAddress().getHostAddress(), server.getLocalPort());
    }

    /**
     * @return connections accepted so far; one is counted once it is forwarded (so {@link #dropAll()} cuts it), or
     *     once it was refused
     */
    public int connections() {
        return accepted.get();
    }

    /**
     * Closes every connection through the proxy, both sides; new connections are accepted as before.
     *
     * @return how many connections were cut
     */
    public int dropAll() {
        // a pair at a time, both sockets at once: a pump that ends because its socket was closed must not take the
        // other half away uncounted
        int n = 0;
        for (Pair p : open) {
            if (open.remove(p)) {
                p.close();
                n++;
            }
        }
        return n;
    }

    /**
     * Plays a server that is down: cuts every connection and from now on resets each new one as soon as it is
     * accepted, without reaching the target, until {@link #pass()}.
     *
     * @return how many connections were cut
     */
    public int refuse() {
        refusing = true;
        return dropAll();
    }

    /** Ends {@link #refuse()}: new connections reach the target again. */
    public void pass() {
        refusing = false;
    }

    /** From now on, what the server sends is read but not forwarded until {@link #release()}. */
    public void holdReplies() {
        lock.lock();
        try {
            holding = true;
        } finally {
            lock.unlock();
        }
    }

    /** Forwards what was held back, and everything after it. */
    public void release() {
        lock.lock();
        try {
            holding = false;
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void awaitRelease() throws InterruptedException {
        lock.lock();
        try {
            while (holding) {
                released.await();
            }
        } finally {
            lock.unlock();
        }
    }

    private void acceptLoop() {
        try {
            while (true) {
                Socket client = server.accept();
                if (refusing) {
                    reset(client);
                    accepted.incrementAndGet();
                    continue;
                }
                Socket upstream;
                try {
                    upstream = new Socket();
                    upstream.connect(new InetSocketAddress(target.host(), target.port()), 10_000);
                } catch (IOException e) {
                    closeQuietly(client);
                    accepted.incrementAndGet();
                    continue;
                }
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                Pair pair = new Pair(client, upstream);
                open.add(pair);
                if (refusing) {
                    // refuse() came while this one was connecting upstream, perhaps after it cut the others
                    open.remove(pair);
                    reset(client);
                    closeQuietly(upstream);
                    accepted.incrementAndGet();
                    continue;
                }
                // counted only now, once it is among the open ones: a test that waits for a new connection and
                // then cuts them all must find it
                accepted.incrementAndGet();
                Threads.startVirtual("loopback-proxy-up", () -> pump(pair, client, upstream, false));
                Threads.startVirtual("loopback-proxy-down", () -> pump(pair, upstream, client, true));
            }
        } catch (IOException e) {
            // closed
        }
    }

    /** Copies bytes from one socket to the other until either side ends; then closes both. */
    private void pump(Pair pair, Socket from, Socket to, boolean replies) {
        byte[] buffer = new byte[BUFFER];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                if (replies) {
                    awaitRelease();
                }
                out.write(buffer, 0, n);
            }
            ended(pair, replies, "ended by its sender", from);
        } catch (IOException | InterruptedException e) {
            // cut, or the other side ended
            ended(pair, replies, e.toString(), from);
        } finally {
            open.remove(pair);
            pair.close();
        }
    }

    private void ended(Pair pair, boolean replies, String how, Socket from) {
        // a pump whose socket dropAll() or the other pump closed is not news; the first one to end on its own is
        if (open.contains(pair)) {
            endings.add((replies ? "server to client" : "client to server") + " of " + from.getRemoteSocketAddress()
                    + ": " + how);
        }
    }

    /**
     * @return how each connection that ended on its own (not cut by this proxy) ended, first side first; for the
     *     message of a test that finds a connection gone
     */
    public List<String> endings() {
        return List.copyOf(endings);
    }

    /** Closes with a reset (RST) rather than an orderly end, as a port nobody listens on answers. */
    private static void reset(Socket s) {
        try {
            s.setSoLinger(true, 0);
        } catch (IOException e) {
            // closed anyway below
        }
        closeQuietly(s);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    @Override
    public void close() throws IOException {
        release();
        server.close();
        dropAll();
    }
}
