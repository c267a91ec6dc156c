package io.sluice.common;

import java.security.cert.CertificateException;
import java.util.Optional;

/**
 * Tells a refused server certificate from other TLS and network failures: the JDK reports an untrusted chain, an
 * expired certificate and a host name the certificate does not name as a {@link CertificateException} somewhere in
 * the cause chain of the handshake's failure (the PKIX validator's exception is one). The controller client and the
 * segment-store connections use it to fail at once with a clear error instead of retrying a configuration problem.
 */
public final class Certificates {
    private Certificates() {
    }

    /**
     * @param failure a failed connection attempt, any depth of causes
     * @return why the server's certificate was refused, if that is what failed: the message of the deepest
     *     certificate failure in the chain (e.g. "PKIX path building failed: ... unable to find valid certification
     *     path to requested target", "No subject alternative names matching IP address 127.0.0.1 found")
     */
    public static Optional<String> rejection(Throwable failure) {
        CertificateException found = null;
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 32; t = t.getCause(), depth++) {
            if (t instanceof CertificateException c) {
                found = c;
            }
        }
        if (found == null) {
            return Optional.empty();
        }
        String why = found.getMessage();
        return Optional.of(why == null || why.isBlank() ? found.getClass().getSimpleName() : why);
    }

    /**
     * @param trustStore the configured trust store's description, or null for the JVM's default
     * @return a hint on what the client trusted, for the error message
     */
    public static String trusted(Object trustStore) {
        return trustStore == null ? "the client trusts the JVM's default CAs (no trust store given)"
                : "the client trusts the CAs in " + trustStore;
    }
}
