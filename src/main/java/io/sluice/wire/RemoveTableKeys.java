package io.sluice.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Removes table keys, atomically as a batch. Wire type 76.
 *
 * <pre>
 * requestId i64 | segment UTF | delegationToken UTF | count i32 | TableKey × count
 *               | tableSegmentOffset i64 (opt, −1)
 * </pre>
 * Conditions work as in {@link UpdateTableEntries}. Answered by {@link TableKeysRemoved} (a real server also sends
 * it for missing keys), {@link TableKeyBadVersion}, {@link TableKeyDoesNotExist}, or {@link NoSuchSegment}.
 *
 * @param requestId echoed in the reply
 * @param segment the table segment
 * @param delegationToken the controller's token ("" when auth is off)
 * @param keys the keys, each with its expected version (an unmodifiable copy)
 * @param tableSegmentOffset the table segment length the removal requires, or
 *     {@link UpdateTableEntries#NULL_TABLE_SEGMENT_OFFSET}
 */
public record RemoveTableKeys(long requestId, String segment, String delegationToken, List<TableKey> keys,
                              long tableSegmentOffset) implements Request {

    /** Checks that the name and keys are present; a null token is sent as "". */
    public RemoveTableKeys {
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
        keys = List.copyOf(Objects.requireNonNull(keys, "keys"));
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.REMOVE_TABLE_KEYS;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeUtf(delegationToken);
        out.writeInt(keys.size());
        for (TableKey key : keys) {
            key.writeFields(out);
        }
        out.writeLong(tableSegmentOffset);
    }

    static RemoveTableKeys readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        String token = in.readUtf("delegationToken");
        int count = in.readCount("keys.count", TableKey.MIN_WIRE_BYTES);
        List<TableKey> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            keys.add(TableKey.readFrom(in));
        }
        long offset = in.readLongOr("tableSegmentOffset", UpdateTableEntries.NULL_TABLE_SEGMENT_OFFSET);
        return new RemoveTableKeys(requestId, segment, token, keys, offset);
    }

    @Override
    public String toString() {
        return "RemoveTableKeys[requestId=" + requestId + ", segment=" + segment + ", keys=" + keys
                + ", tableSegmentOffset=" + tableSegmentOffset + "]";
    }
}
