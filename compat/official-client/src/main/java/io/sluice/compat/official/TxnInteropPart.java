package io.sluice.compat.official;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.pravega.client.EventStreamClientFactory;
import io.pravega.client.admin.ReaderGroupManager;
import io.pravega.client.stream.EventStreamReader;
import io.pravega.client.stream.EventWriterConfig;
import io.pravega.client.stream.ReaderConfig;
import io.pravega.client.stream.ReaderGroupConfig;
import io.pravega.client.stream.Stream;
import io.pravega.client.stream.Transaction;
import io.pravega.client.stream.TransactionalEventStreamWriter;
import io.pravega.client.stream.impl.UTF8StringSerializer;

/**
 * Mode {@code txn-interop}: transactions between the official client and another client on an EXISTING
 * {@code --scope}/{@code --stream} (nothing created or deleted but a reader group of its own). Events are
 * {@code <writer>-commit:k<i % 8>:<i>} (or {@code -abort}) for i in 0..{@code --events}-1.
 *
 * <ul>
 *   <li>{@code --action write}: the official client writes and commits one transaction of events
 *       {@code official-commit:...}, and writes and aborts another of {@code official-abort:...}, each waited for
 *       until COMMITTED or ABORTED; reports both ids;</li>
 *   <li>{@code --action read}: the official client reads the stream from its start with a new reader group and
 *       checks it finds exactly the events {@code <W>-commit:...} (each once, per key in order) and no
 *       {@code <W>-abort:...} nor anything else; W is {@code --writer}, {@code sluice} by default;</li>
 *   <li>{@code --action write-open}: the official client begins a transaction with a lease of
 *       {@code --lease-seconds}, writes {@code official-commit:...} to it, flushes, reports its id and exits without
 *       committing or closing the writer: its pinger ends with the process, so another client may commit the
 *       transaction within the lease, or watch the lease run out;</li>
 *   <li>{@code --action commit --txn ID}: the official client looks the transaction up by id ({@code getTxn}),
 *       reports its status ({@code status_before}), commits it, reports whether the commit failed
 *       ({@code commit_failed}, {@code commit_error}) and the status it then reaches ({@code status_after}:
 *       polled until COMMITTED or ABORTED). A failed commit is reported, not a failed check.</li>
 * </ul>
 */
final class TxnInteropPart {
    static final int KEYS = 8;
    private static final long TXN_TIMEOUT_MS = 60_000;
    private static final long QUIET_MS = 2000;

    private TxnInteropPart() {
    }

    static boolean run(Run run, Report report) {
        Options o = run.options;
        Part part = new Part("txn-interop");
        report.put("txn-interop", part);
        part.start();
        try {
            part.put("stream", o.scope() + "/" + o.stream());
            part.put("action", o.action());
            part.put("events", o.events());
            switch (o.action()) {
                case "write" -> write(run, part);
                case "write-open" -> writeOpen(run, part);
                case "commit" -> commit(run, part);
                default -> read(run, part);
            }
        } catch (Throwable t) {
            part.error(t);
        } finally {
            part.finish();
        }
        return part.ok();
    }

    static String event(String writer, String outcome, int i) {
        return writer + "-" + outcome + ":k" + (i % KEYS) + ":" + i;
    }

    private static void write(Run run, Part part) throws Exception {
        Options o = run.options;
        try (EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config);
             TransactionalEventStreamWriter<String> writer = factory.createTransactionalEventWriter("txn-interop",
                     o.stream(), new UTF8StringSerializer(),
                     EventWriterConfig.builder().transactionTimeoutTime(TXN_TIMEOUT_MS).build())) {
            run.phase("txn-interop: writing a transaction to commit and one to abort to " + o.scope() + "/"
                    + o.stream());
            Transaction<String> commit = writer.beginTxn();
            Transaction<String> abort = writer.beginTxn();
            for (int i = 0; i < o.events(); i++) {
                commit.writeEvent("k" + (i % KEYS), event("official", "commit", i));
                abort.writeEvent("k" + (i % KEYS), event("official", "abort", i));
            }
            commit.flush();
            abort.flush();
            part.put("committed_txn", commit.getTxnId().toString());
            part.put("aborted_txn", abort.getTxnId().toString());
            run.phase("txn-interop: aborting one, committing the other");
            abort.abort();
            commit.commit();
            part.checkEqual(Transaction.Status.COMMITTED, awaitFinal(run, commit), "final status of the committed txn");
            part.checkEqual(Transaction.Status.ABORTED, awaitFinal(run, abort), "final status of the aborted txn");
        }
    }

    private static void writeOpen(Run run, Part part) throws Exception {
        Options o = run.options;
        // closed by the process's exit only: closing the writer or the factory is not what a crashed process does
        EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config);
        TransactionalEventStreamWriter<String> writer = factory.createTransactionalEventWriter("txn-interop-open",
                o.stream(), new UTF8StringSerializer(),
                EventWriterConfig.builder().transactionTimeoutTime(o.leaseSeconds() * 1000L).build());
        run.phase("txn-interop: writing a transaction left open to " + o.scope() + "/" + o.stream());
        Transaction<String> txn = writer.beginTxn();
        for (int i = 0; i < o.events(); i++) {
            txn.writeEvent("k" + (i % KEYS), event("official", "commit", i));
        }
        txn.flush();
        part.put("open_txn", txn.getTxnId().toString());
        part.put("lease_ms", o.leaseSeconds() * 1000L);
        part.checkEqual(Transaction.Status.OPEN, txn.checkStatus(), "status of the transaction left open");
    }

    private static void commit(Run run, Part part) throws Exception {
        Options o = run.options;
        UUID id = UUID.fromString(o.txnId());
        part.put("txn", id.toString());
        try (EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config);
             TransactionalEventStreamWriter<String> writer = factory.createTransactionalEventWriter("txn-interop",
                     o.stream(), new UTF8StringSerializer(),
                     EventWriterConfig.builder().transactionTimeoutTime(TXN_TIMEOUT_MS).build())) {
            run.phase("txn-interop: committing transaction " + id + " of " + o.scope() + "/" + o.stream());
            Transaction<String> txn = writer.getTxn(id);
            part.put("status_before", txn.checkStatus().name());
            try {
                txn.commit();
                part.put("commit_failed", false);
            } catch (io.pravega.client.stream.TxnFailedException | RuntimeException e) {
                part.put("commit_failed", true);
                part.put("commit_error", Part.describe(e));
            }
            part.put("status_after", awaitFinal(run, txn).name());
        }
    }

    private static Transaction.Status awaitFinal(Run run, Transaction<String> txn) throws InterruptedException {
        Transaction.Status status = txn.checkStatus();
        while (status != Transaction.Status.COMMITTED && status != Transaction.Status.ABORTED
                && System.nanoTime() < run.deadlineNanos) {
            TimeUnit.MILLISECONDS.sleep(20);
            status = txn.checkStatus();
        }
        return status;
    }

    private static void read(Run run, Part part) throws Exception {
        Options o = run.options;
        String group = "txn-interop-" + UUID.randomUUID().toString().substring(0, 8);
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < o.events(); i++) {
            expected.add(event(o.writer(), "commit", i));
        }
        int read = 0;
        int duplicates = 0;
        int aborted = 0;
        int foreign = 0;
        int outOfOrder = 0;
        Set<String> seen = new HashSet<>();
        Map<String, Integer> lastPerKey = new HashMap<>();
        try (ReaderGroupManager groups = ReaderGroupManager.withScope(o.scope(), run.config);
             EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config)) {
            groups.createReaderGroup(group, ReaderGroupConfig.builder().stream(Stream.of(o.scope(), o.stream()))
                    .disableAutomaticCheckpoints().build());
            try (EventStreamReader<String> reader = factory.createReader("txn-interop-reader", group,
                    new UTF8StringSerializer(), ReaderConfig.builder().build())) {
                run.phase("txn-interop: reading " + o.scope() + "/" + o.stream());
                long quietSince = 0;
                while (System.nanoTime() < run.deadlineNanos) {
                    String e = reader.readNextEvent(500).getEvent();
                    if (e == null) {
                        if (seen.size() >= expected.size()) {
                            if (quietSince == 0) {
                                quietSince = System.nanoTime();
                            } else if (System.nanoTime() - quietSince > TimeUnit.MILLISECONDS.toNanos(QUIET_MS)) {
                                break;
                            }
                        }
                        continue;
                    }
                    quietSince = 0;
                    read++;
                    if (read % 50 == 0) {
                        // visible in the watchdog's report if the run times out
                        part.put("read_so_far", read);
                        part.put("distinct_so_far", seen.size());
                    }
                    if (e.startsWith(o.writer() + "-abort:")) {
                        aborted++;
                    } else if (!expected.contains(e)) {
                        foreign++;
                    } else if (!seen.add(e)) {
                        duplicates++;
                    } else {
                        List<String> fields = List.of(e.split(":"));
                        int i = Integer.parseInt(fields.get(2));
                        Integer last = lastPerKey.put(fields.get(1), i);
                        if (last != null && last > i) {
                            outOfOrder++;
                        }
                    }
                }
            } finally {
                groups.deleteReaderGroup(group);
            }
        }
        part.put("read", read);
        part.checkEqual(expected.size(), seen.size(), "distinct committed events read");
        part.check(aborted == 0, aborted + " events of the aborted transaction were read");
        part.check(foreign == 0, foreign + " events that neither transaction wrote");
        part.check(duplicates == 0, duplicates + " committed events read twice");
        part.check(outOfOrder == 0, outOfOrder + " committed events out of per-key order");
    }
}
