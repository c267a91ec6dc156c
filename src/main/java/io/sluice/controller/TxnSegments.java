package io.sluice.controller;

import java.util.Objects;
import java.util.UUID;

/**
 * A new transaction: its id and the stream's segments it writes to (one transaction segment each).
 *
 * @param txnId the transaction id
 * @param segments the stream's active segments with key ranges, and the delegation token
 */
public record TxnSegments(UUID txnId, StreamSegments segments) {

    /** Checks for nulls. */
    public TxnSegments {
        Objects.requireNonNull(txnId, "txnId");
        Objects.requireNonNull(segments, "segments");
    }
}
