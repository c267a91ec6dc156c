package io.sluice.stream;

import java.util.Objects;
import java.util.UUID;

/**
 * A transaction of a stream and its state, as listed by the controller. Immutable value.
 *
 * @param stream the stream
 * @param txnId the transaction id
 * @param state the transaction's state
 */
public record TransactionInfo(ScopedStream stream, UUID txnId, TxnState state) {

    /** Checks for nulls. */
    public TransactionInfo {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(txnId, "txnId");
        Objects.requireNonNull(state, "state");
    }
}
