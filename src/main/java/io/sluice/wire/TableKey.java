package io.sluice.wire;

import java.nio.ByteBuffer;

/**
 * A key of a table segment with the version a conditional operation expects (or the server reports). Not a
 * command: it is nested in table commands.
 *
 * <pre>
 * payloadSize i32 (= 4 + n + 8) | dataLength i32 (= n) | data[n] | keyVersion i64
 * </pre>
 * Quirk kept from Pravega: a key with no data is written as {@code payloadSize = 12, dataLength = 0} and no
 * version, and reading {@code dataLength = 0} consumes those 8 bytes only and yields {@link #EMPTY} whatever
 * {@code payloadSize} says. An empty key's version therefore never travels: it always reads back as
 * {@link #NO_VERSION}. For a non-empty key, {@code payloadSize} must be exactly {@code n + 12}.
 *
 * @param data the key's bytes (a read-only view)
 * @param keyVersion {@link #NO_VERSION} (unconditional), {@link #NOT_EXISTS} (must be absent), or the key's current
 *     version (an offset in the table segment)
 */
public record TableKey(ByteBuffer data, long keyVersion) {
    /** Version meaning "any": the operation is unconditional. */
    public static final long NO_VERSION = Long.MIN_VALUE;
    /** Version meaning "absent": insert only if the key does not exist; also reported for a missing key. */
    public static final long NOT_EXISTS = -1L;
    /** The empty key, as the reader returns it for {@code dataLength = 0}. */
    public static final TableKey EMPTY = new TableKey(Bytes.EMPTY, NO_VERSION);

    /** Bytes the smallest encoding takes (the empty key: payloadSize and dataLength). */
    static final int MIN_WIRE_BYTES = 2 * Integer.BYTES;

    /** @param data not copied */
    public TableKey {
        data = Bytes.view(data, "data");
    }

    @Override
    public ByteBuffer data() {
        return data.duplicate();
    }

    /**
     * Writes the key; an empty key without its version (see the class comment).
     *
     * @param out where to write
     */
    public void writeFields(WireOutput out) {
        int n = data.remaining();
        out.writeInt(Integer.BYTES + n + Long.BYTES);
        out.writeInt(n);
        if (n != 0) {
            out.writeBytes(data);
            out.writeLong(keyVersion);
        }
    }

    static TableKey readFrom(WireInput in) {
        int payloadSize = in.readInt("key.payloadSize");
        int n = in.readInt("key.dataLength");
        if (n == 0) {
            return EMPTY;
        }
        if (n < 0) {
            throw in.invalid("key.dataLength", "negative length " + n);
        }
        if (payloadSize != (long) n + Integer.BYTES + Long.BYTES) {
            throw in.invalid("key.payloadSize", payloadSize + " does not match a key of " + n + " bytes (needs "
                    + ((long) n + Integer.BYTES + Long.BYTES) + ")");
        }
        ByteBuffer data = in.readBytes(n, "key.data");
        long keyVersion = in.readLong("key.keyVersion");
        return new TableKey(data, keyVersion);
    }

    @Override
    public String toString() {
        return "TableKey[data=" + Bytes.describe(data) + ", keyVersion=" + keyVersion + "]";
    }
}
