package io.sluice.stream;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import io.sluice.errors.SluiceException;

/** Ready-made serializers. */
public final class Serializers {
    private static final Serializer<String> UTF8 = new Serializer<>() {
        @Override
        public ByteBuffer serialize(String value) {
            return ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String deserialize(ByteBuffer bytes) {
            try {
                CharBuffer chars = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes.duplicate());
                return chars.toString();
            } catch (CharacterCodingException e) {
                throw new SluiceException("event of " + bytes.remaining() + " bytes is not valid UTF-8", e);
            }
        }
    };

    private static final Serializer<byte[]> BYTES = new Serializer<>() {
        @Override
        public ByteBuffer serialize(byte[] value) {
            return ByteBuffer.wrap(value);
        }

        @Override
        public byte[] deserialize(ByteBuffer bytes) {
            byte[] out = new byte[bytes.remaining()];
            bytes.duplicate().get(out);
            return out;
        }
    };

    private static final Serializer<ByteBuffer> BYTE_BUFFER = new Serializer<>() {
        @Override
        public ByteBuffer serialize(ByteBuffer value) {
            return value.duplicate();
        }

        @Override
        public ByteBuffer deserialize(ByteBuffer bytes) {
            // a reader hands each event over as a read-only view of its own starting at 0: that view is the result
            // (a slice of it would be the same bytes, one more object per event)
            return bytes.isReadOnly() && bytes.position() == 0 ? bytes : bytes.slice();
        }
    };

    private Serializers() {
    }

    /** @return strings as UTF-8 (compatible with Pravega's {@code UTF8StringSerializer}); invalid UTF-8 is an error */
    public static Serializer<String> utf8() {
        return UTF8;
    }

    /** @return raw byte arrays (not copied on write; copied on read) */
    public static Serializer<byte[]> bytes() {
        return BYTES;
    }

    /**
     * @return raw {@link ByteBuffer}s without copies: on write the remaining bytes are sent as they are; on read the
     *     buffer is a read-only view into the reader's buffer (no copy)
     */
    public static Serializer<ByteBuffer> byteBuffer() {
        return BYTE_BUFFER;
    }
}
