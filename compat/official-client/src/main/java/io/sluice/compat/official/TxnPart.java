package io.sluice.compat.official;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.pravega.client.EventStreamClientFactory;
import io.pravega.client.admin.ReaderGroupManager;
import io.pravega.client.admin.StreamManager;
import io.pravega.client.stream.EventRead;
import io.pravega.client.stream.EventStreamReader;
import io.pravega.client.stream.EventWriterConfig;
import io.pravega.client.stream.ReaderConfig;
import io.pravega.client.stream.ReaderGroupConfig;
import io.pravega.client.stream.Stream;
import io.pravega.client.stream.Transaction;
import io.pravega.client.stream.TransactionalEventStreamWriter;
import io.pravega.client.stream.impl.UTF8StringSerializer;

/**
 * Part {@code txn} of {@code verify}: on a stream with K segments, two transactions of {@value #EVENTS} events each
 * over {@value #KEYS} keys; nothing is readable before the commit; one is aborted, the other committed; both reach
 * their final state; exactly the committed events become readable, in per-key order, and no aborted event ever
 * appears.
 */
final class TxnPart {
    static final int EVENTS = 100;
    static final int KEYS = 8;
    private static final long TXN_TIMEOUT_MS = 60_000;
    private static final long QUIET_MS = 1500;

    private TxnPart() {
    }

    static void run(Run run, Part part, StreamManager streamManager) throws Exception {
        Options o = run.options;
        String stream = run.name("-txn");
        String group = run.name("-txn-rg");
        part.put("stream", o.scope() + "/" + stream);
        part.put("segments", o.segments());
        part.put("events_per_txn", EVENTS);
        run.phase("txn: creating stream " + stream);
        run.createStream(streamManager, stream, o.segments());

        try (ReaderGroupManager groups = ReaderGroupManager.withScope(o.scope(), run.config);
             EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config)) {
            groups.createReaderGroup(group, ReaderGroupConfig.builder()
                    .stream(Stream.of(o.scope(), stream)).disableAutomaticCheckpoints().build());
            try (EventStreamReader<String> reader = factory.createReader("txn-reader", group,
                         new UTF8StringSerializer(), ReaderConfig.builder().build());
                 TransactionalEventStreamWriter<String> writer = factory.createTransactionalEventWriter("txn-writer",
                         stream, new UTF8StringSerializer(),
                         EventWriterConfig.builder().transactionTimeoutTime(TXN_TIMEOUT_MS).build())) {
                run.phase("txn: writing two transactions");
                long t0 = System.nanoTime();
                Transaction<String> toCommit = writer.beginTxn();
                Transaction<String> toAbort = writer.beginTxn();
                part.put("begin_ms", (System.nanoTime() - t0) / 2_000_000);
                part.check(!toCommit.getTxnId().equals(toAbort.getTxnId()), "two transactions got the same id");
                for (int i = 0; i < EVENTS; i++) {
                    toCommit.writeEvent("key-" + (i % KEYS), "commit " + i);
                    toAbort.writeEvent("key-" + (i % KEYS), "abort " + i);
                }
                toCommit.flush();
                toAbort.flush();
                part.checkEqual(Transaction.Status.OPEN, toCommit.checkStatus(), "status of the first txn");
                part.checkEqual(Transaction.Status.OPEN, toAbort.checkStatus(), "status of the second txn");

                EventRead<String> early = reader.readNextEvent(1000);
                part.check(early.getEvent() == null,
                        "an event was readable before any commit: '" + early.getEvent() + "'");

                run.phase("txn: aborting one, committing the other");
                long t1 = System.nanoTime();
                toAbort.abort();
                toCommit.commit();
                List<String> commitStatuses = new ArrayList<>();
                List<String> abortStatuses = new ArrayList<>();
                Transaction.Status committed = awaitFinal(run, toCommit, commitStatuses);
                Transaction.Status aborted = awaitFinal(run, toAbort, abortStatuses);
                part.put("statuses_after_commit", commitStatuses);
                part.put("statuses_after_abort", abortStatuses);
                part.put("commit_and_abort_ms", (System.nanoTime() - t1) / 1_000_000);
                part.checkEqual(Transaction.Status.COMMITTED, committed, "final status of the committed txn");
                part.checkEqual(Transaction.Status.ABORTED, aborted, "final status of the aborted txn");
                part.checkEqual(Transaction.Status.COMMITTED, writer.getTxn(toCommit.getTxnId()).checkStatus(),
                        "status of the committed txn looked up by id");

                run.phase("txn: reading the committed events");
                long t2 = System.nanoTime();
                List<String> got = new ArrayList<>();
                while (got.size() < EVENTS && System.nanoTime() < run.deadlineNanos) {
                    String e = reader.readNextEvent(500).getEvent();
                    if (e != null) {
                        got.add(e);
                    }
                }
                part.put("read_ms", (System.nanoTime() - t2) / 1_000_000);
                int extra = 0;
                for (String e = reader.readNextEvent(QUIET_MS).getEvent(); e != null && extra < EVENTS;
                        e = reader.readNextEvent(QUIET_MS).getEvent()) {
                    got.add(e);
                    extra++;
                }
                checkEvents(part, got);
                part.check(extra == 0, extra + " events beyond the committed ones");
            } finally {
                groups.deleteReaderGroup(group);
            }
        }
    }

    private static void checkEvents(Part part, List<String> got) {
        int aborted = 0;
        int foreign = 0;
        int outOfOrder = 0;
        int[] lastPerKey = new int[KEYS];
        java.util.Arrays.fill(lastPerKey, -1);
        Set<Integer> seen = new HashSet<>();
        int duplicates = 0;
        for (String e : got) {
            if (e.startsWith("abort ")) {
                aborted++;
                continue;
            }
            if (!e.startsWith("commit ")) {
                foreign++;
                continue;
            }
            int i;
            try {
                i = Integer.parseInt(e.substring("commit ".length()));
            } catch (NumberFormatException ex) {
                foreign++;
                continue;
            }
            if (!seen.add(i)) {
                duplicates++;
                continue;
            }
            int key = i % KEYS;
            if (i < lastPerKey[key]) {
                outOfOrder++;
            }
            lastPerKey[key] = i;
        }
        part.put("read", got.size());
        part.put("aborted_seen", aborted);
        part.checkEqual(EVENTS, seen.size(), "distinct committed events read");
        part.check(aborted == 0, aborted + " events of the aborted transaction were read");
        part.check(foreign == 0, foreign + " events that neither transaction wrote");
        part.check(duplicates == 0, duplicates + " committed events read twice");
        part.check(outOfOrder == 0, outOfOrder + " committed events out of per-key order");
    }

    /**
     * Polls the transaction's status until it is COMMITTED or ABORTED (or the run's deadline); returns it. Adds
     * every status seen (once per change) to {@code seen}.
     */
    private static Transaction.Status awaitFinal(Run run, Transaction<String> txn, List<String> seen)
            throws InterruptedException {
        Transaction.Status status = txn.checkStatus();
        seen.add(status.name());
        while (status != Transaction.Status.COMMITTED && status != Transaction.Status.ABORTED
                && System.nanoTime() < run.deadlineNanos) {
            TimeUnit.MILLISECONDS.sleep(20);
            status = txn.checkStatus();
            if (!seen.get(seen.size() - 1).equals(status.name())) {
                seen.add(status.name());
            }
        }
        return status;
    }
}
