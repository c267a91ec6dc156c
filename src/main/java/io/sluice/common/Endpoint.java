package io.sluice.common;

import java.util.Objects;

/**
 * A server address: host name or IP literal and TCP port. Used for segment stores (what the controller's
 * {@code getURI} answers) and for controller instances. Immutable value.
 *
 * @param host a host name or IP literal, without brackets for IPv6 (e.g. {@code "::1"})
 * @param port the TCP port, 1 to 65535
 */
public record Endpoint(String host, int port) {

    /**
     * @throws IllegalArgumentException if the host is blank or contains whitespace or '/', or the port is out of range
     */
    public Endpoint {
        Objects.requireNonNull(host, "host");
        if (host.isBlank()) {
            throw new IllegalArgumentException("endpoint host must not be blank");
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (Character.isWhitespace(c) || c == '/' || c == ',' || c == '[' || c == ']') {
                throw new IllegalArgumentException("endpoint host '" + host + "' contains the illegal character '"
                        + c + "'");
            }
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("endpoint port must be in [1, 65535]: " + port + " (host " + host + ")");
        }
    }

    /**
     * Parses {@code host:port}, {@code [ipv6]:port}, or a bare host (taking {@code defaultPort}).
     *
     * @param text the address
     * @param defaultPort the port when {@code text} has none
     * @return the endpoint
     * @throws IllegalArgumentException naming what is wrong with {@code text}
     */
    public static Endpoint parse(String text, int defaultPort) {
        Objects.requireNonNull(text, "text");
        String s = text.strip();
        if (s.isEmpty()) {
            throw new IllegalArgumentException("empty address: expected host[:port]");
        }
        String host;
        String port = null;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("address '" + text + "' has an unclosed '[' (IPv6 literal)");
            }
            host = s.substring(1, close);
            String rest = s.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    throw new IllegalArgumentException("address '" + text + "': expected ':port' after ']'");
                }
                port = rest.substring(1);
            }
        } else {
            int colon = s.lastIndexOf(':');
            if (colon >= 0 && s.indexOf(':') != colon) {
                throw new IllegalArgumentException("address '" + text
                        + "' looks like an IPv6 literal: write it in brackets, e.g. [::1]:9090");
            }
            host = colon < 0 ? s : s.substring(0, colon);
            port = colon < 0 ? null : s.substring(colon + 1);
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("address '" + text + "' has no host");
        }
        if (port == null) {
            return new Endpoint(host, defaultPort);
        }
        if (port.isEmpty() || port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("address '" + text + "' has an invalid port '" + port + "'");
        }
        return new Endpoint(host, Integer.parseInt(port));
    }

    /** @return {@code host:port}, with IPv6 literals in brackets */
    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
