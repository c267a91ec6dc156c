package io.sluice.reliability;

import java.time.Duration;
import java.util.List;

/**
 * What {@link MixedWorkload#verify()} found: the figures of the run and the problems, each a sentence. A run is good
 * when {@link #problems()} is empty; write failures and reader errors are figures, not problems (a server that is
 * down for a while may fail a write for good), and a test that expects none asserts them itself.
 *
 * @param seed the workload's seed
 * @param elapsed from {@link MixedWorkload#start()} to the end of reading
 * @param eventsWritten events the writers wrote (large ones included, markers and transactions not)
 * @param largeEvents large events among them
 * @param eventsAcked events acknowledged (markers included)
 * @param writeFailures events whose write failed
 * @param eventsRead events the readers read, all kinds
 * @param bytesRead bytes of those events
 * @param lost acknowledged events not read
 * @param duplicates events read more than once
 * @param outOfOrder events read before an earlier event of their key
 * @param corrupt events whose bytes were not what was written
 * @param txnsCommitted transactions committed
 * @param txnsAborted transactions aborted
 * @param txnEventsRead events of committed transactions read
 * @param tableUpdates conditional table updates that succeeded
 * @param tableConflicts conditional table updates refused for a stale version
 * @param tableAmbiguous updates whose reply was lost or refused that the table shows were applied once
 * @param byteStreamBytes bytes appended to the byte stream and read back
 * @param flushes {@code flush()}, commit and abort calls made, each under a deadline
 * @param longestFlush the longest of them
 * @param readerErrors exceptions readers saw (and read on after)
 * @param operationErrors exceptions of table, transaction and byte stream calls (retried)
 * @param firstWriteFailure the first failed write and its exception's chain of messages, or null if none failed
 * @param problems what is wrong: lost, duplicated or disordered events, transactions half there, tables off,
 *     byte stream content wrong, a call that hung
 */
public record WorkloadReport(long seed, Duration elapsed, long eventsWritten, long largeEvents, long eventsAcked,
                             long writeFailures, long eventsRead, long bytesRead, long lost, long duplicates,
                             long outOfOrder, long corrupt, int txnsCommitted, int txnsAborted, long txnEventsRead,
                             long tableUpdates, long tableConflicts, long tableAmbiguous, long byteStreamBytes,
                             long flushes, Duration longestFlush, long readerErrors, long operationErrors,
                             String firstWriteFailure, List<String> problems) {
    /** Copies the list. */
    public WorkloadReport {
        problems = List.copyOf(problems);
    }

    /** @return whether no problem was found */
    public boolean ok() {
        return problems.isEmpty();
    }

    /** @return the figures on a few lines, and the problems, with the seed */
    @Override
    public String toString() {
        return "seed " + seed + ", " + elapsed.toMillis() + " ms\n"
                + "  events: " + eventsWritten + " written (" + largeEvents + " large), " + eventsAcked
                + " acknowledged, " + writeFailures + " failed; " + eventsRead + " read (" + bytesRead + " bytes); "
                + lost + " lost, " + duplicates + " duplicated, " + outOfOrder + " out of order, " + corrupt
                + " corrupt\n"
                + "  transactions: " + txnsCommitted + " committed (" + txnEventsRead + " events read), "
                + txnsAborted + " aborted\n"
                + "  table: " + tableUpdates + " conditional updates, " + tableConflicts + " conflicts, "
                + tableAmbiguous + " ambiguous replies resolved\n"
                + "  byte stream: " + byteStreamBytes + " bytes\n"
                + "  flushes/commits: " + flushes + ", the longest " + longestFlush.toMillis() + " ms; "
                + readerErrors + " reader errors, " + operationErrors + " operation errors\n"
                + (firstWriteFailure == null ? "" : "  the first write that failed: " + firstWriteFailure + "\n")
                + "  problems: " + (problems.isEmpty() ? "none" : String.join("\n    ", problems));
    }
}
