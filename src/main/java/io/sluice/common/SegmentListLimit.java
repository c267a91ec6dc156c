package io.sluice.common;

import java.nio.charset.StandardCharsets;

/**
 * The most segments a stream may be created with, so that the controller's list of them fits into one reply.
 * Pravega's controller sets no bound, but every reply listing a stream's segments repeats the scope and stream name
 * for each segment, and a gRPC message holds at most 4 MiB: a stream of 100,000 segments could not even be
 * inspected. The bound therefore depends on the names: about 5,800 segments with names of the longest length (250
 * characters each), about 39,000 with names of 20 characters. Stateless.
 */
public final class SegmentListLimit {
    /** Bytes of one reply that the listed segments may take: 3 MiB of gRPC's 4 MiB, the rest for the token. */
    static final int LIST_BUDGET_BYTES = 3 * 1024 * 1024;
    /**
     * Bytes of one listed segment besides its two names, about: the field tags and lengths of the segment range,
     * segment id and stream info messages, the segment id (a varint of up to 10 bytes) and the key range (two
     * doubles). 39 with short names, 43 with the longest (two-byte lengths); the budget's last MiB covers the rest.
     */
    static final int PER_SEGMENT_BYTES = 40;

    private SegmentListLimit() {
    }

    /**
     * @param scope the stream's scope
     * @param stream the stream's name
     * @return the most segments a stream of these names may start with
     */
    public static int maxSegments(String scope, String stream) {
        int perSegment = scope.getBytes(StandardCharsets.UTF_8).length + stream.getBytes(StandardCharsets.UTF_8).length
                + PER_SEGMENT_BYTES;
        return LIST_BUDGET_BYTES / perSegment;
    }
}
