package io.sluice.wire;

/**
 * Admin request: flush a segment container's data to long-term storage. Wire type −3 (admin port only).
 *
 * <pre>
 * containerId i32 | delegationToken UTF | requestId i64
 * </pre>
 * Answered by {@link StorageFlushed}.
 *
 * @param containerId the segment container to flush
 * @param delegationToken the admin token ("" when auth is off)
 * @param requestId echoed in the reply
 */
public record FlushToStorage(int containerId, String delegationToken, long requestId) implements Request {

    /** A null token is sent as "". */
    public FlushToStorage {
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.FLUSH_TO_STORAGE;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeInt(containerId);
        out.writeUtf(delegationToken);
        out.writeLong(requestId);
    }

    static FlushToStorage readFrom(WireInput in) {
        int containerId = in.readInt("containerId");
        String token = in.readUtf("delegationToken");
        long requestId = in.readLong("requestId");
        return new FlushToStorage(containerId, token, requestId);
    }

    @Override
    public String toString() {
        return "FlushToStorage[containerId=" + containerId + ", requestId=" + requestId + "]";
    }
}
