package io.sluice.wire;

import java.util.Objects;

/**
 * Creates a table segment. Wire type 70.
 *
 * <pre>
 * requestId i64 | segment UTF | delegationToken UTF | sortedDeprecated bool (opt, false) | keyLength i32 (opt, 0)
 *               | rolloverSizeBytes i64 (opt, 0)
 * </pre>
 * Unlike most requests the token comes before the optional fields; pravega-client-rust 0.3.7 sends only the first
 * three. Answered by {@link SegmentCreated}, or {@link SegmentAlreadyExists}.
 *
 * @param requestId echoed in the reply
 * @param segment the table segment to create
 * @param sortedDeprecated ignored by current servers (sorted tables were removed)
 * @param keyLength 0 for variable-length keys, otherwise the fixed length of every key (key-value tables)
 * @param delegationToken the controller's token ("" when auth is off)
 * @param rolloverSizeBytes the segment's rollover size in storage, 0 for the server default
 */
public record CreateTableSegment(long requestId, String segment, boolean sortedDeprecated, int keyLength,
                                 String delegationToken, long rolloverSizeBytes) implements Request {

    /** Checks that the name is present; a null token is sent as "". */
    public CreateTableSegment {
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.CREATE_TABLE_SEGMENT;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeUtf(delegationToken);
        out.writeBoolean(sortedDeprecated);
        out.writeInt(keyLength);
        out.writeLong(rolloverSizeBytes);
    }

    static CreateTableSegment readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        String token = in.readUtf("delegationToken");
        boolean sorted = in.has(1) && in.readBoolean("sortedDeprecated");
        int keyLength = in.readIntOr("keyLength", 0);
        long rollover = in.readLongOr("rolloverSizeBytes", 0L);
        return new CreateTableSegment(requestId, segment, sorted, keyLength, token, rollover);
    }

    @Override
    public String toString() {
        return "CreateTableSegment[requestId=" + requestId + ", segment=" + segment + ", sortedDeprecated="
                + sortedDeprecated + ", keyLength=" + keyLength + ", rolloverSizeBytes=" + rolloverSizeBytes + "]";
    }
}
