package io.sluice.readergroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The bytes under the group state codec are exactly {@code java.io.DataOutput}'s, read as DataInput reads them. */
@Timeout(30)
class RecordIoTest {

    private static byte[] bytes(RecordOutput out) {
        ByteBuffer b = out.buffer();
        byte[] a = new byte[b.remaining()];
        b.get(a);
        return a;
    }

    @Test
    void primitivesAreDataOutputs() throws IOException {
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        RecordOutput out = new RecordOutput(1);
        try (DataOutputStream data = new DataOutputStream(expected)) {
            for (long v : new long[] {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x0102030405060708L}) {
                data.writeLong(v);
                out.writeLong(v);
                data.writeInt((int) v);
                out.writeInt((int) v);
                data.writeByte((int) v);
                out.writeByte((int) v);
                data.writeBoolean(v > 0);
                out.writeBoolean(v > 0);
            }
        }
        assertThat(bytes(out)).isEqualTo(expected.toByteArray());
        RecordInput in = new RecordInput(out.buffer(), "test");
        assertThat(in.readLong("a")).isZero();
        assertThat(in.readInt("b")).isZero();
        assertThat(in.readByte("c")).isZero();
        assertThat(in.readBoolean("d")).isFalse();
        assertThat(in.readLong("a")).isEqualTo(1);
    }

    @Test
    void everyCharacterIsWrittenAsWriteUtfWritesIt() throws IOException {
        for (int from = 0; from < 0x10000; from += 0x4000) {
            StringBuilder chars = new StringBuilder();
            for (int c = from; c < from + 0x4000; c++) {
                chars.append((char) c);
            }
            String s = chars.toString();
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            try (DataOutputStream data = new DataOutputStream(expected)) {
                data.writeUTF(s);
            }
            RecordOutput out = new RecordOutput(16);
            out.writeUtf(s);
            assertThat(bytes(out)).as("characters from %x", from).isEqualTo(expected.toByteArray());
            assertThat(new RecordInput(out.buffer(), "test").readUtf("s")).isEqualTo(s);
        }
    }

    @Test
    void aStringTooLongIsRefusedClearly() {
        String s = "\u20ac".repeat(0x5556);   // three bytes each: 65538 bytes
        assertThatThrownBy(() -> new RecordOutput(16).writeUtf(s)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("65538 bytes is too long for the reader group state (at most 65535)");
        RecordOutput out = new RecordOutput(16);
        out.writeUtf("x".repeat(0xFFFF));
        assertThat(out.size()).isEqualTo(2 + 0xFFFF);
    }

    @Test
    void stringsAreAcceptedExactlyAsReadUtfAcceptsThem() {
        List<String> cases = List.of(
                "0000", "000141", "0002c080", "0002c181", "0003e282ac", "0006eda0bdedb880",
                "000180", "0001bf", "0001f0", "0001ff", "0001c0", "0002c041", "0002e282", "0003e241ac",
                "0003e282c0", "0004f0908080", "0004414243", "0003414243", "0002c3");
        for (String hex : cases) {
            byte[] bytes = HexFormat.of().parseHex(hex);
            String expected;
            try {
                expected = new DataInputStream(new ByteArrayInputStream(bytes)).readUTF();
            } catch (IOException e) {
                expected = null;
            }
            String actual;
            try {
                actual = new RecordInput(ByteBuffer.wrap(bytes), "test").readUtf("s");
            } catch (IllegalArgumentException e) {
                assertThat(e).hasMessageStartingWith("test.s ");
                actual = null;
            }
            assertThat(actual).as(hex).isEqualTo(expected);
        }
    }

    @Test
    void aShortRecordNamesTheFieldItEndedIn() {
        RecordInput in = new RecordInput(ByteBuffer.wrap(new byte[] {1, 2, 3}), "ReaderGroupState");
        assertThat(in.has(3)).isTrue();
        assertThat(in.readByte("version")).isEqualTo((byte) 1);
        assertThatThrownBy(() -> in.readLong("heartbeat")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ReaderGroupState.heartbeat needs 8 bytes but only 2 remain");
        assertThat(in.remaining()).isEqualTo(2);
    }

    @Test
    void varintsAreLeb128() {
        RecordOutput out = new RecordOutput(16);
        out.writeVarlong(0);
        out.writeVarlong(127);
        out.writeVarlong(128);
        out.writeVarlong(300);
        out.writeVarlong(Long.MAX_VALUE);
        assertThat(HexFormat.of().formatHex(bytes(out))).isEqualTo("007f8001ac02ffffffffffffffff7f");
    }
}
