package io.sluice.wire;

import java.util.Objects;

/**
 * Creates a stream segment. Wire type 20.
 *
 * <pre>
 * requestId i64 | segment UTF | targetRate i32 | scaleType u8 | delegationToken UTF | rolloverSizeBytes i64 (opt, 0)
 * </pre>
 * The wire carries {@code targetRate} before {@code scaleType}, the reverse of the component order. Answered by
 * {@link SegmentCreated}, or {@link SegmentAlreadyExists} (which callers treat as success).
 *
 * @param requestId echoed in the reply
 * @param segment the qualified segment name
 * @param scaleType {@link #NO_SCALE}, {@link #IN_KBYTES_PER_SEC} or {@link #IN_EVENTS_PER_SEC}
 * @param targetRate the rate the scaling policy aims for, in the unit of {@code scaleType}
 * @param delegationToken the controller's token ("" when auth is off)
 * @param rolloverSizeBytes the size of the segment's chunks in long-term storage, 0 for the server default
 */
public record CreateSegment(long requestId, String segment, byte scaleType, int targetRate, String delegationToken,
                            long rolloverSizeBytes) implements Request {
    /** Scale type: the segment does not scale. */
    public static final byte NO_SCALE = 0;
    /** Scale type: {@code targetRate} is in KiB per second. */
    public static final byte IN_KBYTES_PER_SEC = 1;
    /** Scale type: {@code targetRate} is in events per second. */
    public static final byte IN_EVENTS_PER_SEC = 2;

    /** Checks the fields: the name is required; a null token is sent as "". */
    public CreateSegment {
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.CREATE_SEGMENT;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeInt(targetRate);
        out.writeByte(scaleType);
        out.writeUtf(delegationToken);
        out.writeLong(rolloverSizeBytes);
    }

    static CreateSegment readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        int targetRate = in.readInt("targetRate");
        byte scaleType = in.readByte("scaleType");
        String token = in.readUtf("delegationToken");
        long rollover = in.readLongOr("rolloverSizeBytes", 0L);
        return new CreateSegment(requestId, segment, scaleType, targetRate, token, rollover);
    }

    @Override
    public String toString() {
        return "CreateSegment[requestId=" + requestId + ", segment=" + segment + ", scaleType=" + scaleType
                + ", targetRate=" + targetRate + ", rolloverSizeBytes=" + rolloverSizeBytes + "]";
    }
}
