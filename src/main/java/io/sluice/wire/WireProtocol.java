package io.sluice.wire;

/**
 * Constants of Pravega's segment-store wire protocol that Sluice speaks.
 */
public final class WireProtocol {
    /** The wire version Sluice speaks: Pravega master (0.13.0 speaks 16). */
    public static final int WIRE_VERSION = 17;
    /** The oldest peer version Sluice talks to. */
    public static final int OLDEST_COMPATIBLE_VERSION = 5;
    /** Size of a frame header: int32 type code + int32 payload length. */
    public static final int HEADER_SIZE = 8;
    /** Largest frame Pravega accepts: {@code 0x00FFFFFF} bytes (16 MiB - 1). */
    public static final int MAX_WIRECOMMAND_SIZE = 0x00FFFFFF;
    /** Request id of Hello. */
    public static final long HELLO_REQUEST_ID = 0L;
    /** Request id carried by commands that have none. */
    public static final long NO_REQUEST_ID = -1L;
    /** Attribute value meaning "not set" (also: "this writer never appended"). */
    public static final long NULL_ATTRIBUTE_VALUE = Long.MIN_VALUE;

    private WireProtocol() {
    }
}
