package io.sluice.server.controller;

import java.util.UUID;

/**
 * An active (not yet completed) transaction. Immutable; the model replaces it on every change. Times are
 * milliseconds since the epoch.
 *
 * @param epoch the epoch it writes to (the high 32 bits of its id's most significant half)
 * @param commitOrder position in the stream's commit order, -1 until commit is requested
 */
record TxnRecord(UUID id, int epoch, TxnPhase state, long creationTime, long leaseExpiry, long maxExecutionExpiry,
                 String writerId, long commitTimestamp, long commitOrder) {

    TxnRecord withState(TxnPhase newState) {
        return new TxnRecord(id, epoch, newState, creationTime, leaseExpiry, maxExecutionExpiry, writerId,
                commitTimestamp, commitOrder);
    }

    TxnRecord withLease(long newLeaseExpiry) {
        return new TxnRecord(id, epoch, state, creationTime, newLeaseExpiry, maxExecutionExpiry, writerId,
                commitTimestamp, commitOrder);
    }

    TxnRecord committing(String writer, long timestamp, long order) {
        return new TxnRecord(id, epoch, TxnPhase.COMMITTING, creationTime, leaseExpiry, maxExecutionExpiry, writer,
                timestamp, order);
    }
}
