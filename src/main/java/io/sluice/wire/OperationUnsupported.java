package io.sluice.wire;

import java.util.Objects;

/**
 * The server does not support the requested operation. Wire type 57.
 *
 * <pre>
 * requestId i64 | operationName UTF | serverStackTrace UTF (opt, "")
 * </pre>
 *
 * @param requestId the failed request's id
 * @param operationName the operation that is not supported
 * @param serverStackTrace the server's explanation
 */
public record OperationUnsupported(long requestId, String operationName, String serverStackTrace)
        implements ErrorReply {

    /** Checks that the operation name is present; a null stack trace becomes "". */
    public OperationUnsupported {
        Objects.requireNonNull(operationName, "operationName");
        serverStackTrace = serverStackTrace == null ? "" : serverStackTrace;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.OPERATION_UNSUPPORTED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(operationName);
        out.writeUtf(serverStackTrace);
    }

    static OperationUnsupported readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String operationName = in.readUtf("operationName");
        String trace = in.readUtfOr("serverStackTrace", "");
        return new OperationUnsupported(requestId, operationName, trace);
    }
}
