package io.sluice.wire;

import java.util.Objects;

/**
 * The keys were removed, reply to {@link RemoveTableKeys}. Wire type 77.
 *
 * <pre>
 * requestId i64 | segment UTF
 * </pre>
 *
 * @param requestId the RemoveTableKeys' request id
 * @param segment the table segment
 */
public record TableKeysRemoved(long requestId, String segment) implements Reply {

    /** Checks that the name is present. */
    public TableKeysRemoved {
        Objects.requireNonNull(segment, "segment");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.TABLE_KEYS_REMOVED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
    }

    static TableKeysRemoved readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        return new TableKeysRemoved(requestId, segment);
    }
}
