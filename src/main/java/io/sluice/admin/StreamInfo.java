package io.sluice.admin;

import java.util.Objects;

import io.sluice.stream.ScopedStream;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.StreamCut;

/**
 * A stream's configuration and extent.
 *
 * @param stream the stream
 * @param configuration its configuration
 * @param head where its data begins now (after truncation)
 * @param tail where it ends now: the current segments at their lengths ({@link StreamCut#UNBOUNDED} once sealed)
 * @param sealed whether the stream is sealed
 */
public record StreamInfo(ScopedStream stream, StreamConfiguration configuration, StreamCut head, StreamCut tail, boolean sealed) {

    /** Checks that nothing is missing. */
    public StreamInfo {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(configuration, "configuration");
        Objects.requireNonNull(head, "head");
        Objects.requireNonNull(tail, "tail");
    }
}
