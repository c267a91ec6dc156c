package io.sluice.server;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.Objects;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * The server's TLS identity: a PEM certificate chain and its PEM private key (PKCS#8, {@code BEGIN PRIVATE KEY};
 * RSA or EC), used by both listeners.
 *
 * @param certificateChain PEM file with the server certificate first, then intermediates
 * @param privateKey PEM file with the unencrypted PKCS#8 private key
 */
public record ServerTls(Path certificateChain, Path privateKey) {

    /** Checks that both are given. */
    public ServerTls {
        Objects.requireNonNull(certificateChain, "certificateChain");
        Objects.requireNonNull(privateKey, "privateKey");
    }

    /**
     * @return an SSL context serving this identity
     * @throws IllegalArgumentException naming the file that cannot be read or parsed
     */
    public SSLContext sslContext() {
        try {
            Collection<? extends Certificate> chain = readChain();
            PrivateKey key = readKey();
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            char[] password = new char[0];
            ks.setKeyEntry("server", key, password, chain.toArray(Certificate[]::new));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, password);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), null, null);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use TLS certificate " + certificateChain + " with key " + privateKey
                    + ": " + e.getMessage(), e);
        }
    }

    /** @throws IllegalArgumentException naming the file when it cannot be read or holds no PEM certificate */
    private Collection<? extends Certificate> readChain() throws GeneralSecurityException {
        byte[] pem = read(certificateChain, "TLS certificate");
        if (!new String(pem, StandardCharsets.ISO_8859_1).contains("-----BEGIN CERTIFICATE-----")) {
            throw new IllegalArgumentException("TLS certificate " + certificateChain + " is not a PEM certificate "
                    + "chain (no -----BEGIN CERTIFICATE----- line)");
        }
        Collection<? extends Certificate> chain;
        try {
            chain = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem));
        } catch (java.security.cert.CertificateException e) {
            throw new IllegalArgumentException("TLS certificate " + certificateChain + " cannot be parsed: "
                    + e.getMessage(), e);
        }
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("no certificate in " + certificateChain);
        }
        return chain;
    }

    /** @throws IllegalArgumentException naming the file and why it cannot be read */
    private static byte[] read(Path file, String what) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the " + what + ": " + IoErrors.describe(e), e);
        }
    }

    private PrivateKey readKey() throws GeneralSecurityException {
        String pem = new String(read(privateKey, "TLS key"), StandardCharsets.US_ASCII);
        int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
        int end = pem.indexOf("-----END PRIVATE KEY-----");
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException(privateKey + " is not an unencrypted PKCS#8 PEM key (BEGIN PRIVATE KEY); "
                    + "convert it with: openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-pkcs8.pem");
        }
        byte[] der = Base64.getMimeDecoder().decode(pem.substring(begin + 27, end));
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : new String[] {"RSA", "EC", "Ed25519"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new IllegalArgumentException(privateKey + " holds a key that is neither RSA, EC nor Ed25519");
    }
}
