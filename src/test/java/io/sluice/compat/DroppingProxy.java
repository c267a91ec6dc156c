package io.sluice.compat;

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

import io.sluice.common.Endpoint;
import io.sluice.common.Threads;

/**
 * A TCP proxy on loopback in front of a real segment store that can cut every connection through it at once, the
 * way a network failure does: bytes in flight in either direction are lost, a frame may arrive half. Each accepted
 * connection gets its own connection to the target and two virtual threads copying bytes. Thread-safe.
 */
final class DroppingProxy implements AutoCloseable {
    private static final int BUFFER = 64 * 1024;

    private final ServerSocket server;
    private final Endpoint target;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();

    DroppingProxy(Endpoint target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Threads.startVirtual("dropping-proxy-accept", this::acceptLoop);
    }

    /** @return where clients connect */
    Endpoint endpoint() {
        return new Endpoint(server.getInetAddress().getHostAddress(), server.getLocalPort());
    }

    /** @return connections accepted so far */
    int connections() {
        return accepted.get();
    }

    /**
     * Closes every connection through the proxy, both sides; new connections are accepted as before.
     *
     * @return how many connections were cut
     */
    int dropAll() {
        int n = 0;
        for (Socket s : open) {
            if (open.remove(s)) {
                closeQuietly(s);
                n++;
            }
        }
        return n / 2;
    }

    private void acceptLoop() {
        try {
            while (true) {
                Socket client = server.accept();
                accepted.incrementAndGet();
                Socket upstream;
                try {
                    upstream = new Socket();
                    upstream.connect(new InetSocketAddress(target.host(), target.port()), 10_000);
                } catch (IOException e) {
                    closeQuietly(client);
                    continue;
                }
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                open.add(client);
                open.add(upstream);
                Threads.startVirtual("dropping-proxy-up", () -> pump(client, upstream));
                Threads.startVirtual("dropping-proxy-down", () -> pump(upstream, client));
            }
        } catch (IOException e) {
            // closed
        }
    }

    /** Copies bytes from one socket to the other until either side ends; then closes both. */
    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[BUFFER];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                out.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // cut, or the other side ended
        } finally {
            open.remove(from);
            open.remove(to);
            closeQuietly(from);
            closeQuietly(to);
        }
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
        server.close();
        dropAll();
    }
}
