package io.sluice.wire;

import io.sluice.errors.SluiceException;

/**
 * Bytes that are not a valid wire command. Raised by the decoder before it allocates anything whose size
 * comes from the input; a connection that sees it is closed, since the byte stream can no longer be trusted.
 */
public final class InvalidWireCommandException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /** What exactly was wrong with the bytes. */
    public enum Problem {
        /** The type code is not a command of this wire version. */
        UNKNOWN_TYPE,
        /** The type code names a command that is only valid nested inside another (EVENT). */
        NESTED_ONLY,
        /** The frame's length field is negative. */
        NEGATIVE_LENGTH,
        /** The frame, header included, is longer than {@link WireProtocol#MAX_WIRECOMMAND_SIZE}. */
        OVERSIZED_LENGTH,
        /** The payload ends before the command's mandatory fields do. */
        TRUNCATED,
        /** A string is not valid (modified) UTF-8 as Java's {@code DataInput.readUTF} reads it. */
        INVALID_UTF,
        /** A field has a value the protocol does not allow (a negative count, a length past the frame). */
        INVALID_FIELD,
        /** An append block violates the append-stream rules (docs/protocol.md §5). */
        INVALID_APPEND
    }

    private final Problem problem;

    /**
     * @param problem the kind of defect
     * @param message names the command, the field and the offending value
     */
    public InvalidWireCommandException(Problem problem, String message) {
        super(problem + ": " + message);
        this.problem = problem;
    }

    /** @return the kind of defect */
    public Problem problem() {
        return problem;
    }
}
