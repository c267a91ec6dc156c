package io.sluice.wire;

/**
 * Version handshake, the first frame each side sends. Wire type −127.
 *
 * <pre>
 * highVersion i32 | lowVersion i32
 * </pre>
 * Peers are compatible when {@code peer.lowVersion <= our WIRE_VERSION && peer.highVersion >= our OLDEST}.
 *
 * @param highVersion the newest wire version the sender speaks
 * @param lowVersion the oldest wire version the sender still speaks
 */
public record Hello(int highVersion, int lowVersion) implements Request, Reply {

    /** @return Hello with Sluice's versions (17, 5) */
    public static Hello current() {
        return new Hello(WireProtocol.WIRE_VERSION, WireProtocol.OLDEST_COMPATIBLE_VERSION);
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.HELLO;
    }

    @Override
    public long requestId() {
        return WireProtocol.HELLO_REQUEST_ID;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeInt(highVersion);
        out.writeInt(lowVersion);
    }

    static Hello readFrom(WireInput in) {
        int high = in.readInt("highVersion");
        int low = in.readInt("lowVersion");
        return new Hello(high, low);
    }
}
