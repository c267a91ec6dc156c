package io.sluice.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pravega.shared.protocol.netty.CommandDecoder;
import io.pravega.shared.protocol.netty.WireCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link AppendEncoder} against append frames written with Pravega 0.13's own {@code WireCommands}, frame by frame
 * as its {@code CommandEncoder} does ({@link PravegaAppends}). {@link AppendEncoder#writeGroups} is what the segment
 * writer sends (and what the JMH {@code AppendBlockEncodeBenchmark} measures), {@link AppendEncoder#writeBlockEndOnly}
 * what the revisioned segment sends; both are checked here so CI, which does not run the benchmarks, keeps the
 * equivalence true.
 */
@Timeout(30)
class AppendEncoderPravegaTest {
    private static final UUID WRITER = new UUID(0x0123456789abcdefL, 0xfedcba9876543210L);

    /** A group as a segment writer's pending event is one: payloads and their framed size. */
    private record Group(List<ByteBuffer> payloads, int framedSize) implements AppendEncoder.EventGroup {
        static Group of(ByteBuffer... payloads) {
            int framed = 0;
            for (ByteBuffer p : payloads) {
                framed += Event.HEADER_SIZE + p.remaining();
            }
            return new Group(List.of(payloads), framed);
        }
    }

    @ParameterizedTest(name = "{0} events of {1} bytes")
    @CsvSource({"1, 0", "1, 10", "100, 10", "100, 100", "1000, 1024", "3, 1"})
    void sluiceWritesTheBytesPravegaWrites(int events, int eventSize) {
        List<ByteBuffer> payloads = payloads(events, eventSize, new Random(events * 31L + eventSize));
        long lastEventNumber = 1000L + events;

        WireOutput out = new WireOutput(16);
        int framed = AppendEncoder.writeBlock(out, WRITER, payloads, lastEventNumber, 42L);
        byte[] theirs = PravegaAppends.block(WRITER, payloads, lastEventNumber, 42L);

        assertThat(framed).isEqualTo(events * (Event.HEADER_SIZE + eventSize));
        assertThat(out.position()).isEqualTo(AppendEncoder.blockSize(framed));
        assertThat(HexFormat.of().formatHex(out.toByteArray())).isEqualTo(HexFormat.of().formatHex(theirs));
    }

    @ParameterizedTest(name = "{0} single events of {1} bytes")
    @CsvSource({"1, 0", "1, 10", "100, 10", "100, 100", "1000, 1024", "3, 1"})
    void aWritersBlockOfSingleEventsIsWhatPravegaWrites(int events, int eventSize) {
        List<ByteBuffer> payloads = payloads(events, eventSize, new Random(events * 17L + eventSize));
        List<Group> groups = payloads.stream().map(Group::of).toList();

        WireOutput out = new WireOutput(16);
        int framed = AppendEncoder.writeGroups(out, WRITER, groups, 5000L + events, 43L);

        assertThat(framed).isEqualTo(events * (Event.HEADER_SIZE + eventSize));
        assertThat(out.position()).isEqualTo(AppendEncoder.blockSize(framed));
        assertThat(HexFormat.of().formatHex(out.toByteArray()))
                .isEqualTo(HexFormat.of().formatHex(PravegaAppends.block(WRITER, payloads, 5000L + events, 43L)));
        assertThat(payloads).allMatch(p -> p.position() == 0);
    }

    /** A byte stream's write: raw bytes, no event header. */
    private record RawWrite(List<ByteBuffer> payloads, int framedSize) implements AppendEncoder.EventGroup {
        RawWrite(ByteBuffer data) {
            this(List.of(data), data.remaining());
        }

        @Override
        public boolean headerless() {
            return true;
        }
    }

    @ParameterizedTest(name = "{0} byte stream writes of {1} bytes")
    @CsvSource({"1, 1", "1, 4096", "50, 1000", "3, 65536"})
    void byteStreamWritesAreTheRawBlockPravegaWrites(int writes, int size) {
        List<ByteBuffer> data = payloads(writes, size, new Random(writes * 7L + size));
        WireOutput out = new WireOutput(16);
        int appended = AppendEncoder.writeGroups(out, WRITER, data.stream().map(RawWrite::new).toList(),
                100L + writes, 44L);
        assertThat(appended).isEqualTo(writes * size);
        assertThat(out.position()).isEqualTo(AppendEncoder.blockSize(appended));
        assertThat(HexFormat.of().formatHex(out.toByteArray()))
                .isEqualTo(HexFormat.of().formatHex(PravegaAppends.rawBlock(WRITER, data, 100L + writes, 44L)));
    }

    @Test
    void groupsOfSeveralEventsCountEventsNotGroups() {
        ByteBuffer direct = ByteBuffer.allocateDirect(3).put(new byte[] {7, 8, 9}).flip();
        ByteBuffer offset = ByteBuffer.wrap("xxpayloadyy".getBytes(StandardCharsets.UTF_8), 2, 7).slice();
        ByteBuffer readOnly = utf8("read-only").asReadOnlyBuffer();
        List<Group> groups = List.of(Group.of(utf8("a")), Group.of(utf8("b1"), ByteBuffer.allocate(0), utf8("b3")),
                Group.of(direct, offset), Group.of(readOnly));
        List<ByteBuffer> flat = groups.stream().flatMap(g -> g.payloads().stream()).toList();

        WireOutput out = new WireOutput(16);
        int framed = AppendEncoder.writeGroups(out, WRITER, groups, 77L, 78L);

        assertThat(framed).isEqualTo(groups.stream().mapToInt(Group::framedSize).sum());
        assertThat(HexFormat.of().formatHex(out.toByteArray()))
                .isEqualTo(HexFormat.of().formatHex(PravegaAppends.block(WRITER, flat, 77L, 78L)));
        WireCommands.AppendBlockEnd end = decodeEnd(out.toByteArray());
        assertThat(end.getNumEvents()).as("events, not groups").isEqualTo(7);
    }

    @Test
    void aBlockGoesAfterWhatTheBufferAlreadyHolds() {
        // the connection's writer thread encodes several senders' frames into one buffer
        WireOutput out = new WireOutput(16);
        FrameCodec.encode(new KeepAlive(), out);
        int before = out.position();
        AppendEncoder.writeGroups(out, WRITER, List.of(Group.of(utf8("x")), Group.of(utf8("yz"))), 2L, 3L);
        byte[] all = out.toByteArray();
        assertThat(Arrays.copyOfRange(all, 0, before)).isEqualTo(FrameCodec.encode(new KeepAlive()));
        assertThat(Arrays.copyOfRange(all, before, all.length))
                .isEqualTo(PravegaAppends.block(WRITER, List.of(utf8("x"), utf8("yz")), 2L, 3L));
    }

    @Test
    void aGroupThatMisstatesItsSizeLeavesNothingWritten() {
        WireOutput out = new WireOutput(16);
        out.writeInt(42);
        Group lying = new Group(List.of(utf8("abc")), 8 + 4);
        assertThatThrownBy(() -> AppendEncoder.writeGroups(out, WRITER, List.of(Group.of(utf8("ok")), lying), 1L, 1L))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("announced");
        assertThat(out.position()).isEqualTo(4);
        assertThatThrownBy(() -> AppendEncoder.writeGroups(out, WRITER, List.of(), 1L, 1L))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one event");
        assertThatThrownBy(() -> AppendEncoder.writeGroups(out, WRITER,
                List.of(new Group(List.of(), 0)), 1L, 1L)).hasMessageContaining("at least one event");
        Group huge = new Group(List.of(ByteBuffer.allocate(0)), WireProtocol.MAX_WIRECOMMAND_SIZE);
        assertThatThrownBy(() -> AppendEncoder.writeGroups(out, WRITER, List.of(huge), 1L, 1L))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceeds the frame limit");
        assertThat(out.position()).isEqualTo(4);
    }

    @ParameterizedTest(name = "{0} events of {1} bytes")
    @CsvSource({"1, 0", "1, 10", "5, 100", "1, 100000"})
    void aBlockEndAloneIsWhatPravegaWrites(int events, int eventSize) {
        List<ByteBuffer> payloads = payloads(events, eventSize, new Random(events * 7L + eventSize));
        WireOutput out = new WireOutput(16);
        int framed = AppendEncoder.writeBlockEndOnly(out, WRITER, payloads, 9L, 10L);
        assertThat(framed).isEqualTo(events * (Event.HEADER_SIZE + eventSize));
        assertThat(HexFormat.of().formatHex(out.toByteArray()))
                .isEqualTo(HexFormat.of().formatHex(PravegaAppends.blockEndOnly(WRITER, payloads, 9L, 10L)));
    }

    @Test
    void pravegaDecodesTheBlockSluiceWrites() throws IOException {
        List<ByteBuffer> payloads = payloads(5, 7, new Random(1));
        WireOutput out = new WireOutput();
        int framed = AppendEncoder.writeGroups(out, WRITER, payloads.stream().map(Group::of).toList(), 9L, 77L);
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

    private static WireCommands.AppendBlockEnd decodeEnd(byte[] blockAndEnd) {
        ByteBuf in = Unpooled.wrappedBuffer(blockAndEnd);
        try {
            ((WireCommands.AppendBlock) CommandDecoder.parseCommand(in)).release();
            WireCommands.AppendBlockEnd end = (WireCommands.AppendBlockEnd) CommandDecoder.parseCommand(in);
            end.release();
            return end;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
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
}
