package io.sluice.wire;

import java.util.Objects;

/**
 * A {@link DeleteTableSegment} with {@code mustBeEmpty} found keys in the table segment. Wire type 80.
 *
 * <pre>
 * requestId i64 | segment UTF | serverStackTrace UTF
 * </pre>
 * Unlike most error replies the stack trace is mandatory: Pravega's reader does not check for its absence.
 *
 * @param requestId the failed request's id
 * @param segment the table segment
 * @param serverStackTrace the server's explanation
 */
public record TableSegmentNotEmpty(long requestId, String segment, String serverStackTrace) implements ErrorReply {

    /** Checks that the name is present; a null stack trace becomes "". */
    public TableSegmentNotEmpty {
        Objects.requireNonNull(segment, "segment");
        serverStackTrace = serverStackTrace == null ? "" : serverStackTrace;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.TABLE_SEGMENT_NOT_EMPTY;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeUtf(serverStackTrace);
    }

    static TableSegmentNotEmpty readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        String trace = in.readUtf("serverStackTrace");
        return new TableSegmentNotEmpty(requestId, segment, trace);
    }
}
