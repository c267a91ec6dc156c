package io.sluice.wire;

/**
 * One command of Pravega's segment-store wire protocol: a record whose fields are the command's payload.
 *
 * <p>A frame on the wire is {@code int32 type | int32 length | payload}; {@link FrameCodec} writes and reads the
 * header, the command writes and reads its payload. Commands are immutable values; byte fields are views and
 * compare by content.
 */
public sealed interface WireCommand permits Request, Reply, Event {
    /** @return the command's type code */
    WireCommandType type();

    /**
     * Writes the payload (every field, in wire order) to {@code out}. Does not write the frame header.
     *
     * @param out where to write
     */
    void writeFields(WireOutput out);

    /**
     * @return the request id this command carries, {@link WireProtocol#NO_REQUEST_ID} if it has none
     */
    long requestId();
}
