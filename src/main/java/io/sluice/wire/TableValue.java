package io.sluice.wire;

import java.nio.ByteBuffer;

/**
 * A value of a table segment. Not a command: it is nested in table commands.
 *
 * <pre>
 * payloadSize i32 (= 4 + n) | dataLength i32 (= n) | data[n]
 * </pre>
 * Reading {@code dataLength = 0} yields {@link #EMPTY} whatever {@code payloadSize} says (as in Pravega); for a
 * non-empty value {@code payloadSize} must be exactly {@code n + 4}.
 *
 * @param data the value's bytes (a read-only view)
 */
public record TableValue(ByteBuffer data) {
    /** The empty value (also what a read of a missing key returns). */
    public static final TableValue EMPTY = new TableValue(Bytes.EMPTY);

    /** Bytes the smallest encoding takes (the empty value: payloadSize and dataLength). */
    static final int MIN_WIRE_BYTES = 2 * Integer.BYTES;

    /** @param data not copied */
    public TableValue {
        data = Bytes.view(data, "data");
    }

    @Override
    public ByteBuffer data() {
        return data.duplicate();
    }

    /**
     * Writes the value.
     *
     * @param out where to write
     */
    public void writeFields(WireOutput out) {
        int n = data.remaining();
        out.writeInt(Integer.BYTES + n);
        out.writeInt(n);
        out.writeBytes(data);
    }

    static TableValue readFrom(WireInput in) {
        int payloadSize = in.readInt("value.payloadSize");
        int n = in.readInt("value.dataLength");
        if (n == 0) {
            return EMPTY;
        }
        if (n < 0) {
            throw in.invalid("value.dataLength", "negative length " + n);
        }
        if (payloadSize != (long) n + Integer.BYTES) {
            throw in.invalid("value.payloadSize", payloadSize + " does not match a value of " + n + " bytes (needs "
                    + ((long) n + Integer.BYTES) + ")");
        }
        return new TableValue(in.readBytes(n, "value.data"));
    }

    @Override
    public String toString() {
        return "TableValue[data=" + Bytes.describe(data) + "]";
    }
}
