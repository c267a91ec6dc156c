package io.sluice.server;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Watches what the server logs while a test runs: slf4j-simple writes to {@code System.err} (looked up at every
 * write), so this tees {@code System.err} and keeps every ERROR record (its line and the stack trace after it)
 * and counts WARN lines. Records name the peer ({@code /127.0.0.1:PORT}) in most server messages and thread names,
 * which lets a fuzz test attribute an error to the connection that caused it. {@link #close()} restores
 * {@code System.err}. Thread-safe.
 */
final class ServerLogWatch implements AutoCloseable {
    private static final Pattern PEER = Pattern.compile("/127\\.0\\.0\\.1:(\\d+)");
    private static final int MAX_RECORD_CHARS = 8_000;
    /** ERROR records kept; later ones are only counted (a long run hitting one defect logs it thousands of times). */
    private static final int MAX_RECORDS = 2_000;

    /** One ERROR record: its first line and what followed it (the stack trace). */
    record ErrorRecord(String text) {
        /** @return the local port of the peer the record names, if it names one */
        OptionalInt peerPort() {
            Matcher m = PEER.matcher(text);
            return m.find() ? OptionalInt.of(Integer.parseInt(m.group(1))) : OptionalInt.empty();
        }

        /** @return the first {@code lines} lines */
        String head(int lines) {
            String[] all = text.split("\n");
            return String.join("\n", java.util.Arrays.copyOf(all, Math.min(lines, all.length)));
        }
    }

    private final PrintStream original;
    private final ReentrantLock lock = new ReentrantLock();
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private final List<ErrorRecord> errors = new ArrayList<>();
    private final AtomicLong warnings = new AtomicLong();
    private long errorCount;
    private StringBuilder current;

    private ServerLogWatch() {
        this.original = System.err;
        System.setErr(new PrintStream(new Tee(), true, StandardCharsets.UTF_8));
    }

    /** @return a watch on {@code System.err}, installed */
    static ServerLogWatch install() {
        return new ServerLogWatch();
    }

    /** @return the number of ERROR records so far (kept or not) */
    long errorCount() {
        lock.lock();
        try {
            finishRecord();
            return errorCount;
        } finally {
            lock.unlock();
        }
    }

    /** @return the ERROR records so far (the first {@value #MAX_RECORDS}) */
    List<ErrorRecord> errors() {
        lock.lock();
        try {
            finishRecord();
            return List.copyOf(errors);
        } finally {
            lock.unlock();
        }
    }

    /** @return the number of WARN lines so far */
    long warnings() {
        return warnings.get();
    }

    @Override
    public void close() {
        System.err.flush();
        System.setErr(original);
    }

    private void onLine(String text) {
        if (text.contains(" ERROR ")) {
            finishRecord();
            current = new StringBuilder(text);
        } else if (current != null && (text.startsWith("\t") || text.startsWith("Caused by") || text.startsWith(
                "Suppressed") || text.matches("^[\\w.$]+(Exception|Error)(: .*)?$") || text.startsWith("    "))) {
            if (current.length() < MAX_RECORD_CHARS) {
                current.append('\n').append(text);
            }
        } else {
            finishRecord();
            if (text.contains(" WARN ")) {
                warnings.incrementAndGet();
            }
        }
    }

    private void finishRecord() {
        if (current != null) {
            errorCount++;
            if (errors.size() < MAX_RECORDS) {
                errors.add(new ErrorRecord(current.toString()));
            }
            current = null;
        }
    }

    /** Passes every byte on to the original stream and splits a copy into lines. */
    private final class Tee extends OutputStream {
        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            original.write(b, off, len);
            lock.lock();
            try {
                for (int i = off; i < off + len; i++) {
                    if (b[i] == '\n') {
                        onLine(line.toString(StandardCharsets.UTF_8).stripTrailing());
                        line.reset();
                    } else if (line.size() < MAX_RECORD_CHARS) {
                        line.write(b[i]);
                    }
                }
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void flush() {
            original.flush();
        }
    }
}
