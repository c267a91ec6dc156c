package io.sluice.wire;

import java.util.Objects;

/**
 * The request's delegation token was rejected. Wire type 60.
 *
 * <pre>
 * requestId i64 | serverStackTrace UTF (opt, "") | errorCode i32 (opt, −1)
 * </pre>
 * {@link ErrorCode#TOKEN_EXPIRED} means: get a fresh token from the controller and retry; on the append path the
 * server also closes the connection.
 *
 * @param requestId the failed request's id
 * @param serverStackTrace the server's explanation
 * @param errorCode why the token was rejected
 */
public record AuthTokenCheckFailed(long requestId, String serverStackTrace, ErrorCode errorCode) implements ErrorReply {

    /** Why a token was rejected. */
    public enum ErrorCode {
        /** Not said (what peers older than the field send, and what an absent field reads as). */
        UNSPECIFIED(-1),
        /** The token is invalid or does not grant the operation. */
        TOKEN_CHECK_FAILED(0),
        /** The token has expired. */
        TOKEN_EXPIRED(1);

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
         * @return its error code; a code this version does not know is {@link #TOKEN_CHECK_FAILED}, as in Pravega
         */
        public static ErrorCode fromCode(int code) {
            return switch (code) {
                case -1 -> UNSPECIFIED;
                case 1 -> TOKEN_EXPIRED;
                default -> TOKEN_CHECK_FAILED;
            };
        }
    }

    /** Checks that the error code is present; a null stack trace becomes "". */
    public AuthTokenCheckFailed {
        serverStackTrace = serverStackTrace == null ? "" : serverStackTrace;
        Objects.requireNonNull(errorCode, "errorCode");
    }

    /** @return true if the token merely expired (a fresh one may succeed) */
    public boolean isTokenExpired() {
        return errorCode == ErrorCode.TOKEN_EXPIRED;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.AUTH_TOKEN_CHECK_FAILED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(serverStackTrace);
        out.writeInt(errorCode.code());
    }

    static AuthTokenCheckFailed readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String trace = in.readUtfOr("serverStackTrace", "");
        int code = in.readIntOr("errorCode", -1);
        return new AuthTokenCheckFailed(requestId, trace, ErrorCode.fromCode(code));
    }
}
