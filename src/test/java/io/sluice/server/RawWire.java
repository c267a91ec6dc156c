package io.sluice.server;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;

import io.sluice.common.Endpoint;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.Reply;
import io.sluice.wire.WireCommand;

/** A test's raw connection to a segment store: frames written and read as bytes, no client logic in between. */
final class RawWire implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;

    RawWire(Endpoint endpoint, Duration readTimeout) throws IOException {
        socket = new Socket(endpoint.host(), endpoint.port());
        socket.setSoTimeout((int) readTimeout.toMillis());
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        in = new DataInputStream(socket.getInputStream());
    }

    RawWire(Endpoint endpoint) throws IOException {
        this(endpoint, Duration.ofSeconds(20));
    }

    /** Sends one command in its frame. */
    RawWire send(WireCommand command) throws IOException {
        out.write(FrameCodec.encode(command));
        out.flush();
        return this;
    }

    /** Sends bytes as they are. */
    RawWire sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** Sends a frame header alone: a type code and a declared payload length. */
    RawWire sendHeader(int typeCode, int length) throws IOException {
        return sendRaw(ByteBuffer.allocate(8).putInt(typeCode).putInt(length).array());
    }

    /** @return the next reply; fails on a timeout or when the connection ends */
    Reply next() throws IOException {
        int type = in.readInt();
        int length = in.readInt();
        byte[] payload = new byte[length];
        in.readFully(payload);
        return (Reply) FrameCodec.decodePayload(FrameCodec.checkHeader(type, length), ByteBuffer.wrap(payload));
    }

    /** @return the next reply that is of {@code type}, skipping others (such as the Hello reply) */
    <T extends Reply> T next(Class<T> type) throws IOException {
        while (true) {
            Reply r = next();
            if (type.isInstance(r)) {
                return type.cast(r);
            }
        }
    }

    /**
     * @return true if the server closed the connection (after any replies still on their way, which are dropped);
     *     false if it was still open when the read timed out
     */
    boolean closedByServer() throws IOException {
        try {
            while (true) {
                next();
            }
        } catch (EOFException | SocketException e) {
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
