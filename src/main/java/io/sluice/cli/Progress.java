package io.sluice.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import io.sluice.common.Threads;

/**
 * The progress line of a long {@code bench} or {@code demo} run on standard error: events written and read and the
 * rate of the last second, rewritten in place ({@code \r}) once a second, from the first second on (a run that ends
 * sooner prints nothing), and wiped when the run ends. Only for a terminal and never with {@code --json}
 * ({@link #forTerminal}); {@link #OFF} counts and prints nothing. The counters are the workload's; thread-safe.
 */
final class Progress implements AutoCloseable {
    /** Counts, prints nothing. */
    static final Progress OFF = new Progress(null, 1000);

    /** Events written so far (the writer sets it now and then, not per event: it costs the benchmark nothing). */
    final AtomicLong written = new AtomicLong();
    /** Where the count of events read comes from (the workload's verifier, once reading starts). */
    volatile LongSupplier read = () -> 0;
    private final PrintWriter err;
    private final long periodMillis;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile boolean printed;
    private Thread printer;

    /**
     * @param err where the line goes, or null for none
     * @param periodMillis how often it is rewritten (and when it first appears)
     */
    Progress(PrintWriter err, long periodMillis) {
        this.err = err;
        this.periodMillis = periodMillis;
    }

    /**
     * @param err standard error
     * @param json whether the command prints JSON (then no progress line)
     * @return a progress line on {@code err} if standard error is a terminal and {@code json} is off, else {@link #OFF}
     */
    static Progress forTerminal(PrintWriter err, boolean json) {
        return !json && ServerCommand.interactive(System.console()) ? new Progress(err, 1000) : OFF;
    }

    /** Starts the line's thread; returns this. */
    Progress start() {
        if (err != null && printer == null) {
            printer = Threads.startVirtual("sluice-progress", this::printLoop);
        }
        return this;
    }

    private void printLoop() {
        long lastWritten = 0;
        long lastRead = 0;
        try {
            while (!done.await(periodMillis, TimeUnit.MILLISECONDS)) {
                long w = written.get();
                long r = read.getAsLong();
                double seconds = periodMillis / 1000.0;
                String line = String.format(Locale.ROOT, "\r%,d written (%,.0f/s), %,d read (%,.0f/s)   ", w,
                        (w - lastWritten) / seconds, r, (r - lastRead) / seconds);
                lastWritten = w;
                lastRead = r;
                err.print(line);
                err.flush();
                printed = true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the line and wipes it, so the result starts on a clean line. */
    @Override
    public void close() {
        done.countDown();
        if (printer != null) {
            try {
                printer.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (printed) {
                err.print("\r" + " ".repeat(70) + "\r");
                err.flush();
            }
        }
    }
}
