package io.sluice.cli;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.sluice.admin.StreamManager;
import io.sluice.client.SluiceClient;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.Transaction;
import io.sluice.stream.TransactionalEventStreamWriter;

/**
 * The transaction workload of {@code bench --transactions T --txn-events N}, as the official-client driver's
 * {@code bench --transactions T --txn-events N} (compat/official-client) runs it, with the same JSON keys.
 *
 * <ol>
 *   <li>write: one transactional writer runs T transactions one after the other: {@code beginTxn}, N writes of S
 *       bytes over {@value Workload#KEYS} routing keys (event numbers continue across transactions, so events are
 *       those of {@link Workload}), then {@code commit}, which flushes and returns once the controller reports the
 *       transaction COMMITTED. Write time: first {@code beginTxn} to the last commit's return; commit latency:
 *       {@code commit} to its return, per transaction;</li>
 *   <li>read: a new reader group of R readers reads the T x N events back, each checked by {@link Workload}'s
 *       verifier (content, exactly once, per-key order: every transaction read whole and in commit order).</li>
 * </ol>
 */
final class TxnWorkload {
    private TxnWorkload() {
    }

    /**
     * What the run did.
     *
     * @param commitMicros each transaction's commit latency, sorted
     * @param txnMicros each transaction's whole time (begin, writes, commit), sorted
     */
    record Report(ScopedStream stream, Workload.Settings settings, int transactions, int txnEvents, long writeNanos,
                  long readNanos, long[] commitMicros, long[] txnMicros, Workload.Verdict verdict, String cleanupError,
                  long totalNanos) {

        boolean ok() {
            return verdict.ok();
        }

        Map<String, Object> json(Map<String, Object> context) {
            Map<String, Object> json = Workload.jsonHead(ok(), context, stream, settings);
            Map<String, Object> write = Workload.rate(settings.size(), settings.events(), writeNanos);
            write.put("failed", 0);
            json.put("write", write);
            Map<String, Object> txns = new LinkedHashMap<>();
            txns.put("count", transactions);
            txns.put("events_per_txn", txnEvents);
            txns.put("events_per_s", writeNanos == 0 ? 0 : Math.round(settings.events() * 1e9 / writeNanos));
            txns.put("txns_per_s", writeNanos == 0 ? 0 : transactions * 1e9 / writeNanos);
            txns.put("commit_p50_ms", Workload.percentile(commitMicros, 0.50) / 1000.0);
            txns.put("commit_p99_ms", Workload.percentile(commitMicros, 0.99) / 1000.0);
            txns.put("commit_max_ms", commitMicros.length == 0 ? 0 : commitMicros[commitMicros.length - 1] / 1000.0);
            txns.put("txn_p50_ms", Workload.percentile(txnMicros, 0.50) / 1000.0);
            txns.put("txn_p99_ms", Workload.percentile(txnMicros, 0.99) / 1000.0);
            json.put("transactions", txns);
            json.put("read", Workload.rate(settings.size(), verdict.read(), readNanos));
            json.put("verify", verdict.json());
            json.put("cleanup", Workload.cleanupJson(cleanupError));
            json.put("total_ms", totalNanos / 1_000_000);
            return json;
        }

        List<String> lines() {
            List<String> lines = new ArrayList<>();
            lines.add(String.format(Locale.ROOT, "stream    %s: %d segment%s, %d reader%s; %,d transactions of %,d "
                    + "events of %,d bytes over %d routing keys", stream, settings.segments(),
                    settings.segments() == 1 ? "" : "s", settings.readers(), settings.readers() == 1 ? "" : "s",
                    transactions, txnEvents, settings.size(), Workload.KEYS));
            double seconds = writeNanos / 1e9;
            lines.add(String.format(Locale.ROOT, "write     %,d events in %.2f s: %,d events/s, %.1f transactions/s",
                    settings.events(), seconds, seconds == 0 ? 0 : Math.round(settings.events() / seconds),
                    seconds == 0 ? 0 : transactions / seconds));
            lines.add(String.format(Locale.ROOT,
                    "commit    p50 %.2f ms, p99 %.2f ms, max %.2f ms (commit to COMMITTED)",
                    Workload.percentile(commitMicros, 0.50) / 1000.0,
                    Workload.percentile(commitMicros, 0.99) / 1000.0,
                    commitMicros.length == 0 ? 0 : commitMicros[commitMicros.length - 1] / 1000.0));
            double readSeconds = readNanos / 1e9;
            lines.add(String.format(Locale.ROOT, "read      %,d events in %.2f s: %,d events/s", verdict.read(),
                    readSeconds, readSeconds == 0 ? 0 : Math.round(verdict.read() / readSeconds)));
            lines.add(verdict.ok() ? "verify    ok: every event read exactly once, intact, in order per key"
                    : "verify    FAILED: " + verdict.reason());
            if (cleanupError != null) {
                lines.add("cleanup   incomplete: " + cleanupError);
            }
            return lines;
        }
    }

    /**
     * Runs the workload: creates the scope (if missing) and the stream, runs the transactions, reads them back and
     * verifies, and deletes what it created (best effort). Blocks until done.
     *
     * @param s the settings; {@code s.events()} must be {@code transactions * txnEvents}
     */
    static Report run(SluiceClient client, ScopedStream stream, Workload.Settings s, int transactions,
                      int txnEvents) {
        if ((long) transactions * txnEvents != s.events()) {
            throw new IllegalArgumentException("events " + s.events() + " != " + transactions + " x " + txnEvents);
        }
        long start = System.nanoTime();
        StreamManager streams = client.streamManager();
        boolean scopeCreated = streams.createScope(stream.scope());
        if (!streams.createStream(stream.scope(), stream.name(), StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(s.segments())).build())) {
            throw new AlreadyExistsException("stream '" + stream + "' already exists");
        }
        String group = Workload.groupOf(stream);
        boolean groupCreated = false;
        try {
            long[] commitMicros = new long[transactions];
            long[] txnMicros = new long[transactions];
            long writeNanos;
            try (TransactionalEventStreamWriter<ByteBuffer> writer = client.newTransactionalWriter(stream.scope(),
                    stream.name(), Serializers.byteBuffer(), ControllerOptions.writerConfig(s.idleTimeout()))) {
                long t0 = System.nanoTime();
                for (int t = 0; t < transactions; t++) {
                    long begin = System.nanoTime();
                    Transaction<ByteBuffer> txn = writer.beginTxn();
                    for (int j = 0; j < txnEvents; j++) {
                        long n = (long) t * txnEvents + j;
                        int key = (int) (n % Workload.KEYS);
                        txn.write(Workload.routingKey(key), Workload.event(key, (int) (n / Workload.KEYS), s.size()));
                    }
                    long commit = System.nanoTime();
                    txn.commit();
                    long end = System.nanoTime();
                    commitMicros[t] = (end - commit) / 1000;
                    txnMicros[t] = (end - begin) / 1000;
                }
                writeNanos = System.nanoTime() - t0;
            }
            Arrays.sort(commitMicros);
            Arrays.sort(txnMicros);
            client.readerGroupManager(stream.scope()).createReaderGroup(group, ReaderGroupConfig.builder()
                    .stream(stream).disableAutomaticCheckpoints().build()).close();
            groupCreated = true;
            Workload.Verifier verifier = new Workload.Verifier(s.events(), s.size());
            long readNanos = Workload.read(client, stream.scope(), group, s, verifier);
            String cleanup = cleanup(client, stream, groupCreated, scopeCreated);
            return new Report(stream, s, transactions, txnEvents, writeNanos, readNanos, commitMicros, txnMicros,
                    verifier.verdict(), cleanup, System.nanoTime() - start);
        } catch (RuntimeException e) {
            String cleanup = cleanup(client, stream, groupCreated, scopeCreated);
            if (cleanup != null) {
                e.addSuppressed(new IllegalStateException("cleanup: " + cleanup));
            }
            throw e;
        }
    }

    /** Deletes the reader group, the stream and the scope (those the run created); returns what failed, or null. */
    private static String cleanup(SluiceClient client, ScopedStream stream, boolean group, boolean scope) {
        List<String> errors = new ArrayList<>();
        StreamManager streams = client.streamManager();
        try {
            if (group) {
                client.readerGroupManager(stream.scope()).deleteReaderGroup(Workload.groupOf(stream));
            }
            streams.sealStream(stream.scope(), stream.name());
            streams.deleteStream(stream.scope(), stream.name());
            if (scope) {
                streams.deleteScope(stream.scope());
            }
        } catch (RuntimeException e) {
            errors.add(e.getMessage());
        }
        return errors.isEmpty() ? null : String.join("; ", errors);
    }
}
