package io.sluice.connection;

import java.io.IOException;
import java.net.Socket;
import java.util.Objects;

import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;

/**
 * TLS connections to segment stores ({@code tls://}), with the JDK's {@link SSLSocket}: the server certificate is
 * checked against the configured trust store and, unless turned off, must name the host. The handshake is done
 * before Hello, within the connect deadline. Thread-safe.
 */
public final class TlsConnectionFactory extends TcpConnectionFactory {
    private final TlsConfig tls;
    private final SSLSocketFactory sockets;

    /**
     * @param config connection tuning
     * @param tls trust and host-name settings
     * @throws IllegalArgumentException if the trust store cannot be read
     */
    public TlsConnectionFactory(ConnectionConfig config, TlsConfig tls) {
        super(config);
        this.tls = Objects.requireNonNull(tls, "tls");
        this.sockets = tls.sslContext().getSocketFactory();
    }

    @Override
    protected Socket secure(Socket socket, Endpoint endpoint, Deadline deadline) throws IOException {
        SSLSocket ssl = (SSLSocket) sockets.createSocket(socket, endpoint.host(), endpoint.port(), true);
        SSLParameters params = ssl.getSSLParameters();
        if (tls.verifyHostname()) {
            params.setEndpointIdentificationAlgorithm("HTTPS");
        }
        ssl.setSSLParameters(params);
        ssl.setUseClientMode(true);
        ssl.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, deadline.remaining().toMillis())));
        ssl.startHandshake();
        ssl.setSoTimeout(0);
        return ssl;
    }
}
