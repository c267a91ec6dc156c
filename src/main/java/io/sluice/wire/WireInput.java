package io.sluice.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.UUID;

import io.sluice.wire.InvalidWireCommandException.Problem;

/**
 * Reads the fields of one command's payload. Every read is bounds-checked against the payload, so a short
 * or lying payload raises {@link InvalidWireCommandException} before anything sized by the input is allocated.
 *
 * <p>Byte fields ({@link #readBlob}, {@link #readBytes}) are returned as read-only views of the payload, not
 * copies: they stay valid as long as the buffer the frame was decoded from is not reused. Not thread-safe.
 */
public final class WireInput {
    private final ByteBuffer buf;
    private final String command;

    /**
     * @param payload the payload, from its position to its limit; the buffer's position advances as fields are read
     * @param command the command being decoded, named in error messages
     */
    public WireInput(ByteBuffer payload, String command) {
        this.buf = payload.order(ByteOrder.BIG_ENDIAN);
        this.command = command;
    }

    /** @return the number of payload bytes not read yet */
    public int remaining() {
        return buf.remaining();
    }

    /** @return true if at least {@code n} bytes are left (used for optional trailing fields) */
    public boolean has(int n) {
        return buf.remaining() >= n;
    }

    private void need(int n, String field) {
        if (buf.remaining() < n) {
            throw new InvalidWireCommandException(Problem.TRUNCATED,
                    command + "." + field + " needs " + n + " bytes but only " + buf.remaining() + " remain");
        }
    }

    /** @return a signed byte */
    public byte readByte(String field) {
        need(1, field);
        return buf.get();
    }

    /** @return a boolean: zero is false, anything else true (as {@code DataInput.readBoolean}) */
    public boolean readBoolean(String field) {
        need(1, field);
        return buf.get() != 0;
    }

    /** @return a big-endian int32 */
    public int readInt(String field) {
        need(Integer.BYTES, field);
        return buf.getInt();
    }

    /** @return a big-endian int64 */
    public long readLong(String field) {
        need(Long.BYTES, field);
        return buf.getLong();
    }

    /** @return an optional trailing int64, or {@code absent} when the payload ends before it */
    public long readLongOr(String field, long absent) {
        return has(Long.BYTES) ? readLong(field) : absent;
    }

    /** @return an optional trailing int32, or {@code absent} when the payload ends before it */
    public int readIntOr(String field, int absent) {
        return has(Integer.BYTES) ? readInt(field) : absent;
    }

    /** @return a UUID written as most- then least-significant int64 */
    public UUID readUuid(String field) {
        need(2 * Long.BYTES, field);
        return new UUID(buf.getLong(), buf.getLong());
    }

    /**
     * Reads a string written by {@code DataOutput.writeUTF}: an unsigned 16-bit byte count, then modified UTF-8.
     * Accepts exactly what {@code DataInput.readUTF} accepts.
     *
     * @return the string
     */
    public String readUtf(String field) {
        need(2, field);
        int len = Short.toUnsignedInt(buf.getShort());
        need(len, field);
        return ModifiedUtf8.decode(buf, len, command, field);
    }

    /** @return an optional trailing UTF string, or {@code absent} when the payload has no bytes left */
    public String readUtfOr(String field, String absent) {
        return buf.hasRemaining() ? readUtf(field) : absent;
    }

    /**
     * Reads {@code n} raw bytes as a read-only view.
     *
     * @return a buffer positioned at 0 with {@code n} bytes remaining
     */
    public ByteBuffer readBytes(int n, String field) {
        if (n < 0) {
            throw new InvalidWireCommandException(Problem.INVALID_FIELD, command + "." + field + " has negative length " + n);
        }
        need(n, field);
        ByteBuffer slice = buf.slice(buf.position(), n).asReadOnlyBuffer();
        buf.position(buf.position() + n);
        return slice;
    }

    /** @return an int32 length followed by that many bytes, as a read-only view */
    public ByteBuffer readBlob(String field) {
        int n = readInt(field + ".length");
        return readBytes(n, field);
    }

    /** @return every byte not read yet, as a read-only view */
    public ByteBuffer readRest() {
        return readBytes(buf.remaining(), "data");
    }

    /**
     * Reads a count field and checks it is possible: non-negative, and small enough that {@code count} items of
     * at least {@code minItemBytes} each fit in what remains. Callers may then size collections by it.
     *
     * @return the count
     */
    public int readCount(String field, int minItemBytes) {
        int count = readInt(field);
        if (count < 0 || (long) count * minItemBytes > buf.remaining()) {
            throw new InvalidWireCommandException(Problem.INVALID_FIELD, command + "." + field + " = " + count
                    + " items of at least " + minItemBytes + " bytes cannot fit in the " + buf.remaining() + " bytes left");
        }
        return count;
    }

    /** Skips {@code n} bytes. */
    public void skip(int n, String field) {
        need(n, field);
        buf.position(buf.position() + n);
    }

    /**
     * @param message what is wrong
     * @return an exception naming this command, to throw
     */
    public InvalidWireCommandException invalid(String field, String message) {
        return new InvalidWireCommandException(Problem.INVALID_FIELD, command + "." + field + ": " + message);
    }
}
