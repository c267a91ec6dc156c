package io.sluice.server.controller;

/** A transaction's state, as in Pravega: {@code OPEN -> COMMITTING -> COMMITTED}, {@code OPEN -> ABORTING -> ABORTED}. */
enum TxnPhase {
    /** Accepting writes. */
    OPEN,
    /** Commit requested; its segments are being merged. */
    COMMITTING,
    /** Merged into the stream. */
    COMMITTED,
    /** Abort requested (or the lease expired); its segments are being deleted. */
    ABORTING,
    /** Its segments are gone. */
    ABORTED
}
