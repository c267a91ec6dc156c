package io.sluice.stream;

import java.util.UUID;

/**
 * Opens transactions on one stream: groups of events that readers see all at once when committed, and never when
 * aborted.
 *
 * <pre>{@code
 * try (TransactionalEventStreamWriter<String> tx =
 *              client.newTransactionalWriter("shop", "orders", Serializers.utf8())) {
 *     Transaction<String> txn = tx.beginTxn();
 *     txn.write("customer-42", "order placed");
 *     txn.writeAll("customer-42", List.of("paid", "shipped"));
 *     txn.commit();                                   // blocks until COMMITTED
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 *
 * @param <T> the event type
 */
public interface TransactionalEventStreamWriter<T> extends AutoCloseable {

    /**
     * Asks the controller for a new transaction and starts pinging its lease
     * ({@link WriterConfig#transactionLease()}) on a virtual thread while it is open.
     *
     * @return the open transaction
     * @throws io.sluice.errors.SluiceException if the controller refused (e.g. the stream is sealed)
     */
    Transaction<T> beginTxn();

    /**
     * A transaction of this stream by id, e.g. one begun by another process. If it is open, it can be written to
     * and committed here, and this writer pings its lease while it stays open.
     *
     * @param txnId the transaction id ({@link Transaction#id()})
     * @return the transaction
     * @throws io.sluice.errors.TransactionFailedException if the controller does not know it
     */
    Transaction<T> getTxn(UUID txnId);

    /** @return the configuration the writer was created with */
    WriterConfig config();

    /**
     * Stops pinging the transactions still open and releases their connections; they are not committed (their
     * leases run out and the controller aborts them).
     */
    @Override
    void close();
}
