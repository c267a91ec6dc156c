package io.sluice.server;

/**
 * What one client connection to the segment store may hold of the server's memory. A well-behaved client never
 * notices the first two (they only slow a connection down) and never sends a frame the third refuses.
 *
 * @param maxInflightBytes append bytes of one connection that may wait to become durable; past it the server stops
 *     reading from that connection until some are (backpressure, not an error)
 * @param maxQueuedReplyBytes reply bytes queued for one connection that it has not read yet; past it the server
 *     stops reading that connection's requests until the client reads its replies (backpressure)
 * @param maxFrameBeforeAuth the largest frame a connection may send before one of its requests carried a valid
 *     delegation token, when the server checks tokens; a larger one closes the connection. A table update, removal
 *     or read over the limit is let through when the token at its start is valid.
 */
public record ServerLimits(int maxInflightBytes, int maxQueuedReplyBytes, int maxFrameBeforeAuth) {
    /** The defaults: 64 MiB in flight, 16 MiB of queued replies, 1 MiB before authentication. */
    public static final ServerLimits DEFAULTS = new ServerLimits(64 << 20, 16 << 20, 1 << 20);

    /** The smallest value each limit may take: every single frame of the protocol must fit. */
    static final int MIN_BYTES = 64 * 1024;

    /**
     * @throws IllegalArgumentException if a limit is below 64 KiB
     */
    public ServerLimits {
        check("maxInflightBytes", maxInflightBytes);
        check("maxQueuedReplyBytes", maxQueuedReplyBytes);
        check("maxFrameBeforeAuth", maxFrameBeforeAuth);
    }

    private static void check(String what, int value) {
        if (value < MIN_BYTES) {
            throw new IllegalArgumentException(what + " must be at least " + MIN_BYTES + " bytes, got " + value);
        }
    }
}
