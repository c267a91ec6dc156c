package io.sluice.wire;

import java.util.Objects;

/**
 * Changes a segment's scaling policy. Wire type 32.
 *
 * <pre>
 * requestId i64 | segment UTF | targetRate i32 | scaleType u8 | delegationToken UTF
 * </pre>
 * As in {@link CreateSegment}, the wire carries {@code targetRate} before {@code scaleType}. Answered by
 * {@link SegmentPolicyUpdated}.
 *
 * @param requestId echoed in the reply
 * @param segment the qualified segment name
 * @param scaleType {@link CreateSegment#NO_SCALE}, {@link CreateSegment#IN_KBYTES_PER_SEC} or
 *     {@link CreateSegment#IN_EVENTS_PER_SEC}
 * @param targetRate the rate the scaling policy aims for, in the unit of {@code scaleType}
 * @param delegationToken the controller's token ("" when auth is off)
 */
public record UpdateSegmentPolicy(long requestId, String segment, byte scaleType, int targetRate,
                                  String delegationToken) implements Request {

    /** Checks the fields: the name is required; a null token is sent as "". */
    public UpdateSegmentPolicy {
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.UPDATE_SEGMENT_POLICY;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeInt(targetRate);
        out.writeByte(scaleType);
        out.writeUtf(delegationToken);
    }

    static UpdateSegmentPolicy readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        int targetRate = in.readInt("targetRate");
        byte scaleType = in.readByte("scaleType");
        String token = in.readUtf("delegationToken");
        return new UpdateSegmentPolicy(requestId, segment, scaleType, targetRate, token);
    }

    @Override
    public String toString() {
        return "UpdateSegmentPolicy[requestId=" + requestId + ", segment=" + segment + ", scaleType=" + scaleType
                + ", targetRate=" + targetRate + "]";
    }
}
