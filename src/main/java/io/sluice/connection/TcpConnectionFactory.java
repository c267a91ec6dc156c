package io.sluice.connection;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SocketChannel;
import java.util.Objects;

import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.StreamingInterruptedException;

/**
 * Plain TCP connections to segment stores ({@code tcp://}). Thread-safe; holds no state besides its config.
 */
public class TcpConnectionFactory implements ConnectionFactory {
    private final ConnectionConfig config;

    /** A factory with {@link ConnectionConfig#DEFAULT}. */
    public TcpConnectionFactory() {
        this(ConnectionConfig.DEFAULT);
    }

    /** @param config connection tuning */
    public TcpConnectionFactory(ConnectionConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /** @return the tuning this factory applies */
    public ConnectionConfig config() {
        return config;
    }

    @Override
    public Connection connect(Endpoint endpoint, Deadline deadline) {
        Deadline until = deadline.min(Deadline.after(config.connectTimeout()));
        Socket socket = connectSocket(endpoint, until);
        Socket ready;
        try {
            ready = secure(socket, endpoint, until);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new ConnectionFailedException("TLS handshake with segment store " + endpoint + " failed: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(socket);
            throw e;
        }
        return SocketConnection.open(ready, endpoint, config, until);
    }

    /**
     * Turns the connected plain socket into the one the connection runs on. Plain TCP uses it as it is.
     *
     * @param deadline when the handshake must be done
     * @throws IOException if securing it fails
     */
    protected Socket secure(Socket socket, Endpoint endpoint, Deadline deadline) throws IOException {
        return socket;
    }

    /**
     * @return whether connections run on socket channels, which {@link ConnectionConfig#callerReads} needs: plain TCP
     *     does when the config asks for it; a factory that wraps the socket (TLS) does not
     */
    protected boolean channelSockets() {
        return config.callerReads();
    }

    private Socket connectSocket(Endpoint endpoint, Deadline deadline) {
        Socket socket;
        try {
            socket = channelSockets() ? SocketChannel.open().socket() : new Socket();
        } catch (IOException e) {
            throw new ConnectionFailedException("cannot open a socket to segment store " + endpoint + ": " + e.getMessage(), e);
        }
        try {
            socket.setTcpNoDelay(true);
            socket.setKeepAlive(true);
            socket.setSendBufferSize(config.socketBufferBytes());
            socket.setReceiveBufferSize(config.socketBufferBytes());
            long millis = Math.max(1, deadline.remaining().toMillis());
            socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), (int) Math.min(Integer.MAX_VALUE, millis));
            return socket;
        } catch (UnknownHostException e) {
            closeQuietly(socket);
            throw new ConnectionFailedException("unknown segment store host " + endpoint.host() + " (" + endpoint + ")", e);
        } catch (ClosedByInterruptException e) {
            // a channel's connect ends at once on an interrupted thread (the interrupt stays set); a plain socket's
            // ignores it and the interrupt is met when the Hello is queued
            closeQuietly(socket);
            throw new StreamingInterruptedException("interrupted while connecting to segment store " + endpoint, e);
        } catch (SocketTimeoutException e) {
            closeQuietly(socket);
            throw new ConnectionFailedException("connecting to segment store " + endpoint + " timed out", e);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new ConnectionFailedException("cannot connect to segment store " + endpoint + ": " + e.getMessage(), e);
        }
    }

    static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing more to do with a socket we are abandoning
        }
    }
}
