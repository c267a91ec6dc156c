package io.sluice.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One page of a table segment's keys, reply to {@link ReadTableKeys}. Wire type 84.
 *
 * <pre>
 * requestId i64 | segment UTF | count i32 | TableKey × count | continuationToken BYTES
 * </pre>
 * The iteration is over when a page comes back empty.
 *
 * @param requestId the ReadTableKeys' request id
 * @param segment the table segment
 * @param keys the keys with their current versions (an unmodifiable copy)
 * @param continuationToken the opaque resume point to send in the next request (a read-only view)
 */
public record TableKeysRead(long requestId, String segment, List<TableKey> keys, ByteBuffer continuationToken)
        implements Reply {

    /** Checks that the name and keys are present; the token is not copied. */
    public TableKeysRead {
        Objects.requireNonNull(segment, "segment");
        keys = List.copyOf(Objects.requireNonNull(keys, "keys"));
        continuationToken = Bytes.view(continuationToken, "continuationToken");
    }

    @Override
    public ByteBuffer continuationToken() {
        return continuationToken.duplicate();
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.TABLE_KEYS_READ;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeInt(keys.size());
        for (TableKey key : keys) {
            key.writeFields(out);
        }
        out.writeBlob(continuationToken);
    }

    static TableKeysRead readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        int count = in.readCount("keys.count", TableKey.MIN_WIRE_BYTES);
        List<TableKey> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            keys.add(TableKey.readFrom(in));
        }
        ByteBuffer continuationToken = in.readBlob("continuationToken");
        return new TableKeysRead(requestId, segment, keys, continuationToken);
    }

    @Override
    public String toString() {
        return "TableKeysRead[requestId=" + requestId + ", segment=" + segment + ", keys=" + keys
                + ", continuationToken=" + Bytes.describe(continuationToken) + "]";
    }
}
