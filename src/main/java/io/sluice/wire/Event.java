package io.sluice.wire;

import java.nio.ByteBuffer;

/**
 * One event, framed. Wire type 0. Never a top-level frame: it appears nested inside {@link AppendBlock} data,
 * inside {@link ConditionalAppend}, and is how events are stored in a segment ({@code [i32 0][i32 n][n bytes]}).
 *
 * @param data the event's bytes (a read-only view)
 */
public record Event(ByteBuffer data) implements WireCommand {
    /** Bytes of framing each event costs on the wire and in a segment. */
    public static final int HEADER_SIZE = WireProtocol.HEADER_SIZE;

    /** @param data the event's bytes; not copied */
    public Event {
        data = Bytes.view(data, "data");
    }

    @Override
    public ByteBuffer data() {
        return data.duplicate();
    }

    /** @return the framed size: 8 + data length */
    public int framedSize() {
        return HEADER_SIZE + data.remaining();
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.EVENT;
    }

    @Override
    public long requestId() {
        return WireProtocol.NO_REQUEST_ID;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeBytes(data);
    }

    /** Writes {@code [i32 0][i32 n][n bytes]}. */
    public void writeFramed(WireOutput out) {
        out.writeInt(WireCommandType.EVENT.code());
        out.writeInt(data.remaining());
        out.writeBytes(data);
    }

    @Override
    public String toString() {
        return "Event[data=" + Bytes.describe(data) + "]";
    }
}
