package io.sluice.wire;

import java.util.Objects;

/**
 * The segment to create exists already (callers that create idempotently treat this as success). Wire type 52.
 *
 * <pre>
 * requestId i64 | segment UTF | serverStackTrace UTF (opt, "")
 * </pre>
 *
 * @param requestId the failed request's id
 * @param segment the existing segment
 * @param serverStackTrace the server's explanation
 */
public record SegmentAlreadyExists(long requestId, String segment, String serverStackTrace) implements ErrorReply {

    /** Checks that the name is present; a null stack trace becomes "". */
    public SegmentAlreadyExists {
        Objects.requireNonNull(segment, "segment");
        serverStackTrace = serverStackTrace == null ? "" : serverStackTrace;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.SEGMENT_ALREADY_EXISTS;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeUtf(serverStackTrace);
    }

    static SegmentAlreadyExists readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        String trace = in.readUtfOr("serverStackTrace", "");
        return new SegmentAlreadyExists(requestId, segment, trace);
    }
}
