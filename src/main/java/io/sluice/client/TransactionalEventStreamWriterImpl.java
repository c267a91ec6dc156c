package io.sluice.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.sluice.auth.AccessOperation;
import io.sluice.controller.ControllerClient;
import io.sluice.controller.StreamSegments;
import io.sluice.controller.TxnSegments;
import io.sluice.errors.WriterClosedException;
import io.sluice.segment.DelegationTokenProvider;
import io.sluice.segment.SegmentStores;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializer;
import io.sluice.stream.Transaction;
import io.sluice.stream.TransactionalEventStreamWriter;
import io.sluice.stream.TxnState;
import io.sluice.stream.WriterConfig;

/** Opens {@link TransactionImpl}s of one stream and ends the ones still open when closed. */
final class TransactionalEventStreamWriterImpl<T> implements TransactionalEventStreamWriter<T> {
    private final ScopedStream stream;
    private final Serializer<T> serializer;
    private final WriterConfig config;
    private final ControllerClient controller;
    private final SegmentStores stores;
    private final DelegationTokenProvider tokens;
    /** The writer id commits carry (the controller's watermarks key commit timestamps by it). */
    private final String writerId = UUID.randomUUID().toString();
    private final ConcurrentHashMap<UUID, TransactionImpl<T>> open = new ConcurrentHashMap<>();
    private volatile boolean closed;

    TransactionalEventStreamWriterImpl(ScopedStream stream, Serializer<T> serializer, WriterConfig config,
                                       ControllerClient controller, SegmentStores stores) {
        this.stream = Objects.requireNonNull(stream, "stream");
        this.serializer = Objects.requireNonNull(serializer, "serializer");
        this.config = Objects.requireNonNull(config, "config");
        this.controller = controller;
        this.stores = stores;
        this.tokens = DelegationTokenProvider.fromController(controller, stream, AccessOperation.READ_WRITE);
    }

    @Override
    public Transaction<T> beginTxn() {
        checkOpen();
        TxnSegments txn = controller.createTransaction(stream, config.transactionLease());
        tokens.offer(txn.segments().delegationToken());
        return track(txn.txnId(), txn.segments().ranges());
    }

    @Override
    public Transaction<T> getTxn(UUID txnId) {
        Objects.requireNonNull(txnId, "txnId");
        checkOpen();
        TxnState state = controller.transactionState(stream, txnId);
        TransactionImpl<T> mine = open.get(txnId);
        if (state != TxnState.OPEN) {
            String why = "transaction " + txnId + " of " + stream + " is " + state;
            if (mine != null) {
                mine.end(why);
                return mine;
            }
            return new TransactionImpl<>(stream, txnId, why, serializer, config, controller, writerId);
        }
        if (mine != null) {
            return mine;
        }
        // a transaction's segments are those of the epoch it was created in (the high half of its id's top
        // 64 bits), named with that epoch, as createTransaction returns them
        int epoch = (int) (txnId.getMostSignificantBits() >> 32);
        StreamSegments segments = controller.epochSegments(stream, epoch);
        tokens.offer(segments.delegationToken());
        List<SegmentWithRange> ranges = new ArrayList<>();
        for (SegmentWithRange r : segments.ranges()) {
            ranges.add(new SegmentWithRange(Segment.of(stream, r.segment().number(), epoch), r.low(), r.high()));
        }
        return track(txnId, ranges);
    }

    private TransactionImpl<T> track(UUID txnId, List<SegmentWithRange> ranges) {
        TransactionImpl<T> txn = new TransactionImpl<>(stream, txnId, ranges, serializer, config, controller, stores,
                tokens, writerId, () -> open.remove(txnId));
        open.put(txnId, txn);
        if (closed) {
            txn.end("the transactional writer of " + stream + " was closed");
        }
        return txn;
    }

    private void checkOpen() {
        if (closed) {
            throw new WriterClosedException("the transactional writer of " + stream + " is closed");
        }
    }

    @Override
    public WriterConfig config() {
        return config;
    }

    @Override
    public void close() {
        closed = true;
        for (TransactionImpl<T> txn : new ArrayList<>(open.values())) {
            txn.end("the transactional writer of " + stream + " was closed");
        }
    }

    @Override
    public String toString() {
        return "TransactionalEventStreamWriter[" + stream + ", writer " + writerId + "]";
    }
}
