package io.sluice.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.pravega.shared.protocol.netty.CommandDecoder;
import io.pravega.shared.protocol.netty.WireCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link AppendEncoder#writeBlock} against an append block written with Pravega 0.13's own {@code WireCommands},
 * frame by frame as its {@code CommandEncoder} does: the {@code AppendBlock} header, every event through
 * {@code Event.writeFields}, then {@code AppendBlockEnd}. This is the equivalence the JMH
 * {@code AppendBlockEncodeBenchmark} relies on when it compares the two encoders; it is checked here too so CI,
 * which does not run the benchmarks, keeps it true.
 */
@Timeout(30)
class AppendEncoderPravegaTest {
    private static final UUID WRITER = new UUID(0x0123456789abcdefL, 0xfedcba9876543210L);

    @ParameterizedTest(name = "{0} events of {1} bytes")
    @CsvSource({"1, 0", "1, 10", "100, 10", "100, 100", "1000, 1024", "3, 1"})
    void sluiceWritesTheBytesPravegaWrites(int events, int eventSize) throws IOException {
        List<ByteBuffer> payloads = payloads(events, eventSize, new Random(events * 31L + eventSize));
        long lastEventNumber = 1000L + events;

        WireOutput out = new WireOutput(16);
        int framed = AppendEncoder.writeBlock(out, WRITER, payloads, lastEventNumber, 42L);
        byte[] theirs = encodeWithPravega(payloads, lastEventNumber, 42L);

        assertThat(framed).isEqualTo(events * (Event.HEADER_SIZE + eventSize));
        assertThat(HexFormat.of().formatHex(out.toByteArray())).isEqualTo(HexFormat.of().formatHex(theirs));
    }

    @Test
    void pravegaDecodesTheBlockSluiceWrites() throws IOException {
        List<ByteBuffer> payloads = payloads(5, 7, new Random(1));
        WireOutput out = new WireOutput();
        int framed = AppendEncoder.writeBlock(out, WRITER, payloads, 9L, 77L);
        ByteBuf in = Unpooled.wrappedBuffer(out.toByteArray());

        WireCommands.AppendBlock block = (WireCommands.AppendBlock) CommandDecoder.parseCommand(in);
        WireCommands.AppendBlockEnd end = (WireCommands.AppendBlockEnd) CommandDecoder.parseCommand(in);
        try {
            assertThat(block.getWriterId()).isEqualTo(WRITER);
            assertThat(block.getData().readableBytes()).isEqualTo(framed);
            assertThat(end.getSizeOfWholeEvents()).isEqualTo(framed);
            assertThat(end.getData().readableBytes()).isZero();
            assertThat(end.getNumEvents()).isEqualTo(5);
            assertThat(end.getLastEventNumber()).isEqualTo(9L);
            assertThat(end.getRequestId()).isEqualTo(77L);
            assertThat(in.readableBytes()).isZero();
        } finally {
            block.release();
            end.release();
        }
    }

    private static List<ByteBuffer> payloads(int events, int eventSize, Random random) {
        List<ByteBuffer> list = new ArrayList<>(events);
        for (int i = 0; i < events; i++) {
            byte[] payload = new byte[eventSize];
            random.nextBytes(payload);
            list.add(ByteBuffer.wrap(payload));
        }
        return list;
    }

    /** The block as Pravega 0.13 frames it: a ByteBufOutputStream per frame, the length patched afterwards. */
    private static byte[] encodeWithPravega(List<ByteBuffer> payloads, long lastEventNumber, long requestId)
            throws IOException {
        ByteBuf out = Unpooled.buffer();
        int blockStart = out.writerIndex();
        ByteBufOutputStream block = new ByteBufOutputStream(out);
        block.writeInt(io.pravega.shared.protocol.netty.WireCommandType.APPEND_BLOCK.getCode());
        block.writeInt(0);
        new WireCommands.AppendBlock(WRITER).writeFields(block);
        int eventsStart = out.writerIndex();
        for (ByteBuffer payload : payloads) {
            new WireCommands.Event(Unpooled.wrappedBuffer(payload)).writeFields(block);
        }
        int sizeOfWholeEvents = out.writerIndex() - eventsStart;
        out.setInt(blockStart + 4, out.writerIndex() - blockStart - 8);

        int endStart = out.writerIndex();
        ByteBufOutputStream end = new ByteBufOutputStream(out);
        end.writeInt(io.pravega.shared.protocol.netty.WireCommandType.APPEND_BLOCK_END.getCode());
        end.writeInt(0);
        new WireCommands.AppendBlockEnd(WRITER, sizeOfWholeEvents, null, payloads.size(), lastEventNumber, requestId)
                .writeFields(end);
        out.setInt(endStart + 4, out.writerIndex() - endStart - 8);
        return ByteBufUtil.getBytes(out);
    }
}
