package io.sluice.stream;

/**
 * The life cycle of a transaction: {@code OPEN → COMMITTING → COMMITTED} or {@code OPEN → ABORTING → ABORTED}.
 */
public enum TxnState {
    /** Accepting writes. */
    OPEN,
    /** Commit requested; the controller is merging the transaction's segments into the stream. */
    COMMITTING,
    /** Committed: its events are part of the stream. */
    COMMITTED,
    /** Abort requested; the controller is deleting the transaction's segments. */
    ABORTING,
    /** Aborted: its events are gone. */
    ABORTED;

    /** @return true for {@link #COMMITTED} and {@link #ABORTED} */
    public boolean isFinal() {
        return this == COMMITTED || this == ABORTED;
    }
}
