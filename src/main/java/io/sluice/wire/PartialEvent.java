package io.sluice.wire;

import java.nio.ByteBuffer;

/**
 * The first bytes of an event that did not fit in the rest of an append block; the remainder travels in the
 * following {@link AppendBlockEnd}'s data. Wire type −2, payload = the raw bytes. Only valid inside an
 * {@link AppendBlock}.
 *
 * @param data the leading bytes of the split event (a read-only view)
 */
public record PartialEvent(ByteBuffer data) implements Request {

    /** @param data the leading bytes; not copied */
    public PartialEvent {
        data = Bytes.view(data, "data");
    }

    @Override
    public ByteBuffer data() {
        return data.duplicate();
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.PARTIAL_EVENT;
    }

    @Override
    public long requestId() {
        return WireProtocol.NO_REQUEST_ID;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeBytes(data);
    }

    static PartialEvent readFrom(WireInput in) {
        return new PartialEvent(in.readRest());
    }

    @Override
    public String toString() {
        return "PartialEvent[data=" + Bytes.describe(data) + "]";
    }
}
