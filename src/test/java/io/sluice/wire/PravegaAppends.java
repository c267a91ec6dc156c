package io.sluice.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.pravega.shared.protocol.netty.WireCommandType;
import io.pravega.shared.protocol.netty.WireCommands;

/**
 * Append frames as Pravega 0.13 writes them, with its own {@code WireCommands}, frame by frame as its
 * {@code CommandEncoder} does (a {@code ByteBufOutputStream} per frame, the length patched afterwards): what Sluice's
 * encodings are compared with, here and in the segment writer's tests. Stateless.
 */
public final class PravegaAppends {

    private PravegaAppends() {
    }

    /**
     * @return {@code AppendBlock(writerId)} holding every event through {@code Event.writeFields}, then
     *     {@code AppendBlockEnd(writerId, sizeOfWholeEvents, no data, events.size(), lastEventNumber, requestId)}
     */
    public static byte[] block(UUID writerId, List<ByteBuffer> events, long lastEventNumber, long requestId) {
        try {
            ByteBuf out = Unpooled.buffer();
            int blockStart = out.writerIndex();
            ByteBufOutputStream block = new ByteBufOutputStream(out);
            block.writeInt(WireCommandType.APPEND_BLOCK.getCode());
            block.writeInt(0);
            new WireCommands.AppendBlock(writerId).writeFields(block);
            int eventsStart = out.writerIndex();
            for (ByteBuffer payload : events) {
                new WireCommands.Event(Unpooled.wrappedBuffer(payload.duplicate())).writeFields(block);
            }
            int sizeOfWholeEvents = out.writerIndex() - eventsStart;
            out.setInt(blockStart + 4, out.writerIndex() - blockStart - 8);
            writeEnd(out, new WireCommands.AppendBlockEnd(writerId, sizeOfWholeEvents, null, events.size(),
                    lastEventNumber, requestId));
            return ByteBufUtil.getBytes(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @return {@code AppendBlock(writerId)} holding the bytes of {@code writes} as they are, then
     *     {@code AppendBlockEnd(writerId, their length, no data, writes.size(), lastEventNumber, requestId)}: what
     *     Pravega's {@code CommandEncoder} sends for byte stream writes ({@code PendingEvent.withoutHeader}), whose
     *     data it copies into the block without an event header, one event number each
     */
    public static byte[] rawBlock(UUID writerId, List<ByteBuffer> writes, long lastEventNumber, long requestId) {
        try {
            ByteBuf out = Unpooled.buffer();
            int blockStart = out.writerIndex();
            ByteBufOutputStream block = new ByteBufOutputStream(out);
            block.writeInt(WireCommandType.APPEND_BLOCK.getCode());
            block.writeInt(0);
            new WireCommands.AppendBlock(writerId).writeFields(block);
            int dataStart = out.writerIndex();
            for (ByteBuffer data : writes) {
                out.writeBytes(data.duplicate());
            }
            int size = out.writerIndex() - dataStart;
            out.setInt(blockStart + 4, out.writerIndex() - blockStart - 8);
            writeEnd(out, new WireCommands.AppendBlockEnd(writerId, size, null, writes.size(), lastEventNumber,
                    requestId));
            return ByteBufUtil.getBytes(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @return one {@code AppendBlockEnd(writerId, sizeOfWholeEvents = data length, data, events.size(),
     *     lastEventNumber, requestId)} whose data holds every event as Pravega frames it ({@code Event.getAsByteBuf()}):
     *     a whole batch without a block, as the Rust client sends it
     */
    public static byte[] blockEndOnly(UUID writerId, List<ByteBuffer> events, long lastEventNumber, long requestId) {
        try {
            ByteBuf data = Unpooled.buffer();
            for (ByteBuffer payload : events) {
                data.writeBytes(new WireCommands.Event(Unpooled.wrappedBuffer(payload.duplicate())).getAsByteBuf());
            }
            ByteBuf out = Unpooled.buffer();
            writeEnd(out, new WireCommands.AppendBlockEnd(writerId, data.readableBytes(), data, events.size(),
                    lastEventNumber, requestId));
            return ByteBufUtil.getBytes(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeEnd(ByteBuf out, WireCommands.AppendBlockEnd end) throws IOException {
        int endStart = out.writerIndex();
        ByteBufOutputStream stream = new ByteBufOutputStream(out);
        stream.writeInt(WireCommandType.APPEND_BLOCK_END.getCode());
        stream.writeInt(0);
        end.writeFields(stream);
        out.setInt(endStart + 4, out.writerIndex() - endStart - 8);
    }
}
