package io.sluice.wire;

import java.util.Objects;

/**
 * Admin request: list the long-term storage chunks of a segment. Wire type −5 (admin port only).
 *
 * <pre>
 * segment UTF | delegationToken UTF | requestId i64
 * </pre>
 * Answered by {@link StorageChunksListed}.
 *
 * @param segment the qualified segment name
 * @param delegationToken the admin token ("" when auth is off)
 * @param requestId echoed in the reply
 */
public record ListStorageChunks(String segment, String delegationToken, long requestId) implements Request {

    /** Checks the fields: the name is required; a null token is sent as "". */
    public ListStorageChunks {
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.LIST_STORAGE_CHUNKS;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeUtf(segment);
        out.writeUtf(delegationToken);
        out.writeLong(requestId);
    }

    static ListStorageChunks readFrom(WireInput in) {
        String segment = in.readUtf("segment");
        String token = in.readUtf("delegationToken");
        long requestId = in.readLong("requestId");
        return new ListStorageChunks(segment, token, requestId);
    }

    @Override
    public String toString() {
        return "ListStorageChunks[segment=" + segment + ", requestId=" + requestId + "]";
    }
}
