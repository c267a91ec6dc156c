package io.sluice.wire;

/**
 * Filler that ends an append block early: {@code length} zero bytes. Wire type −1. Found inside
 * {@link AppendBlock} data after the whole events; a top-level one is skipped by servers.
 *
 * @param length the number of zero bytes (the frame's payload length)
 */
public record Padding(int length) implements Request {

    /** @param length the number of zero bytes, not negative */
    public Padding {
        if (length < 0) {
            throw new IllegalArgumentException("padding length must not be negative: " + length);
        }
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.PADDING;
    }

    @Override
    public long requestId() {
        return WireProtocol.NO_REQUEST_ID;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeZeros(length);
    }

    static Padding readFrom(WireInput in) {
        int n = in.remaining();
        in.skip(n, "padding");
        return new Padding(n);
    }
}
