package io.sluice.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.nio.ByteBuffer;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Our writeUtf/readUtf against the JDK's DataOutput.writeUTF / DataInput.readUTF, which Pravega uses. */
@Timeout(30)
class ModifiedUtf8Test {

    private static byte[] jdkWrite(String s) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new DataOutputStream(bytes).writeUTF(s);
        return bytes.toByteArray();
    }

    private static byte[] ourWrite(String s) {
        WireOutput out = new WireOutput(8);
        out.writeUtf(s);
        return out.toByteArray();
    }

    private static String randomString(Random random, int maxLength) {
        int len = random.nextInt(maxLength + 1);
        StringBuilder sb = new StringBuilder(len);
        for (int i = 0; i < len; i++) {
            switch (random.nextInt(5)) {
                case 0 -> sb.append((char) random.nextInt(0x80));
                case 1 -> sb.append((char) 0);
                case 2 -> sb.append((char) (0x80 + random.nextInt(0x780)));
                case 3 -> sb.append((char) random.nextInt(0x10000));
                default -> sb.appendCodePoint(0x10000 + random.nextInt(0x100000));
            }
        }
        return sb.toString();
    }

    @Test
    void encodesExactlyLikeTheJdk() throws IOException {
        Random random = new Random(1);
        for (int i = 0; i < 20_000; i++) {
            String s = randomString(random, 40);
            assertThat(ourWrite(s)).as("encoding of %s", s).isEqualTo(jdkWrite(s));
        }
    }

    @Test
    void decodesWhatTheJdkWrites() throws IOException {
        Random random = new Random(2);
        for (int i = 0; i < 20_000; i++) {
            String s = randomString(random, 40);
            WireInput in = new WireInput(ByteBuffer.wrap(jdkWrite(s)), "Test");
            assertThat(in.readUtf("s")).isEqualTo(s);
            assertThat(in.remaining()).isZero();
        }
    }

    @Test
    void acceptsAndRejectsExactlyWhatTheJdkDoes() throws IOException {
        Random random = new Random(3);
        int rejected = 0;
        for (int i = 0; i < 50_000; i++) {
            byte[] body = new byte[random.nextInt(8)];
            random.nextBytes(body);
            byte[] framed = ByteBuffer.allocate(2 + body.length).putShort((short) body.length).put(body).array();
            String jdk;
            try {
                jdk = new DataInputStream(new ByteArrayInputStream(framed)).readUTF();
            } catch (UTFDataFormatException e) {
                jdk = null;
            }
            WireInput in = new WireInput(ByteBuffer.wrap(framed), "Test");
            if (jdk == null) {
                rejected++;
                assertThatThrownBy(() -> in.readUtf("s")).isInstanceOf(InvalidWireCommandException.class)
                        .extracting(e -> ((InvalidWireCommandException) e).problem())
                        .isEqualTo(InvalidWireCommandException.Problem.INVALID_UTF);
            } else {
                assertThat(in.readUtf("s")).isEqualTo(jdk);
            }
        }
        assertThat(rejected).as("the random input exercised the rejecting paths").isGreaterThan(1000);
    }

    @Test
    void nulAndSupplementaryCharactersUseTheModifiedForms() {
        assertThat(ourWrite("\0")).containsExactly(0, 2, 0xC0, 0x80);
        // U+1F600 is the surrogate pair D83D DE00, each written as a 3-byte sequence
        assertThat(ourWrite("\ud83d\ude00")).containsExactly(0, 6, 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80);
    }

    @Test
    void fourByteUtf8IsRejected() {
        byte[] framed = {0, 4, (byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80};
        assertThatThrownBy(() -> new WireInput(ByteBuffer.wrap(framed), "Test").readUtf("s"))
                .isInstanceOf(InvalidWireCommandException.class).hasMessageContaining("Test.s");
    }

    @Test
    void aStringLongerThanTheFrameIsTruncatedNotAllocated() {
        byte[] framed = {(byte) 0xFF, (byte) 0xFF, 'a', 'b'};
        assertThatThrownBy(() -> new WireInput(ByteBuffer.wrap(framed), "Test").readUtf("segment"))
                .isInstanceOf(InvalidWireCommandException.class)
                .hasMessageContaining("Test.segment needs 65535 bytes but only 2 remain");
    }

    @Test
    void tooLongStringsAreRefusedOnWrite() {
        String big = "\u0800".repeat(21_846); // 3 bytes each: 65538 bytes
        assertThatThrownBy(() -> ourWrite(big)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("too long");
        assertThat(ourWrite("\u0800".repeat(21_845))).hasSize(2 + 65_535);
    }
}
