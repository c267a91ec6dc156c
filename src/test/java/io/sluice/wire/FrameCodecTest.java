package io.sluice.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.UUID;

import io.sluice.wire.InvalidWireCommandException.Problem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Framing, and every way a frame can be malformed. */
@Timeout(10)
class FrameCodecTest {
    private static final UUID WRITER = new UUID(0x0102030405060708L, 0x1112131415161718L);

    private static ByteBuffer frame(int type, int length, byte... payload) {
        return ByteBuffer.allocate(8 + payload.length).putInt(type).putInt(length).put(payload).flip();
    }

    private static Problem problemOf(Runnable r) {
        try {
            r.run();
        } catch (InvalidWireCommandException e) {
            return e.problem();
        }
        throw new AssertionError("no InvalidWireCommandException");
    }

    @Test
    void helloMatchesTheCapturedBytes() {
        // the official client's first frame in captures/raw/conn04-client-6000-c2s.bin (wire version 16)
        assertThat(FrameCodec.encode(new Hello(16, 5))).isEqualTo(HexFormat.of().parseHex("ffffff81000000080000001000000005"));
        assertThat(FrameCodec.encode(Hello.current())).isEqualTo(HexFormat.of().parseHex("ffffff81000000080000001100000005"));
    }

    @Test
    void keepAliveIsAnEmptyFrame() {
        assertThat(FrameCodec.encode(new KeepAlive())).isEqualTo(HexFormat.of().parseHex("0000006400000000"));
        assertThat(FrameCodec.decodeOne(HexFormat.of().parseHex("0000006400000000"))).isEqualTo(new KeepAlive());
    }

    @Test
    void decodeWaitsForAWholeFrame() {
        byte[] bytes = FrameCodec.encode(new SetupAppend(7, WRITER, "scope/stream/0.#epoch.0", "token"));
        for (int cut = 0; cut < bytes.length; cut++) {
            ByteBuffer partial = ByteBuffer.wrap(bytes, 0, cut);
            assertThat(FrameCodec.decode(partial)).as("with %d bytes", cut).isNull();
            assertThat(partial.position()).isZero();
        }
        ByteBuffer whole = ByteBuffer.wrap(bytes);
        assertThat(FrameCodec.decode(whole)).isEqualTo(new SetupAppend(7, WRITER, "scope/stream/0.#epoch.0", "token"));
        assertThat(whole.hasRemaining()).isFalse();
    }

    @Test
    void decodesConsecutiveFrames() {
        WireOutput out = new WireOutput();
        FrameCodec.encode(new Hello(17, 5), out);
        FrameCodec.encode(new KeepAlive(), out);
        FrameCodec.encode(new AppendSetup(1, "s", WRITER, Long.MIN_VALUE), out);
        ByteBuffer in = ByteBuffer.wrap(out.toByteArray());
        assertThat(FrameCodec.decode(in)).isEqualTo(new Hello(17, 5));
        assertThat(FrameCodec.decode(in)).isEqualTo(new KeepAlive());
        assertThat(FrameCodec.decode(in)).isEqualTo(new AppendSetup(1, "s", WRITER, Long.MIN_VALUE));
        assertThat(FrameCodec.decode(in)).isNull();
    }

    @Test
    void unknownTypeCodesAreRejectedFromTheHeaderAlone() {
        for (int code : new int[] {6, 13, 54, 72, 73, 99, 101, 127, -7, -126, 128, 1 << 20, Integer.MIN_VALUE}) {
            // only the header is present: the problem is found before any payload is needed
            assertThat(problemOf(() -> FrameCodec.decode(frame(code, 1000)))).as("code %d", code).isEqualTo(Problem.UNKNOWN_TYPE);
        }
    }

    @Test
    void eventIsOnlyValidNested() {
        assertThat(problemOf(() -> FrameCodec.decode(frame(0, 3, (byte) 1, (byte) 2, (byte) 3)))).isEqualTo(Problem.NESTED_ONLY);
    }

    @Test
    void negativeAndOversizedLengthsAreRejectedBeforeTheyAreAllocated() {
        assertThat(problemOf(() -> FrameCodec.decode(frame(100, -1)))).isEqualTo(Problem.NEGATIVE_LENGTH);
        assertThat(problemOf(() -> FrameCodec.decode(frame(100, Integer.MIN_VALUE)))).isEqualTo(Problem.NEGATIVE_LENGTH);
        assertThat(problemOf(() -> FrameCodec.decode(frame(3, WireProtocol.MAX_WIRECOMMAND_SIZE + 1)))).isEqualTo(Problem.OVERSIZED_LENGTH);
        assertThat(problemOf(() -> FrameCodec.decode(frame(3, Integer.MAX_VALUE)))).isEqualTo(Problem.OVERSIZED_LENGTH);
        // the limit counts the header, as Pravega's LengthFieldBasedFrameDecoder(0xFFFFFF, 4, 4) does
        assertThat(problemOf(() -> FrameCodec.decode(frame(3, WireProtocol.MAX_WIRECOMMAND_SIZE - 7))))
                .isEqualTo(Problem.OVERSIZED_LENGTH);
        // exactly the limit is a legal header: the decoder waits for the payload
        assertThat(FrameCodec.decode(frame(3, WireProtocol.MAX_WIRECOMMAND_SIZE - 8))).isNull();
    }

    @Test
    void truncatedPayloadsNameTheCommandAndField() {
        // SetupAppend with only 4 payload bytes: requestId needs 8
        assertThatThrownBy(() -> FrameCodec.decode(frame(1, 4, (byte) 0, (byte) 0, (byte) 0, (byte) 1)))
                .isInstanceOf(InvalidWireCommandException.class)
                .hasMessageContaining("SETUP_APPEND.requestId needs 8 bytes but only 4 remain");
        // a string whose length runs past the frame
        ByteBuffer payload = ByteBuffer.allocate(8 + 16 + 2 + 3).putLong(1).putLong(2).putLong(3).putShort((short) 50)
                .put(new byte[] {'a', 'b', 'c'}).flip();
        byte[] p = Bytes.toArray(payload);
        assertThatThrownBy(() -> FrameCodec.decode(frame(1, p.length, p)))
                .isInstanceOf(InvalidWireCommandException.class)
                .hasMessageContaining("SETUP_APPEND.segment needs 50 bytes");
    }

    @Test
    void invalidUtfIsRejected() {
        ByteBuffer payload = ByteBuffer.allocate(8 + 16 + 2 + 2 + 2).putLong(1).putLong(2).putLong(3)
                .putShort((short) 2).put((byte) 0xF0).put((byte) 0x80).putShort((short) 0).flip();
        byte[] p = Bytes.toArray(payload);
        assertThat(problemOf(() -> FrameCodec.decode(frame(1, p.length, p)))).isEqualTo(Problem.INVALID_UTF);
    }

    @Test
    void trailingUnknownBytesAreIgnored() {
        byte[] hello = FrameCodec.encode(new Hello(17, 5));
        ByteBuffer longer = ByteBuffer.allocate(hello.length + 5).put(hello).put(new byte[5]).flip();
        longer.putInt(4, 8 + 5);
        ByteBuffer in = longer.duplicate();
        assertThat(FrameCodec.decode(in)).isEqualTo(new Hello(17, 5));
        assertThat(in.hasRemaining()).as("the unknown bytes belong to the frame").isFalse();
    }

    @Test
    void decodeOneRejectsExtraBytes() {
        byte[] two = ByteBuffer.allocate(16).put(FrameCodec.encode(new KeepAlive())).put(FrameCodec.encode(new KeepAlive())).array();
        assertThatThrownBy(() -> FrameCodec.decodeOne(two)).isInstanceOf(InvalidWireCommandException.class)
                .hasMessageContaining("8 bytes follow");
        assertThatThrownBy(() -> FrameCodec.decodeOne(new byte[] {0, 0, 0, 100, 0, 0, 0, 4})).hasMessageContaining("shorter");
    }

    @Test
    void oversizedCommandsAreRefusedOnEncodeAndLeaveTheOutputAlone() {
        WireOutput out = new WireOutput();
        FrameCodec.encode(new KeepAlive(), out);
        ByteBuffer big = ByteBuffer.allocate(WireProtocol.MAX_WIRECOMMAND_SIZE);
        assertThatThrownBy(() -> FrameCodec.encode(new AppendBlock(WRITER, big), out))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceeds the wire limit");
        assertThat(out.position()).isEqualTo(8);
        // the largest legal AppendBlock: header + writerId + data = limit
        ByteBuffer fits = ByteBuffer.allocate(WireProtocol.MAX_WIRECOMMAND_SIZE - 8 - 16);
        FrameCodec.encode(new AppendBlock(WRITER, fits), out);
        assertThat(out.position()).isEqualTo(8 + WireProtocol.MAX_WIRECOMMAND_SIZE);
    }

    @Test
    void aStringTooLongForTheWireLeavesTheOutputAsItWas() {
        // found by WireFuzzTest: a reply quoting a 65535-byte segment name cannot be encoded; a caller that catches
        // the refusal and goes on must not send the half-written frame
        WireOutput out = new WireOutput();
        FrameCodec.encode(new KeepAlive(), out);
        String name = "s".repeat(0xFFFF);
        assertThatThrownBy(() -> FrameCodec.encode(new ErrorMessage(1, name, name + " is not a table segment",
                ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION), out))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too long for the wire");
        assertThat(out.position()).isEqualTo(8);
        FrameCodec.encode(new KeepAlive(), out);
        ByteBuffer two = out.buffer();
        assertThat(FrameCodec.decode(two)).isEqualTo(new KeepAlive());
        assertThat(FrameCodec.decode(two)).isEqualTo(new KeepAlive());
        assertThat(two.hasRemaining()).isFalse();
    }

    @Test
    void typeIndexIsComplete() {
        assertThat(WireCommandType.values()).hasSize(70);
        for (WireCommandType t : WireCommandType.values()) {
            assertThat(WireCommandType.forCode(t.code())).isEqualTo(t);
        }
        assertThat(WireCommandType.topLevel()).hasSize(69).doesNotContain(WireCommandType.EVENT);
    }

    @Test
    void byteFieldsAreViewsThatCannotBeChangedThroughTheCommand() {
        byte[] data = {1, 2, 3};
        PartialEvent p = new PartialEvent(ByteBuffer.wrap(data));
        ByteBuffer view = p.data();
        view.get();
        assertThat(p.data().remaining()).as("reading the accessor's buffer does not move the command's").isEqualTo(3);
        assertThat(view.isReadOnly()).isTrue();
        assertThat(p).isEqualTo(new PartialEvent(ByteBuffer.wrap(new byte[] {1, 2, 3})));
        assertThat(p.toString()).doesNotContain("1, 2, 3").contains("3 bytes");
    }
}
