package io.sluice.wire;

import java.util.Objects;

/**
 * Asks for the nearest event boundary at or after an offset of a segment (since wire version 17). Wire type 41.
 *
 * <pre>
 * requestId i64 | segment UTF | targetOffset i64 | delegationToken UTF
 * </pre>
 * Answered by {@link OffsetLocated}.
 *
 * @param requestId echoed in the reply
 * @param segment the qualified segment name
 * @param targetOffset the offset to locate an event boundary from
 * @param delegationToken the controller's token ("" when auth is off)
 */
public record LocateOffset(long requestId, String segment, long targetOffset, String delegationToken)
        implements Request {

    /** Checks the fields: the name is required; a null token is sent as "". */
    public LocateOffset {
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.LOCATE_OFFSET;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeLong(targetOffset);
        out.writeUtf(delegationToken);
    }

    static LocateOffset readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        long targetOffset = in.readLong("targetOffset");
        String token = in.readUtf("delegationToken");
        return new LocateOffset(requestId, segment, targetOffset, token);
    }

    @Override
    public String toString() {
        return "LocateOffset[requestId=" + requestId + ", segment=" + segment + ", targetOffset=" + targetOffset + "]";
    }
}
