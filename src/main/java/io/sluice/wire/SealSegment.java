package io.sluice.wire;

import java.util.Objects;

/**
 * Seals a segment: no more appends are accepted. Wire type 28.
 *
 * <pre>
 * requestId i64 | segment UTF | delegationToken UTF
 * </pre>
 * Answered by {@link SegmentSealed}, or {@link SegmentIsSealed} if it already was (callers treat that as success).
 *
 * @param requestId echoed in the reply
 * @param segment the qualified segment name
 * @param delegationToken the controller's token ("" when auth is off)
 */
public record SealSegment(long requestId, String segment, String delegationToken) implements Request {

    /** Checks the fields: the name is required; a null token is sent as "". */
    public SealSegment {
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.SEAL_SEGMENT;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeUtf(delegationToken);
    }

    static SealSegment readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        String token = in.readUtf("delegationToken");
        return new SealSegment(requestId, segment, token);
    }

    @Override
    public String toString() {
        return "SealSegment[requestId=" + requestId + ", segment=" + segment + "]";
    }
}
