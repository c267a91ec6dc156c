package io.sluice.compat.official;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.pravega.client.EventStreamClientFactory;
import io.pravega.client.admin.StreamManager;
import io.pravega.client.stream.EventWriterConfig;
import io.pravega.client.stream.Transaction;
import io.pravega.client.stream.TransactionalEventStreamWriter;

/**
 * Mode {@code bench} with {@code --transactions T}: the transaction workload of Sluice's {@code bench
 * --transactions T --txn-events N}, so that the two clients can be compared on one server.
 *
 * <ol>
 *   <li>write: one transactional writer runs T transactions one after the other: {@code beginTxn}, N
 *       {@code writeEvent}s of S bytes over 64 routing keys (event numbers continue across transactions), then
 *       {@code commit} and polling {@code checkStatus} until COMMITTED. Write time: first {@code beginTxn} to the
 *       last COMMITTED; commit latency: {@code commit} (which flushes first) to COMMITTED, per transaction;</li>
 *   <li>read: a new reader group of R readers from the head reads the T x N events back; count and per-key order
 *       checked (so every transaction was read whole and in commit order).</li>
 * </ol>
 */
final class TxnBench {
    private static final long TXN_TIMEOUT_MS = 120_000;

    private TxnBench() {
    }

    static boolean run(Run run, Report report, StreamManager streamManager) throws Exception {
        Options o = run.options;
        String stream = o.stream();
        long events = (long) o.transactions() * o.txnEvents();
        report.put("stream", o.scope() + "/" + stream);
        report.put("events", events);
        report.put("size", o.size());
        report.put("segments", o.segments());
        report.put("readers", o.readers());
        report.put("keys", Payload.KEYS);
        run.createStream(streamManager, stream, o.segments());

        long[] commitMicros = new long[o.transactions()];
        long[] txnMicros = new long[o.transactions()];
        long failed = 0;
        String firstError = null;
        long writeNanos;
        try (EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config);
             TransactionalEventStreamWriter<ByteBuffer> writer = factory.createTransactionalEventWriter("bench",
                     stream, Payload.SERIALIZER,
                     EventWriterConfig.builder().transactionTimeoutTime(TXN_TIMEOUT_MS).build())) {
            run.phase("bench: " + o.transactions() + " transactions of " + o.txnEvents() + " events of " + o.size()
                    + " bytes to " + o.segments() + " segment(s)");
            long t0 = System.nanoTime();
            for (int t = 0; t < o.transactions(); t++) {
                long begin = System.nanoTime();
                Transaction<ByteBuffer> txn = writer.beginTxn();
                for (int j = 0; j < o.txnEvents(); j++) {
                    long n = (long) t * o.txnEvents() + j;
                    int key = Payload.keyOf(n);
                    txn.writeEvent(Payload.routingKey(key), Payload.encode(key, Payload.seqOf(n), o.size()));
                }
                long commit = System.nanoTime();
                txn.commit();
                Transaction.Status status = txn.checkStatus();
                while (status != Transaction.Status.COMMITTED && status != Transaction.Status.ABORTED
                        && System.nanoTime() < run.deadlineNanos) {
                    TimeUnit.MILLISECONDS.sleep(1);
                    status = txn.checkStatus();
                }
                long end = System.nanoTime();
                commitMicros[t] = (end - commit) / 1000;
                txnMicros[t] = (end - begin) / 1000;
                if (status != Transaction.Status.COMMITTED) {
                    failed++;
                    if (firstError == null) {
                        firstError = "transaction " + txn.getTxnId() + " ended " + status;
                    }
                    break;
                }
            }
            writeNanos = System.nanoTime() - t0;
        }
        Map<String, Object> write = new LinkedHashMap<>();
        double seconds = writeNanos / 1e9;
        write.put("events_per_s", seconds == 0 ? 0 : Math.round(events / seconds));
        write.put("mb_per_s", seconds == 0 ? 0 : events * (double) o.size() / 1e6 / seconds);
        write.put("seconds", seconds);
        write.put("failed", failed);
        report.put("write", write);
        report.put("transactions", transactions(o, commitMicros, txnMicros, writeNanos, events));
        Driver.LOG.info("bench: {} transactions, {} events/s", o.transactions(), write.get("events_per_s"));

        run.phase("bench: reading " + events + " events with " + o.readers() + " reader(s)");
        EventsWorkload.ReadResult r = EventsWorkload.read(run.config, o.scope(), stream, run.name("-rg"),
                o.readers(), events, o.size(), false, 0, run.deadlineNanos);
        Map<String, Object> read = new LinkedHashMap<>();
        double readSeconds = r.nanos() / 1e9;
        read.put("events_per_s", readSeconds == 0 ? 0 : Math.round(r.events() / readSeconds));
        read.put("mb_per_s", readSeconds == 0 ? 0 : r.events() * (double) o.size() / 1e6 / readSeconds);
        read.put("seconds", readSeconds);
        report.put("read", read);

        boolean ok = failed == 0 && r.ok(events);
        Map<String, Object> verify = new LinkedHashMap<>();
        verify.put("ok", ok);
        verify.put("read", r.events());
        verify.put("duplicates", r.duplicates());
        verify.put("out_of_order", r.gaps());
        verify.put("missing", r.missing());
        verify.put("failed_writes", failed);
        if (r.timedOut()) {
            verify.put("timed_out", true);
        }
        if (firstError != null || r.firstError() != null) {
            verify.put("error", firstError != null ? firstError : r.firstError());
        }
        report.put("verify", verify);
        return ok;
    }

    private static Map<String, Object> transactions(Options o, long[] commitMicros, long[] txnMicros,
                                                    long writeNanos, long events) {
        long[] commits = commitMicros.clone();
        long[] whole = txnMicros.clone();
        Arrays.sort(commits);
        Arrays.sort(whole);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("count", o.transactions());
        m.put("events_per_txn", o.txnEvents());
        m.put("events_per_s", writeNanos == 0 ? 0 : Math.round(events * 1e9 / writeNanos));
        m.put("txns_per_s", writeNanos == 0 ? 0 : o.transactions() * 1e9 / writeNanos);
        m.put("commit_p50_ms", percentile(commits, 0.50) / 1000.0);
        m.put("commit_p99_ms", percentile(commits, 0.99) / 1000.0);
        m.put("commit_max_ms", commits.length == 0 ? 0 : commits[commits.length - 1] / 1000.0);
        m.put("txn_p50_ms", percentile(whole, 0.50) / 1000.0);
        m.put("txn_p99_ms", percentile(whole, 0.99) / 1000.0);
        return m;
    }

    /** Nearest-rank percentile of sorted values. */
    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
