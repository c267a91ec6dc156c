package io.sluice.segment;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.common.Endpoint;
import io.sluice.common.Threads;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.Hello;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireCommandType;

/**
 * A segment store on loopback whose answers the test scripts, to act like a real Pravega segment store where Sluice's
 * server behaves differently (no deduplication of resent appends, copies landing late). Answers Hello itself and
 * records every other command it receives. Public so that tests of other packages (the client's) can script a
 * segment store too.
 */
public final class ScriptedSegmentStore implements AutoCloseable {

    /** The test's answer to one command. */
    @FunctionalInterface
    public interface Script {
        /**
         * @param connection the number of the connection it came on, from 1
         * @param request what the client sent
         * @param peer where to answer
         */
        void handle(int connection, WireCommand request, Peer peer) throws IOException;
    }

    /** One client connection. */
    public static final class Peer {
        private final Socket socket;
        private final OutputStream out;

        Peer(Socket socket) throws IOException {
            this.socket = socket;
            this.out = socket.getOutputStream();
        }

        /** Sends {@code reply} to the client. */
        public void send(WireCommand reply) throws IOException {
            out.write(FrameCodec.encode(reply));
            out.flush();
        }

        /** Closes the connection. */
        public void hangUp() throws IOException {
            socket.close();
        }
    }

    private final ServerSocket server;
    private final Script script;
    private final AtomicInteger connections = new AtomicInteger();
    private final List<WireCommand> received = new CopyOnWriteArrayList<>();
    /** The bytes of each command in {@link #received}, header included, as they came. */
    private final List<byte[]> receivedFrames = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    /** Starts listening on a free loopback port; {@code script} answers every command but Hello. */
    public ScriptedSegmentStore(Script script) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.script = script;
        Threads.startVirtual("scripted-store-accept", this::acceptLoop);
    }

    /** @return where the store listens */
    public Endpoint endpoint() {
        return new Endpoint(server.getInetAddress().getHostAddress(), server.getLocalPort());
    }

    /** @return how many connections clients made so far */
    public int connections() {
        return connections.get();
    }

    /** @return every command received except Hello, in order */
    public List<WireCommand> received() {
        return List.copyOf(received);
    }

    /** @return the bytes of every command received except Hello, header included, in order */
    List<byte[]> receivedFrames() {
        return List.copyOf(receivedFrames);
    }

    private void acceptLoop() {
        try {
            while (true) {
                Socket s = server.accept();
                sockets.add(s);
                int n = connections.incrementAndGet();
                Threads.startVirtual("scripted-store-conn-" + n, () -> serve(n, s));
            }
        } catch (IOException e) {
            // closed
        }
    }

    private void serve(int n, Socket s) {
        try (s) {
            Peer peer = new Peer(s);
            DataInputStream in = new DataInputStream(s.getInputStream());
            while (true) {
                int type = in.readInt();
                int length = in.readInt();
                WireCommandType t = FrameCodec.checkHeader(type, length);
                byte[] payload = new byte[length];
                in.readFully(payload);
                WireCommand c = FrameCodec.decodePayload(t, ByteBuffer.wrap(payload));
                if (c instanceof Hello) {
                    peer.send(Hello.current());
                } else {
                    receivedFrames.add(ByteBuffer.allocate(8 + length).putInt(type).putInt(length).put(payload)
                            .array());
                    received.add(c);
                    script.handle(n, c, peer);
                }
            }
        } catch (IOException e) {
            // the client or the script hung up
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
