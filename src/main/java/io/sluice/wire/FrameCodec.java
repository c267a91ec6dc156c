package io.sluice.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import io.sluice.wire.InvalidWireCommandException.Problem;

/**
 * Frames commands: {@code int32 type | int32 length | payload}, big-endian.
 *
 * <p>Decoding validates the header — known type code, {@code 0 <= 8 + length <= }{@link
 * WireProtocol#MAX_WIRECOMMAND_SIZE} (the header counts, as in a Pravega server's and client's frame decoder) — before
 * it touches the payload, and every payload read is bounds-checked, so malformed input raises
 * {@link InvalidWireCommandException} and never makes the decoder allocate more than the frame holds.
 * Trailing payload bytes a command does not know are ignored (that is how the protocol adds fields).
 *
 * <p>Stateless and thread-safe.
 */
public final class FrameCodec {

    private FrameCodec() {
    }

    /**
     * Appends one frame to {@code out}.
     *
     * @throws IllegalArgumentException if the frame would exceed {@link WireProtocol#MAX_WIRECOMMAND_SIZE}
     *     (header included, which is what a Pravega server accepts) or a field cannot be encoded (a string longer
     *     than 65535 bytes); {@code out} is left as it was, so a caller may go on writing other frames
     */
    public static void encode(WireCommand command, WireOutput out) {
        int start = out.position();
        out.writeInt(command.type().code());
        out.writeInt(0);
        try {
            command.writeFields(out);
        } catch (IllegalArgumentException e) {
            out.reset(start);
            throw e;
        }
        int length = out.position() - start - WireProtocol.HEADER_SIZE;
        if (length + WireProtocol.HEADER_SIZE > WireProtocol.MAX_WIRECOMMAND_SIZE) {
            out.reset(start);
            throw new IllegalArgumentException(command.type() + " frame of " + (length + WireProtocol.HEADER_SIZE)
                    + " bytes exceeds the wire limit of " + WireProtocol.MAX_WIRECOMMAND_SIZE + " bytes");
        }
        out.putInt(start + Integer.BYTES, length);
    }

    /** @return one frame as a new byte array */
    public static byte[] encode(WireCommand command) {
        WireOutput out = new WireOutput(64);
        encode(command, out);
        return out.toByteArray();
    }

    /**
     * Checks a frame header.
     *
     * @param typeCode the int32 type read from the wire
     * @param length the int32 payload length read from the wire
     * @return the command type
     * @throws InvalidWireCommandException for an unknown or nested-only type, or a negative length, or a frame longer
     *     than {@link WireProtocol#MAX_WIRECOMMAND_SIZE} with its header
     */
    public static WireCommandType checkHeader(int typeCode, int length) {
        WireCommandType type = WireCommandType.forCode(typeCode);
        if (type == null) {
            throw new InvalidWireCommandException(Problem.UNKNOWN_TYPE, "type code " + typeCode
                    + " is not a command of wire version " + WireProtocol.WIRE_VERSION + " (length field " + length + ")");
        }
        if (length < 0) {
            throw new InvalidWireCommandException(Problem.NEGATIVE_LENGTH, type + " frame has negative length " + length);
        }
        if (length > WireProtocol.MAX_WIRECOMMAND_SIZE - WireProtocol.HEADER_SIZE) {
            throw new InvalidWireCommandException(Problem.OVERSIZED_LENGTH, type + " frame of " + (length
                    + (long) WireProtocol.HEADER_SIZE) + " bytes (header included) exceeds the limit of "
                    + WireProtocol.MAX_WIRECOMMAND_SIZE);
        }
        if (type.nestedOnly()) {
            throw new InvalidWireCommandException(Problem.NESTED_ONLY, type
                    + " frames are only valid inside an append block, a ConditionalAppend or segment data");
        }
        return type;
    }

    /**
     * Decodes a payload whose header was checked by {@link #checkHeader}. Byte fields of the result are views of
     * {@code payload}.
     *
     * @param payload exactly the payload bytes, from position to limit; its position is moved to the limit
     */
    public static WireCommand decodePayload(WireCommandType type, ByteBuffer payload) {
        int end = payload.limit();
        WireCommand command = type.decoder().read(new WireInput(payload, type.name()));
        payload.position(end);
        return command;
    }

    /**
     * Decodes the next frame of {@code in} if all of it is there.
     *
     * @param in bytes from the wire; on success its position moves past the frame, otherwise it is unchanged
     * @return the command, or {@code null} when {@code in} does not hold a whole frame yet
     * @throws InvalidWireCommandException if the bytes are not a valid frame; {@code in}'s position is then undefined
     */
    public static WireCommand decode(ByteBuffer in) {
        if (in.remaining() < WireProtocol.HEADER_SIZE) {
            return null;
        }
        ByteBuffer bb = in.order() == ByteOrder.BIG_ENDIAN ? in : in.duplicate().order(ByteOrder.BIG_ENDIAN);
        int p = in.position();
        int typeCode = bb.getInt(p);
        int length = bb.getInt(p + Integer.BYTES);
        WireCommandType type = checkHeader(typeCode, length);
        if (in.remaining() - WireProtocol.HEADER_SIZE < length) {
            return null;
        }
        int payloadStart = p + WireProtocol.HEADER_SIZE;
        ByteBuffer payload = in.slice(payloadStart, length);
        in.position(payloadStart + length);
        return decodePayload(type, payload);
    }

    /**
     * Decodes exactly one frame that fills {@code frame}.
     *
     * @throws InvalidWireCommandException if it is not exactly one valid frame
     */
    public static WireCommand decodeOne(ByteBuffer frame) {
        ByteBuffer in = frame.duplicate();
        WireCommand c = decode(in);
        if (c == null) {
            throw new InvalidWireCommandException(Problem.TRUNCATED, "frame of " + frame.remaining()
                    + " bytes is shorter than its header says");
        }
        if (in.hasRemaining()) {
            throw new InvalidWireCommandException(Problem.INVALID_FIELD, in.remaining() + " bytes follow the " + c.type() + " frame");
        }
        return c;
    }

    /** @return {@link #decodeOne} of a byte array */
    public static WireCommand decodeOne(byte[] frame) {
        return decodeOne(ByteBuffer.wrap(frame));
    }
}
