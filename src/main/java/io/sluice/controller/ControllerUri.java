package io.sluice.controller;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;

import io.sluice.common.Endpoint;

/**
 * Where the controller is: a scheme and one or more {@code host[:port]} endpoints (default port
 * {@value #DEFAULT_PORT}). Immutable value.
 *
 * <table>
 *   <caption>Schemes</caption>
 *   <tr><th>scheme</th><th>transport</th><th>the endpoints are</th></tr>
 *   <tr><td>{@code tcp://}</td><td>plaintext</td><td>all the controllers (round-robin)</td></tr>
 *   <tr><td>{@code tls://}, {@code ssl://}</td><td>TLS</td><td>all the controllers (round-robin)</td></tr>
 *   <tr><td>{@code pravega://}</td><td>plaintext</td><td>seeds: the client asks them for the controller list
 *       ({@code getControllerServerList}) and round-robins over the answer, re-asking periodically</td></tr>
 *   <tr><td>{@code pravegas://}</td><td>TLS</td><td>seeds, as for {@code pravega://}</td></tr>
 * </table>
 *
 * <p>Examples: {@code tcp://localhost:9090}, {@code tls://c1.example.com,c2.example.com:9443},
 * {@code pravega://[::1]:9090}.
 *
 * @param scheme the scheme
 * @param endpoints the endpoints, at least one
 */
public record ControllerUri(Scheme scheme, List<Endpoint> endpoints) {

    /** The controller's default gRPC port. */
    public static final int DEFAULT_PORT = 9090;

    /** The URI schemes a controller URI may use. */
    public enum Scheme {
        /** Direct, plaintext. */
        TCP("tcp", false, false),
        /** Direct, TLS. */
        TLS("tls", true, false),
        /** Direct, TLS (same as {@link #TLS}). */
        SSL("ssl", true, false),
        /** Discovery, plaintext. */
        PRAVEGA("pravega", false, true),
        /** Discovery, TLS. */
        PRAVEGAS("pravegas", true, true);

        private final String text;
        private final boolean tls;
        private final boolean discovery;

        Scheme(String text, boolean tls, boolean discovery) {
            this.text = text;
            this.tls = tls;
            this.discovery = discovery;
        }

        /** @return the scheme as written in URIs */
        public String text() {
            return text;
        }

        /** @return true if connections use TLS */
        public boolean tls() {
            return tls;
        }

        /** @return true if the endpoints are seeds for discovery */
        public boolean discovery() {
            return discovery;
        }
    }

    /**
     * @throws IllegalArgumentException if there is no endpoint
     */
    public ControllerUri {
        Objects.requireNonNull(scheme, "scheme");
        endpoints = List.copyOf(endpoints);
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("a controller URI needs at least one endpoint");
        }
    }

    /**
     * Parses a controller URI such as {@code tcp://host1:9090,host2:9090}. A trailing {@code '/'} is allowed; paths,
     * queries, fragments and user info are not.
     *
     * @param uri the URI
     * @return the parsed URI
     * @throws IllegalArgumentException naming what is wrong with {@code uri}
     */
    public static ControllerUri parse(String uri) {
        Objects.requireNonNull(uri, "uri");
        String s = uri.strip();
        int sep = s.indexOf("://");
        if (sep <= 0) {
            throw new IllegalArgumentException("controller URI '" + uri + "' has no scheme: expected e.g. "
                    + "tcp://host:9090 (schemes: " + schemes() + ")");
        }
        String schemeText = s.substring(0, sep).toLowerCase(Locale.ROOT);
        Scheme scheme = null;
        for (Scheme candidate : Scheme.values()) {
            if (candidate.text.equals(schemeText)) {
                scheme = candidate;
            }
        }
        if (scheme == null) {
            throw new IllegalArgumentException("controller URI '" + uri + "' has the unknown scheme '"
                    + s.substring(0, sep) + "' (schemes: " + schemes() + ")");
        }
        String authority = s.substring(sep + 3);
        if (authority.endsWith("/")) {
            authority = authority.substring(0, authority.length() - 1);
        }
        for (char c : new char[] {'/', '?', '#', '@'}) {
            if (authority.indexOf(c) >= 0) {
                throw new IllegalArgumentException("controller URI '" + uri + "' may only hold host:port endpoints; "
                        + "found '" + c + "'");
            }
        }
        if (authority.isEmpty()) {
            throw new IllegalArgumentException("controller URI '" + uri + "' has no host");
        }
        List<Endpoint> endpoints = new ArrayList<>();
        for (String part : authority.split(",", -1)) {
            if (part.isBlank()) {
                throw new IllegalArgumentException("controller URI '" + uri + "' has an empty endpoint in its list");
            }
            try {
                endpoints.add(Endpoint.parse(part, DEFAULT_PORT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("controller URI '" + uri + "': " + e.getMessage(), e);
            }
        }
        return new ControllerUri(scheme, endpoints);
    }

    /** @return true if connections use TLS */
    public boolean tls() {
        return scheme.tls();
    }

    /** @return true if the endpoints are discovery seeds */
    public boolean discovery() {
        return scheme.discovery();
    }

    /** @return the URI in canonical form, e.g. {@code tcp://h1:9090,h2:9090} */
    @Override
    public String toString() {
        return scheme.text + "://" + endpoints.stream().map(Endpoint::toString).collect(Collectors.joining(","));
    }

    private static String schemes() {
        StringBuilder sb = new StringBuilder();
        for (Scheme scheme : Scheme.values()) {
            sb.append(sb.isEmpty() ? "" : ", ").append(scheme.text).append("://");
        }
        return sb.toString();
    }
}
