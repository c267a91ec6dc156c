package io.sluice.connection;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import java.util.Locale;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS settings for connections to segment stores (and the controller).
 *
 * @param trustStore the certificates to trust: a PEM file of CA certificates (what Pravega deployments usually
 *     hand out), or a {@code .jks}/{@code .p12}/{@code .pfx} key store; {@code null} to use the JDK's default trust
 * @param trustStorePassword the key store's password, or {@code null} (PEM files have none)
 * @param verifyHostname whether the server certificate must name the host connected to; on by default, turn it
 *     off only for test setups with certificates that do not match the host
 */
public record TlsConfig(Path trustStore, String trustStorePassword, boolean verifyHostname) {

    /** The JDK's default trust, host names verified. */
    public static final TlsConfig DEFAULT = new TlsConfig(null, null, true);

    /**
     * @param trustStore a PEM file or key store of trusted certificates
     * @return settings trusting those certificates, with host-name verification
     */
    public static TlsConfig trusting(Path trustStore) {
        return new TlsConfig(trustStore, null, true);
    }

    /** @return a copy without host-name verification (certificates are still checked against the trust store) */
    public TlsConfig withoutHostnameVerification() {
        return new TlsConfig(trustStore, trustStorePassword, false);
    }

    /**
     * Builds the SSL context these settings describe.
     *
     * @throws IllegalArgumentException naming the file if the trust store cannot be read
     */
    public SSLContext sslContext() {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            if (trustStore == null) {
                ctx.init(null, null, null);
                return ctx;
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(loadTrustStore());
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("cannot use trust store " + trustStore + ": " + e.getMessage(), e);
        }
    }

    private KeyStore loadTrustStore() throws GeneralSecurityException, IOException {
        String name = trustStore.getFileName().toString().toLowerCase(Locale.ROOT);
        char[] password = trustStorePassword == null ? null : trustStorePassword.toCharArray();
        if (name.endsWith(".jks") || name.endsWith(".p12") || name.endsWith(".pfx")) {
            KeyStore ks = KeyStore.getInstance(name.endsWith(".jks") ? "JKS" : "PKCS12");
            try (InputStream in = Files.newInputStream(trustStore)) {
                ks.load(in, password);
            }
            return ks;
        }
        Collection<? extends Certificate> certs;
        try (InputStream in = Files.newInputStream(trustStore)) {
            certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
        }
        if (certs.isEmpty()) {
            throw new GeneralSecurityException("no certificates in " + trustStore);
        }
        KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
        ks.load(null, null);
        int i = 0;
        for (Certificate c : certs) {
            ks.setCertificateEntry("ca-" + i++, c);
        }
        return ks;
    }
}
