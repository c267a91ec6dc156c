package io.sluice.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Reads the values of the given table keys. Wire type 78.
 *
 * <pre>
 * requestId i64 | segment UTF | delegationToken UTF | count i32 | TableKey × count
 * </pre>
 * The keys' versions are not used (clients send {@link TableKey#NO_VERSION}). Answered by {@link TableRead}, or
 * {@link NoSuchSegment}.
 *
 * @param requestId echoed in the reply
 * @param segment the table segment
 * @param delegationToken the controller's token ("" when auth is off)
 * @param keys the keys to read (an unmodifiable copy)
 */
public record ReadTable(long requestId, String segment, String delegationToken, List<TableKey> keys)
        implements Request {

    /** Checks that the name and keys are present; a null token is sent as "". */
    public ReadTable {
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
        keys = List.copyOf(Objects.requireNonNull(keys, "keys"));
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.READ_TABLE;
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
    }

    static ReadTable readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        String token = in.readUtf("delegationToken");
        int count = in.readCount("keys.count", TableKey.MIN_WIRE_BYTES);
        List<TableKey> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            keys.add(TableKey.readFrom(in));
        }
        return new ReadTable(requestId, segment, token, keys);
    }

    @Override
    public String toString() {
        return "ReadTable[requestId=" + requestId + ", segment=" + segment + ", keys=" + keys + "]";
    }
}
