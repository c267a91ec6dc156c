package io.sluice.connection;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.common.Endpoint;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.Hello;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireCommandType;

/**
 * A scriptable segment store on loopback for connection tests: it answers Hello (unless told otherwise) and hands
 * every other command to the test's handler together with the peer, which can reply, send raw bytes or hang up.
 */
final class FakeSegmentStore implements AutoCloseable {

    /** What the test does with each command a client sends (Hello included, after the automatic answer). */
    @FunctionalInterface
    interface Handler {
        void handle(WireCommand request, Peer peer) throws IOException;
    }

    /** One accepted client connection. */
    static final class Peer {
        private final Socket socket;
        private final OutputStream out;
        private final ReentrantLock writeLock = new ReentrantLock();

        Peer(Socket socket) throws IOException {
            this.socket = socket;
            this.out = socket.getOutputStream();
        }

        void send(WireCommand reply) throws IOException {
            sendRaw(FrameCodec.encode(reply));
        }

        void sendRaw(byte[] bytes) throws IOException {
            writeLock.lock();
            try {
                out.write(bytes);
                out.flush();
            } finally {
                writeLock.unlock();
            }
        }

        void hangUp() throws IOException {
            socket.close();
        }
    }

    private final ServerSocket server;
    private final Handler handler;
    private final Hello helloReply;
    private final AtomicInteger accepted = new AtomicInteger();
    private final List<Peer> peers = new CopyOnWriteArrayList<>();

    FakeSegmentStore(Handler handler) throws IOException {
        this(Hello.current(), handler);
    }

    /** @param helloReply what to answer a Hello with, {@code null} to never answer it */
    FakeSegmentStore(Hello helloReply, Handler handler) throws IOException {
        this(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), helloReply, handler);
    }

    /** @param server a bound server socket (plain or TLS) to accept clients on */
    FakeSegmentStore(ServerSocket server, Hello helloReply, Handler handler) {
        this.server = server;
        this.handler = handler;
        this.helloReply = helloReply;
        Thread.ofVirtual().name("fake-store-accept").start(this::acceptLoop);
    }

    Endpoint endpoint() {
        return new Endpoint(server.getInetAddress().getHostAddress(), server.getLocalPort());
    }

    int connectionsAccepted() {
        return accepted.get();
    }

    private void acceptLoop() {
        try {
            while (true) {
                Socket s = server.accept();
                accepted.incrementAndGet();
                Peer peer = new Peer(s);
                peers.add(peer);
                Thread.ofVirtual().name("fake-store-conn").start(() -> serve(s, peer));
            }
        } catch (IOException e) {
            // closed
        }
    }

    private void serve(Socket s, Peer peer) {
        try (s) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            while (true) {
                int type = in.readInt();
                int length = in.readInt();
                WireCommandType t = FrameCodec.checkHeader(type, length);
                byte[] payload = new byte[length];
                in.readFully(payload);
                WireCommand c = FrameCodec.decodePayload(t, ByteBuffer.wrap(payload));
                if (c instanceof Hello && helloReply != null) {
                    peer.send(helloReply);
                }
                handler.handle(c, peer);
            }
        } catch (EOFException e) {
            // client went away
        } catch (IOException e) {
            // closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Peer p : peers) {
            p.hangUp();
        }
    }
}
