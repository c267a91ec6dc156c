package io.sluice.segment;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.common.Endpoint;
import io.sluice.common.Threads;
import io.sluice.wire.WireCommandType;

/**
 * A TCP proxy in front of a segment store that counts the frames clients send, by wire type: lets a test see how
 * many requests a client made (that it waits instead of polling). Frames are passed on unchanged. Thread-safe.
 */
public final class FrameCountingProxy implements AutoCloseable {
    private final Endpoint target;
    private final ServerSocket listener;
    private final ConcurrentHashMap<Integer, AtomicInteger> counts = new ConcurrentHashMap<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /**
     * Starts listening on a loopback port of its own.
     *
     * @param target the segment store to pass frames on to
     */
    public FrameCountingProxy(Endpoint target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Threads.startVirtual("test-proxy-accept", this::accept);
    }

    /** @return where clients connect */
    public Endpoint endpoint() {
        return new Endpoint(listener.getInetAddress().getHostAddress(), listener.getLocalPort());
    }

    /** @return how many frames of {@code type} clients sent so far */
    public int count(WireCommandType type) {
        AtomicInteger n = counts.get(type.code());
        return n == null ? 0 : n.get();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(new InetSocketAddress(target.host(), target.port()));
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                Threads.startVirtual("test-proxy-up", () -> frames(client, server));
                Threads.startVirtual("test-proxy-down", () -> copy(server, client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** Client to server: frame by frame (type i32, length i32, payload), counting types. */
    private void frames(Socket from, Socket to) {
        try (DataInputStream in = new DataInputStream(from.getInputStream()); OutputStream out = to.getOutputStream()) {
            byte[] header = new byte[8];
            while (true) {
                in.readFully(header);
                int type = ((header[0] & 0xFF) << 24) | ((header[1] & 0xFF) << 16) | ((header[2] & 0xFF) << 8)
                        | (header[3] & 0xFF);
                int length = ((header[4] & 0xFF) << 24) | ((header[5] & 0xFF) << 16) | ((header[6] & 0xFF) << 8)
                        | (header[7] & 0xFF);
                byte[] payload = new byte[length];
                in.readFully(payload);
                counts.computeIfAbsent(type, t -> new AtomicInteger()).incrementAndGet();
                out.write(header);
                out.write(payload);
                out.flush();
            }
        } catch (EOFException e) {
            closeQuietly(to);
        } catch (IOException e) {
            closeQuietly(to);
        }
    }

    private static void copy(Socket from, Socket to) {
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException e) {
            // one side went away
        } finally {
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        sockets.forEach(FrameCountingProxy::closeQuietly);
    }
}
