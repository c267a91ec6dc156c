package io.sluice.wire;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.UUID;

/**
 * The first half of a batched append: block data that the following {@link AppendBlockEnd} of the same writer
 * completes. Wire type 3.
 *
 * <pre>
 * writerId UUID | block data (the rest of the frame: length − 16 bytes)
 * </pre>
 * The block data is a sequence of nested {@link Event} frames, optionally ended by one {@link Padding} or
 * {@link PartialEvent} frame. {@link AppendStreamDecoder} reassembles it; the server never parses the
 * event framing, it appends the bytes as they are.
 *
 * @param writerId the writer whose block this is
 * @param data the block data (a read-only view)
 */
public record AppendBlock(UUID writerId, ByteBuffer data) implements Request {

    /** @param data the block data; not copied */
    public AppendBlock {
        Objects.requireNonNull(writerId, "writerId");
        data = Bytes.view(data, "data");
    }

    @Override
    public ByteBuffer data() {
        return data.duplicate();
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.APPEND_BLOCK;
    }

    @Override
    public long requestId() {
        return WireProtocol.NO_REQUEST_ID;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeUuid(writerId);
        out.writeBytes(data);
    }

    static AppendBlock readFrom(WireInput in) {
        UUID writerId = in.readUuid("writerId");
        return new AppendBlock(writerId, in.readRest());
    }

    @Override
    public String toString() {
        return "AppendBlock[writerId=" + writerId + ", data=" + Bytes.describe(data) + "]";
    }
}
