package io.sluice.wire;

import java.util.Objects;

/**
 * A generic failure: an error code the client can act on and a message saying where it came from (a real server
 * sends it for illegal arguments, e.g. a key of the wrong length for a fixed-key-length table). Wire type 61.
 *
 * <pre>
 * requestId i64 | segment UTF | message UTF | errorCode i32
 * </pre>
 * All four fields are mandatory. It carries no separate stack trace: {@link #serverStackTrace()} is the message.
 *
 * @param requestId the failed request's id
 * @param segment the segment concerned ("" if none)
 * @param message what went wrong
 * @param errorCode the kind of failure
 */
public record ErrorMessage(long requestId, String segment, String message, ErrorCode errorCode) implements ErrorReply {

    /** The kind of failure, naming the exception the client should raise. */
    public enum ErrorCode {
        /** Not said: the client raises a generic runtime exception. */
        UNSPECIFIED(-1),
        /** The request had an illegal argument. */
        ILLEGAL_ARGUMENT_EXCEPTION(0);

        private final int code;

        ErrorCode(int code) {
            this.code = code;
        }

        /** @return the int32 sent on the wire */
        public int code() {
            return code;
        }

        /**
         * @param code an int32 read from the wire
         * @return its error code; a code this version does not know is {@link #UNSPECIFIED}, as in Pravega
         */
        public static ErrorCode fromCode(int code) {
            return code == 0 ? ILLEGAL_ARGUMENT_EXCEPTION : UNSPECIFIED;
        }
    }

    /** Null texts become "" (as Pravega writes them); the error code is required. */
    public ErrorMessage {
        segment = segment == null ? "" : segment;
        message = message == null ? "" : message;
        Objects.requireNonNull(errorCode, "errorCode");
    }

    /** @return the message, the only explanation this reply carries */
    @Override
    public String serverStackTrace() {
        return message;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.ERROR_MESSAGE;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeUtf(message);
        out.writeInt(errorCode.code());
    }

    static ErrorMessage readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        String message = in.readUtf("message");
        int code = in.readInt("errorCode");
        return new ErrorMessage(requestId, segment, message, ErrorCode.fromCode(code));
    }
}
