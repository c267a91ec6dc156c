package io.sluice.controller;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.TlsChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.sluice.common.Endpoint;

/**
 * Builds the Netty gRPC channels of a {@link GrpcControllerClient}: plaintext or TLS per the URI scheme, the
 * controller name resolver, round-robin load balancing and keepalive.
 */
final class ControllerChannels {

    private ControllerChannels() {
    }

    /**
     * @param config the configuration
     * @param discovery null for a channel to the URI's endpoints; otherwise how to ask for the controller list
     * @return a new channel (connects lazily)
     * @throws IllegalArgumentException if the trust store cannot be read
     */
    @SuppressWarnings("deprecation") // nameResolverFactory: the way to give one channel its own resolver
    static ManagedChannel build(ControllerClientConfig config, Supplier<List<Endpoint>> discovery) {
        ControllerUri uri = config.controllerUri();
        return NettyChannelBuilder.forTarget(ControllerNameResolverProvider.TARGET, channelCredentials(config))
                .nameResolverFactory(new ControllerNameResolverProvider(uri.endpoints(), discovery,
                        config.discoveryInterval()))
                .defaultLoadBalancingPolicy("round_robin")
                .keepAliveTime(config.keepAliveTime().toNanos(), TimeUnit.NANOSECONDS)
                .build();
    }

    static ChannelCredentials channelCredentials(ControllerClientConfig config) {
        if (!config.controllerUri().tls()) {
            return InsecureChannelCredentials.create();
        }
        X509TrustManager trust = trustManager(config.trustStore().orElse(null));
        TrustManager used = config.validateHostname() ? trust : new HostnameIgnoringTrustManager(trust);
        return TlsChannelCredentials.newBuilder().trustManager(used).build();
    }

    /**
     * @param pemFile CA certificates in PEM, or null for the JVM's default trust store
     * @return a trust manager for them
     */
    static X509TrustManager trustManager(Path pemFile) {
        try {
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            if (pemFile == null) {
                factory.init((KeyStore) null);
            } else {
                KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
                store.load(null, null);
                int n = 0;
                try (InputStream in = Files.newInputStream(pemFile)) {
                    for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                        store.setCertificateEntry("ca-" + n++, certificate);
                    }
                }
                if (n == 0) {
                    throw new IllegalArgumentException("trust store " + pemFile + " holds no PEM certificate");
                }
                factory.init(store);
            }
            for (TrustManager manager : factory.getTrustManagers()) {
                if (manager instanceof X509TrustManager x509) {
                    return x509;
                }
            }
            throw new IllegalStateException("the JVM's TrustManagerFactory offers no X509TrustManager");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read trust store " + pemFile + ": " + e, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot load trust store " + pemFile + ": " + e.getMessage(), e);
        }
    }
}
