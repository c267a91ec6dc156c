package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.function.IntUnaryOperator;

import io.sluice.stream.ScopedStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The workload's verifier on crafted input, to show that it catches every kind of wrong read (duplicate, missing,
 * out of order, corrupt), and the report's JSON layout (the official-client driver's keys).
 */
@Timeout(30)
class WorkloadTest {
    private static final int SIZE = 40;

    /** Event number {@code i} as the write phase makes it. */
    private static ByteBuffer event(int i) {
        return Workload.event(i % Workload.KEYS, i / Workload.KEYS, SIZE);
    }

    /** Feeds events {@code 0 .. events - 1} in order through one reader. */
    private static Workload.Verifier readAll(int events) {
        return read(events, i -> i);
    }

    /**
     * Feeds event number {@code order(i)} for every {@code i} in {@code 0 .. events - 1} through one reader,
     * skipping negative numbers.
     */
    private static Workload.Verifier read(int events, IntUnaryOperator order) {
        Workload.Verifier verifier = new Workload.Verifier(events, SIZE);
        Workload.Verifier.ReaderCheck reader = verifier.reader("reader-0");
        for (int i = 0; i < events; i++) {
            int n = order.applyAsInt(i);
            if (n >= 0) {
                reader.accept(event(n));
            }
        }
        return verifier;
    }

    @Test
    void everyEventOnceIntactAndInOrderIsOk() {
        Workload.Verdict verdict = readAll(1000).verdict();
        assertThat(verdict.ok()).isTrue();
        assertThat(verdict.reason()).isNull();
        assertThat(verdict.read()).isEqualTo(1000);
        assertThat(verdict.missing()).isZero();
    }

    @Test
    void keysMayMoveBetweenReaders() {
        Workload.Verifier verifier = new Workload.Verifier(3 * Workload.KEYS, SIZE);
        Workload.Verifier.ReaderCheck a = verifier.reader("reader-a");
        Workload.Verifier.ReaderCheck b = verifier.reader("reader-b");
        // key 0's events #0, #1, #2 (numbers 0, 64, 128): a gets #0 and #2, b gets #1 -- each reader in order
        for (int i = 0; i < 3 * Workload.KEYS; i++) {
            (i == Workload.KEYS ? b : a).accept(event(i));
        }
        assertThat(verifier.verdict().ok()).isTrue();
    }

    @Test
    void aDuplicateIsFound() {
        Workload.Verifier verifier = readAll(200);
        verifier.reader("reader-1").accept(event(70)); // key 6, sequence 1
        Workload.Verdict verdict = verifier.verdict();
        assertThat(verdict.ok()).isFalse();
        assertThat(verdict.duplicates()).isEqualTo(1);
        assertThat(verdict.missing()).isZero();
        assertThat(verdict.read()).isEqualTo(201);
        assertThat(verdict.reason()).isEqualTo("1 duplicate (reader-1 got key-6 #1 again)");
    }

    @Test
    void aMissingEventIsFound() {
        Workload.Verifier verifier = read(200, i -> i == 131 ? -1 : i);
        verifier.fail("no event arrived for 30s");
        Workload.Verdict verdict = verifier.verdict();
        assertThat(verdict.ok()).isFalse();
        assertThat(verdict.missing()).isEqualTo(1);
        assertThat(verdict.reason()).isEqualTo("no event arrived for 30s, 1 missing");
    }

    @Test
    void aMissingEventIsFoundEvenWhenTheCountIsRight() {
        // one event twice and another never: the count alone looks right
        Workload.Verifier verifier = read(100, i -> i == 99 ? 98 : i);
        Workload.Verdict verdict = verifier.verdict();
        assertThat(verdict.read()).isEqualTo(100);
        assertThat(verdict.ok()).isFalse();
        assertThat(verdict.reason()).isEqualTo("1 missing, 1 duplicate (reader-0 got key-34 #1 again)");
    }

    @Test
    void anEventOutOfOrderIsFound() {
        // key 5: #2 (number 133) before #1 (number 69)
        Workload.Verifier verifier = read(4 * Workload.KEYS, i -> i == 69 ? 133 : i == 133 ? 69 : i);
        Workload.Verdict verdict = verifier.verdict();
        assertThat(verdict.ok()).isFalse();
        assertThat(verdict.outOfOrder()).isEqualTo(1);
        assertThat(verdict.duplicates()).isZero();
        assertThat(verdict.missing()).isZero();
        assertThat(verdict.reason()).isEqualTo("1 out of order (reader-0 got key-5 #1 after #2)");
    }

    @Test
    void corruptContentIsFound() {
        Workload.Verifier verifier = new Workload.Verifier(10, SIZE);
        Workload.Verifier.ReaderCheck reader = verifier.reader("reader-0");
        for (int i = 0; i < 10; i++) {
            ByteBuffer event = event(i);
            if (i == 3) {
                event.put(SIZE - 1, (byte) (event.get(SIZE - 1) + 1)); // the last filler byte
            }
            reader.accept(event);
        }
        Workload.Verdict verdict = verifier.verdict();
        assertThat(verdict.ok()).isFalse();
        assertThat(verdict.corrupt()).isEqualTo(1);
        assertThat(verdict.missing()).as("the intact event 3 never came").isEqualTo(1);
        assertThat(verdict.reason()).isEqualTo("1 missing, 1 corrupt (reader-0 got key-3 #0 with wrong content "
                + "(40 bytes))");
    }

    @Test
    void theFillerIsTheDocumentedFunctionAcrossChunksAndAnyFlippedByteIsCaught() {
        int size = 3 * 64 * 1024 + 77;                          // several filler chunks and a partial one
        int key = 5;
        int seq = 1234;
        ByteBuffer event = Workload.event(key, seq, size);
        assertThat(event.getInt(0)).isEqualTo(key);
        assertThat(event.getInt(4)).isEqualTo(seq);
        for (int j = Workload.HEADER_BYTES; j < size; j++) {
            assertThat(event.get(j)).as("byte %d", j).isEqualTo((byte) (key * 7 + seq * 13 + j));
        }
        assertThat(Workload.fillerOk(event, key, seq, size)).isTrue();
        ByteBuffer direct = ByteBuffer.allocateDirect(size + 3).position(3);
        direct.put(event.duplicate()).position(3);
        assertThat(Workload.fillerOk(direct, key, seq, size)).as("a direct buffer at an offset").isTrue();
        for (int flip : new int[] {Workload.HEADER_BYTES, 64 * 1024 + 9, size - 1}) {
            ByteBuffer bad = Workload.event(key, seq, size);
            bad.put(flip, (byte) ~bad.get(flip));
            assertThat(Workload.fillerOk(bad, key, seq, size)).as("byte %d flipped", flip).isFalse();
        }
        assertThat(Workload.fillerOk(event, key, seq + 1, size)).as("another sequence number's filler").isFalse();
    }

    @Test
    void eventsOfTheWrongSizeOrNeverWrittenAreCorrupt() {
        Workload.Verifier verifier = new Workload.Verifier(10, SIZE);
        Workload.Verifier.ReaderCheck reader = verifier.reader("reader-0");
        reader.accept(Workload.event(1, 0, SIZE + 1));          // right header and filler, too long
        reader.accept(ByteBuffer.allocate(5));                   // no header
        reader.accept(Workload.event(64, 0, SIZE));              // no key 64
        reader.accept(Workload.event(2, 1, SIZE));               // number 66 > 10 events
        reader.accept(ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}).position(1)); // looks at its window
        Workload.Verdict verdict = verifier.verdict();
        assertThat(verdict.corrupt()).isEqualTo(5);
        assertThat(verdict.missing()).isEqualTo(10);
        assertThat(verdict.examples()).containsExactly("reader-0 got key-1 #0 with wrong content (41 bytes)",
                "reader-0 got an event of 5 bytes",
                "reader-0 got an event that was never written (key index 64, sequence number 0)");
    }

    @Test
    void settingsNameTheOptionThatIsOutOfRange() {
        assertThatThrownBy(() -> new Workload.Settings(10, 7, 1, 1, 0, Duration.ofSeconds(1)))
                .hasMessage("--size must be at least 8 bytes (every event starts with its key index and sequence "
                        + "number), but is 7");
        assertThatThrownBy(() -> new Workload.Settings(10, 8, 0, 1, 0, Duration.ofSeconds(1)))
                .hasMessage("--segments must be between 1 and 1000, but is 0");
        assertThatThrownBy(() -> new Workload.Settings(10, 8, 1, 1, -1, Duration.ofSeconds(1)))
                .hasMessageStartingWith("--latency-samples must be between 0 and");
        assertThatThrownBy(() -> new Workload.Settings(10, 8, 1, 1, 0, Duration.ZERO))
                .hasMessage("--timeout must be positive: PT0S");
    }

    @Test
    void onVirtualThreadRunsTheTaskOnOneAndPassesOnWhatItThrows() {
        java.util.concurrent.atomic.AtomicBoolean virtual = new java.util.concurrent.atomic.AtomicBoolean();
        Workload.onVirtualThread(() -> virtual.set(Thread.currentThread().isVirtual()));
        assertThat(virtual).as("the task ran on a virtual thread").isTrue();

        assertThatThrownBy(() -> Workload.onVirtualThread(() -> {
            throw new IllegalStateException("the writer is closed");
        })).isInstanceOf(IllegalStateException.class).hasMessage("the writer is closed");
    }

    @Test
    void theReportHasTheOfficialDriversLayout() {
        Workload.Settings settings = new Workload.Settings(100, 100, 4, 2, 4, Duration.ofSeconds(30));
        Workload.Verdict verdict = readAll(100).verdict();
        Workload.Report report = new Workload.Report(ScopedStream.of("sc", "st"), settings, 500_000_000L,
                250_000_000L, verdict, new long[] {100, 200, 300, 4000}, new Workload.Cleanup(null, 3_000_000),
                1_234_000_000L);
        Map<String, Object> json = report.json(Map.of("mode", "bench"));
        assertThat(json.keySet()).containsExactly("ok", "mode", "scope", "stream", "events", "size", "segments",
                "readers", "keys", "write", "read", "latency", "verify", "cleanup", "total_ms");
        assertThat(JsonWriter.write(json)).isEqualTo("{\"ok\":true,\"mode\":\"bench\",\"scope\":\"sc\","
                + "\"stream\":\"sc/st\",\"events\":100,\"size\":100,\"segments\":4,\"readers\":2,\"keys\":64,"
                + "\"write\":{\"events_per_s\":200,\"mb_per_s\":0.02,\"seconds\":0.5,\"failed\":0},"
                + "\"read\":{\"events_per_s\":400,\"mb_per_s\":0.04,\"seconds\":0.25},"
                + "\"latency\":{\"p50_us\":200,\"p99_us\":4000,\"p999_us\":4000,\"max_us\":4000,\"mean_us\":1150.0,"
                + "\"samples\":4,\"thread\":\"platform\"},"
                + "\"verify\":{\"ok\":true,\"read\":100,\"duplicates\":0,\"out_of_order\":0,\"missing\":0,"
                + "\"failed_writes\":0,\"corrupt\":0},"
                + "\"cleanup\":{\"ok\":true,\"ms\":3},\"total_ms\":1234}");
        assertThat(report.lines()).containsExactly(
                "stream    sc/st: 4 segments, 2 readers; 100 events of 100 bytes over 64 routing keys",
                "write     100 events in 0.50 s: 200 events/s, 0.0 MB/s",
                "read      100 events in 0.25 s: 400 events/s, 0.0 MB/s",
                "latency   4 awaited writes: p50 0.20 ms, p99 4.00 ms",
                "verify    ok: every event read exactly once, intact, in order per key");
    }

    @Test
    void aFailedReportSaysWhy() {
        Workload.Settings settings = new Workload.Settings(100, 40, 1, 1, 0, Duration.ofSeconds(30));
        Workload.Verdict nothingRead = new Workload.Verifier(100, SIZE).verdict();
        Workload.Report report = new Workload.Report(ScopedStream.of("sc", "st"), settings, 1, 1, nothingRead,
                new long[0], new Workload.Cleanup("cannot delete", 1), 1);
        assertThat(report.ok()).isFalse();
        assertThat(report.lines()).contains("verify    FAILED: 100 missing", "cleanup   incomplete: cannot delete");
        assertThat(JsonWriter.write(report.json(Map.of()))).startsWith("{\"ok\":false,")
                .contains("\"verify\":{\"ok\":false,\"read\":0,", "\"error\":\"100 missing\"}",
                        "\"cleanup\":{\"ok\":false,\"ms\":0,\"error\":\"cannot delete\"}");
    }
}
