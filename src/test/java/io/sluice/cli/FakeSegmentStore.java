package io.sluice.cli;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.sluice.common.Endpoint;
import io.sluice.common.Threads;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.Hello;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.StreamSegmentInfo;
import io.sluice.wire.WireCommand;

/**
 * A segment store on loopback that knows only segment lengths: it answers Hello, and GetStreamSegmentInfo from a map
 * of segment name → length (NoSuchSegment for others), remembering the delegation tokens it was sent. Thread-safe.
 */
final class FakeSegmentStore implements AutoCloseable {
    private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final Map<String, Long> lengths = new ConcurrentHashMap<>();
    private final List<String> tokens = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    FakeSegmentStore() throws IOException {
        Threads.startVirtual("fake-segment-store-accept", this::accept);
    }

    /** Makes {@code segment} (a qualified name) exist with {@code length} bytes. */
    FakeSegmentStore segment(String segment, long length) {
        lengths.put(segment, length);
        return this;
    }

    /** @return where it listens */
    Endpoint endpoint() {
        return new Endpoint(server.getInetAddress().getHostAddress(), server.getLocalPort());
    }

    /** @return the delegation tokens of the GetStreamSegmentInfo requests so far */
    List<String> tokens() {
        return List.copyOf(tokens);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                sockets.add(socket);
                Threads.startVirtual("fake-segment-store-conn", () -> serve(socket));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            while (true) {
                int type = in.readInt();
                int length = in.readInt();
                byte[] payload = new byte[length];
                in.readFully(payload);
                WireCommand request = FrameCodec.decodePayload(FrameCodec.checkHeader(type, length),
                        ByteBuffer.wrap(payload));
                WireCommand reply = switch (request) {
                    case Hello h -> Hello.current();
                    case GetStreamSegmentInfo g -> {
                        tokens.add(g.delegationToken());
                        Long size = lengths.get(g.segmentName());
                        yield size == null ? new NoSuchSegment(g.requestId(), g.segmentName(), "", -1)
                                : new StreamSegmentInfo(g.requestId(), g.segmentName(), true, false, false, 0L, size,
                                        0L);
                    }
                    default -> null; // KeepAlive and anything else: no answer
                };
                if (reply != null) {
                    out.write(FrameCodec.encode(reply));
                    out.flush();
                }
            }
        } catch (EOFException | SocketException e) {
            // the client went away, or close()
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
