package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.segment.PendingEvent;
import io.sluice.stream.WriterConfig;

/** WriteTracker's epochs as the settlements of pending writes: bytes given back, flushes released exactly then. */
@Timeout(10)
class WriteTrackerTest {
    private static final int O = WriterConfig.EVENT_OVERHEAD_BYTES;

    /** An event of {@code bytes} bytes, charged as a writer with a budget of 1 GiB charges it. */
    private static PendingEvent registered(WriteTracker tracker, int bytes) {
        PendingEvent e = PendingEvent.of("k", ByteBuffer.allocate(bytes));
        e.charge(WriteTracker.charge(e, 1L << 30));
        e.onSettled(tracker.register());
        return e;
    }

    @Test
    void aFlushWaitsForEveryEarlierWriteAndTheBytesComeBack() {
        AtomicLong released = new AtomicLong();
        WriteTracker tracker = new WriteTracker(released::addAndGet);
        PendingEvent a = registered(tracker, 10);
        PendingEvent b = registered(tracker, 20);
        CompletableFuture<Void> first = tracker.flush();
        PendingEvent c = registered(tracker, 30);
        CompletableFuture<Void> second = tracker.flush();

        PendingEvent.succeedAll(List.of(a));
        assertThat(first).isNotDone();
        assertThat(released).hasValue(18 + O);
        // one acknowledgement across the epochs: each epoch told once for its part
        PendingEvent.succeedAll(List.of(b, c));
        assertThat(first).isCompleted();
        assertThat(second).isCompleted();
        assertThat(released).hasValue(18 + 28 + 38 + 3 * O);
    }

    @Test
    void aWriteIsChargedItsBytesAndItsBookkeepingButNeverMoreThanTheWholeBudget() {
        PendingEvent one = PendingEvent.of("k", ByteBuffer.allocate(100));
        assertThat(WriteTracker.charge(one, 64L << 20)).isEqualTo(108 + O);
        // 100,000 events of 8 bytes: 1.6 MB framed, 20 MB with their bookkeeping, more than a 17 MiB budget
        List<ByteBuffer> tiny = java.util.Collections.nCopies(100_000, ByteBuffer.allocate(8));
        PendingEvent batch = new PendingEvent("k", tiny);
        assertThat(WriteTracker.charge(batch, 1L << 30)).isEqualTo(1_600_000 + 100_000 * O);
        assertThat(WriteTracker.charge(batch, 17L << 20)).isEqualTo(17 << 20);
    }

    @Test
    void aFailedWriteFailsTheFlushAndStillGivesItsBytesBack() {
        AtomicLong released = new AtomicLong();
        WriteTracker tracker = new WriteTracker(released::addAndGet);
        PendingEvent a = registered(tracker, 10);
        PendingEvent b = registered(tracker, 20);
        CompletableFuture<Void> flush = tracker.flush();
        IllegalStateException why = new IllegalStateException("the segment store refused it");
        b.future().completeExceptionally(why);
        PendingEvent.succeedAll(List.of(a, b));
        assertThat(released).hasValue(18 + 28 + 2 * O);
        Assertions.assertThatThrownBy(flush::get).isInstanceOf(ExecutionException.class).hasCause(why);
    }
}
