package io.sluice.wire;

import java.util.Objects;

/**
 * The requested offset is below the segment's start offset (the data was truncated away), or a conditional
 * table update named a table-segment offset that is not the current length. Wire type 56.
 *
 * <pre>
 * requestId i64 | segment UTF | startOffset i64 | serverStackTrace UTF (opt, "") | offset i64 (opt, −1)
 * </pre>
 *
 * @param requestId the failed request's id
 * @param segment the segment
 * @param startOffset the segment's current start offset (for a table offset mismatch: the expected offset)
 * @param serverStackTrace the server's explanation
 * @param offset the offset the request asked for, −1 if none
 */
public record SegmentIsTruncated(long requestId, String segment, long startOffset, String serverStackTrace,
                                 long offset) implements ErrorReply {

    /** Checks that the name is present; a null stack trace becomes "". */
    public SegmentIsTruncated {
        Objects.requireNonNull(segment, "segment");
        serverStackTrace = serverStackTrace == null ? "" : serverStackTrace;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.SEGMENT_IS_TRUNCATED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeLong(startOffset);
        out.writeUtf(serverStackTrace);
        out.writeLong(offset);
    }

    static SegmentIsTruncated readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        long startOffset = in.readLong("startOffset");
        String trace = in.readUtfOr("serverStackTrace", "");
        long offset = in.readLongOr("offset", -1L);
        return new SegmentIsTruncated(requestId, segment, startOffset, trace, offset);
    }
}
