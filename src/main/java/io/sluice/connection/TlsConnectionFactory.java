package io.sluice.connection;

import java.io.IOException;
import java.net.Socket;
import java.util.Objects;
import java.util.Optional;

import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

import io.sluice.common.Certificates;
import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;
import io.sluice.errors.CertificateRejectedException;

/**
 * TLS connections to segment stores ({@code tls://}), with the JDK's {@link SSLSocket}: the server certificate is
 * checked against the configured trust store and, unless turned off, must name the host. The handshake is done
 * before Hello, within the connect deadline. A refused certificate fails the connection with a
 * {@link CertificateRejectedException} (not retried); other handshake failures are retriable connection failures.
 * Thread-safe.
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

    /** @return false: TLS runs over a blocking socket, which callers cannot read for themselves */
    @Override
    protected boolean channelSockets() {
        return false;
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
        try {
            ssl.startHandshake();
        } catch (IOException e) {
            // a certificate the client refuses stays refused: say so at once rather than retrying a configuration
            Optional<String> refused = Certificates.rejection(e);
            if (refused.isPresent()) {
                throw new CertificateRejectedException("the TLS certificate of segment store " + endpoint
                        + " was refused: " + refused.get() + " (" + Certificates.trusted(tls.trustStore())
                        + (tls.verifyHostname() ? ", host names verified" : ", host names not verified") + ")", e);
            }
            throw e;
        }
        ssl.setSoTimeout(0);
        return ssl;
    }
}
