package io.sluice.wire;

/**
 * Liveness probe; the server echoes every one. Also used by the Java client to close an open append block.
 * Wire type 100, empty payload.
 */
public record KeepAlive() implements Request, Reply {

    @Override
    public WireCommandType type() {
        return WireCommandType.KEEP_ALIVE;
    }

    @Override
    public long requestId() {
        return WireProtocol.NO_REQUEST_ID;
    }

    @Override
    public void writeFields(WireOutput out) {
        // no fields
    }

    static KeepAlive readFrom(WireInput in) {
        return new KeepAlive();
    }
}
