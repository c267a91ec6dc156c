package io.sluice.errors;

/**
 * The client refused a server's TLS certificate: it was not issued by a CA the client trusts (no trust store given
 * means the JVM's default trust, which knows no private CA), it has expired, or it does not name the host the client
 * connected to (host names are verified unless turned off). A configuration problem, not a network one: not
 * retriable, so a call fails at once instead of retrying until its deadline. The message names the server (the
 * controller or the segment store and its address) and what was wrong with the certificate.
 */
public class CertificateRejectedException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the server involved
     * @param cause the underlying failure (the handshake's)
     */
    public CertificateRejectedException(String message, Throwable cause) {
        super(message, cause);
    }
}
