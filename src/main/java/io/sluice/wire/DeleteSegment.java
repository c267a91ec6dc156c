package io.sluice.wire;

import java.util.Objects;

/**
 * Deletes a segment (stream or table segment). Wire type 30.
 *
 * <pre>
 * requestId i64 | segment UTF | delegationToken UTF
 * </pre>
 * Answered by {@link SegmentDeleted}, or {@link NoSuchSegment} if it is already gone (callers treat that as success).
 *
 * @param requestId echoed in the reply
 * @param segment the qualified segment name
 * @param delegationToken the controller's token ("" when auth is off)
 */
public record DeleteSegment(long requestId, String segment, String delegationToken) implements Request {

    /** Checks the fields: the name is required; a null token is sent as "". */
    public DeleteSegment {
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.DELETE_SEGMENT;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeUtf(delegationToken);
    }

    static DeleteSegment readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        String token = in.readUtf("delegationToken");
        return new DeleteSegment(requestId, segment, token);
    }

    @Override
    public String toString() {
        return "DeleteSegment[requestId=" + requestId + ", segment=" + segment + "]";
    }
}
