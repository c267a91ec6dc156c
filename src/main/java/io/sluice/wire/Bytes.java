package io.sluice.wire;

import java.nio.ByteBuffer;

/**
 * Helpers for the byte fields of commands. Commands keep their bytes as read-only views positioned at 0, so
 * two commands compare equal when their bytes do, and nobody can change a command's bytes through it.
 */
public final class Bytes {
    /** An empty read-only buffer. */
    public static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();

    private Bytes() {
    }

    /**
     * @return a read-only view of {@code b}'s remaining bytes, positioned at 0 (no copy)
     * @throws NullPointerException naming {@code field} if {@code b} is null
     */
    public static ByteBuffer view(ByteBuffer b, String field) {
        if (b == null) {
            throw new NullPointerException(field);
        }
        if (b.isReadOnly() && b.position() == 0) {
            return b;
        }
        return b.slice().asReadOnlyBuffer();
    }

    /** @return a read-only view over {@code bytes} (no copy) */
    public static ByteBuffer wrap(byte[] bytes) {
        return ByteBuffer.wrap(bytes).asReadOnlyBuffer();
    }

    /** @return a copy of the remaining bytes of {@code b} (its position does not move) */
    public static byte[] toArray(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(b.position(), out);
        return out;
    }

    /** @return a description for toString that never shows the bytes themselves: "N bytes" */
    public static String describe(ByteBuffer b) {
        return b.remaining() + " bytes";
    }
}
