package io.sluice.wire;

/**
 * A reply that reports a failure of the request with the same request id. Every one of them carries the
 * server's description of the failure ({@link #serverStackTrace()}), which may be empty.
 */
public sealed interface ErrorReply extends Reply permits
        WrongHost, SegmentIsSealed, SegmentAlreadyExists, NoSuchSegment, InvalidEventNumber, SegmentIsTruncated,
        OperationUnsupported, AuthTokenCheckFailed, ErrorMessage, TableSegmentNotEmpty, TableKeyDoesNotExist,
        TableKeyBadVersion {

    /** @return the server's explanation (a Java stack trace on a real Pravega server; may be empty) */
    String serverStackTrace();
}
