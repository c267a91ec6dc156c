package io.sluice.wire;

import java.util.Objects;

/**
 * Reads the table entries changed since a position in the table segment. Wire type 88 (its reply's code, 87, is
 * lower).
 *
 * <pre>
 * requestId i64 | segment UTF | delegationToken UTF | fromPosition i64 | suggestedEntryCount i32
 * </pre>
 * Answered by {@link TableEntriesDeltaRead}, or {@link NoSuchSegment}.
 *
 * @param requestId echoed in the reply
 * @param segment the table segment
 * @param delegationToken the controller's token ("" when auth is off)
 * @param fromPosition the table-segment offset to start from (the previous reply's {@code lastPosition})
 * @param suggestedEntryCount the most entries the reply should hold
 */
public record ReadTableEntriesDelta(long requestId, String segment, String delegationToken, long fromPosition,
                                    int suggestedEntryCount) implements Request {

    /** Checks that the name is present; a null token is sent as "". */
    public ReadTableEntriesDelta {
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.READ_TABLE_ENTRIES_DELTA;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeUtf(delegationToken);
        out.writeLong(fromPosition);
        out.writeInt(suggestedEntryCount);
    }

    static ReadTableEntriesDelta readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        String token = in.readUtf("delegationToken");
        long fromPosition = in.readLong("fromPosition");
        int suggestedEntryCount = in.readInt("suggestedEntryCount");
        return new ReadTableEntriesDelta(requestId, segment, token, fromPosition, suggestedEntryCount);
    }

    @Override
    public String toString() {
        return "ReadTableEntriesDelta[requestId=" + requestId + ", segment=" + segment + ", fromPosition="
                + fromPosition + ", suggestedEntryCount=" + suggestedEntryCount + "]";
    }
}
