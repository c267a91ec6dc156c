package io.sluice.wire;

import java.util.Objects;

/**
 * Asks for data of a segment from an offset. Wire type 9.
 *
 * <pre>
 * segment UTF | offset i64 | suggestedLength i32 | delegationToken UTF | requestId i64 (opt, −1)
 * </pre>
 * Unlike most requests the segment comes first and the request id last. Answered by {@link SegmentRead}; a read at
 * the tail of an unsealed segment waits until data is appended.
 *
 * @param segment the qualified segment name
 * @param offset the segment offset to read from
 * @param suggestedLength how many bytes the reader would like (the server may return fewer or more)
 * @param delegationToken the controller's token ("" when auth is off)
 * @param requestId echoed in the reply
 */
public record ReadSegment(String segment, long offset, int suggestedLength, String delegationToken, long requestId)
        implements Request {

    /** Checks the fields: the name is required; a null token is sent as "". */
    public ReadSegment {
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.READ_SEGMENT;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeUtf(segment);
        out.writeLong(offset);
        out.writeInt(suggestedLength);
        out.writeUtf(delegationToken);
        out.writeLong(requestId);
    }

    static ReadSegment readFrom(WireInput in) {
        String segment = in.readUtf("segment");
        long offset = in.readLong("offset");
        int suggestedLength = in.readInt("suggestedLength");
        String token = in.readUtf("delegationToken");
        long requestId = in.readLongOr("requestId", -1L);
        return new ReadSegment(segment, offset, suggestedLength, token, requestId);
    }

    @Override
    public String toString() {
        return "ReadSegment[segment=" + segment + ", offset=" + offset + ", suggestedLength=" + suggestedLength
                + ", requestId=" + requestId + "]";
    }
}
