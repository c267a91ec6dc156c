package io.sluice.auth;

/**
 * What a delegation token allows on a stream, as asked of the controller ({@code StreamInfo.AccessOperation} in
 * {@code controller.proto}, whose numbers the constants carry). Writers ask for {@link #READ_WRITE}, readers for
 * {@link #READ}.
 */
public enum AccessOperation {
    /** Not specified: the controller decides. */
    UNSPECIFIED(0),
    /** No access. */
    NONE(1),
    /** Any access the caller is allowed. */
    ANY(2),
    /** Read the stream's segments. */
    READ(3),
    /** Write only (not used by Pravega's client). */
    WRITE(4),
    /** Read and append (what writers ask for). */
    READ_WRITE(5);

    private final int protoNumber;

    AccessOperation(int protoNumber) {
        this.protoNumber = protoNumber;
    }

    /** @return the enum number in {@code controller.proto} */
    public int protoNumber() {
        return protoNumber;
    }
}
