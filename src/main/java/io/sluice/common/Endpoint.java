package io.sluice.common;

import java.util.Objects;

/**
 * A server address: host name or IP literal, and port.
 *
 * @param host the host name or IP address (IPv6 literals without brackets)
 * @param port the TCP port, 1..65535
 */
public record Endpoint(String host, int port) {

    /** Checks the host and port. */
    public Endpoint {
        Objects.requireNonNull(host, "host");
        if (host.isBlank()) {
            throw new IllegalArgumentException("endpoint host must not be empty");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("endpoint port must be in 1..65535, got " + port + " for host " + host);
        }
    }

    /**
     * @param hostPort {@code host:port}, or {@code [ipv6]:port}
     * @return the endpoint
     * @throws IllegalArgumentException naming the text if it is not {@code host:port}
     */
    public static Endpoint parse(String hostPort) {
        Objects.requireNonNull(hostPort, "hostPort");
        String s = hostPort.trim();
        int colon = s.lastIndexOf(':');
        if (colon <= 0 || colon == s.length() - 1) {
            throw new IllegalArgumentException("expected host:port but got '" + hostPort + "'");
        }
        String host = s.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            return new Endpoint(host, Integer.parseInt(s.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected host:port but the port of '" + hostPort + "' is not a number");
        }
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
