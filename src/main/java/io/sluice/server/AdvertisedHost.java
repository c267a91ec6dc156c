package io.sluice.server;

import java.net.InetAddress;
import java.net.UnknownHostException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host the server tells clients to connect to (the controller's {@code getURI} and
 * {@code getControllerServerList}, {@link EmbeddedServer#controllerUri()}), which need not be the address it listens
 * on. As Pravega's {@code pravegaservice.service.published.host.nameOrIp}, it defaults to the listening host; but a
 * wildcard listening address ({@code 0.0.0.0}, {@code ::}) means nothing to a client, so then the default is this
 * machine's address ({@link InetAddress#getLocalHost()}, what Pravega listens on when given no address), or
 * {@code 127.0.0.1} if the machine's name does not resolve.
 */
final class AdvertisedHost {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedServer.class);
    private static final String LOOPBACK = "127.0.0.1";

    private AdvertisedHost() {
    }

    /** @return what a server listening on {@code bindHost} advertises when not told otherwise */
    static String defaultFor(String bindHost) {
        if (!isWildcard(bindHost)) {
            return bindHost;
        }
        try {
            return InetAddress.getLocalHost().getHostAddress();
        } catch (UnknownHostException e) {
            LOG.warn("listening on {} and this machine's name does not resolve ({}): advertising {}; set the "
                    + "advertised host for clients on other machines", bindHost, e.getMessage(), LOOPBACK);
            return LOOPBACK;
        }
    }

    /**
     * Checks a host given to advertise.
     *
     * @return {@code host}
     * @throws IllegalArgumentException if it is empty, holds blanks or a port, or is a wildcard address
     */
    static String check(String host) {
        String h = unbracketed(host);
        if (h.isBlank() || h.chars().anyMatch(c -> Character.isWhitespace(c) || "/,[]".indexOf(c) >= 0)
                || (h.contains(":") && !isIpLiteral(h))) {
            throw new IllegalArgumentException("advertised host must be a host name or IP address (without a port) "
                    + "clients can connect to, got '" + host + "'");
        }
        if (isWildcard(h)) {
            throw new IllegalArgumentException("advertised host must be an address clients can connect to, not the "
                    + "wildcard address " + host);
        }
        return h;
    }

    /** @return whether {@code host} is an IP literal for "any local address" (or empty, which binds the same) */
    static boolean isWildcard(String host) {
        String h = unbracketed(host);
        if (h.isEmpty()) {
            return true;
        }
        boolean literal = h.contains(":") || h.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
        return literal && isIpLiteral(h) && address(h).isAnyLocalAddress();
    }

    private static String unbracketed(String host) {
        return host.length() >= 2 && host.startsWith("[") && host.endsWith("]")
                ? host.substring(1, host.length() - 1) : host;
    }

    /** Only for text that looks like an IP literal (digits and dots, or a colon): no name lookup happens. */
    private static boolean isIpLiteral(String h) {
        return address(h) != null;
    }

    private static InetAddress address(String literal) {
        try {
            // brackets make an IPv6 candidate fail without a name lookup when it is not one
            return InetAddress.getByName(literal.contains(":") ? "[" + literal + "]" : literal);
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
