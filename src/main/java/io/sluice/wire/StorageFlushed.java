package io.sluice.wire;

/**
 * Admin reply: the container's data is in long-term storage, reply to {@link FlushToStorage}. Wire type −4.
 *
 * <pre>
 * requestId i64
 * </pre>
 *
 * @param requestId the request's id
 */
public record StorageFlushed(long requestId) implements Reply {

    @Override
    public WireCommandType type() {
        return WireCommandType.FLUSHED_TO_STORAGE;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
    }

    static StorageFlushed readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        return new StorageFlushed(requestId);
    }
}
