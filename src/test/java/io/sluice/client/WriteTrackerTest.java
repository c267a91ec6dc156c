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

/** WriteTracker's epochs as the settlements of pending writes: bytes given back, flushes released exactly then. */
@Timeout(10)
class WriteTrackerTest {

    private static PendingEvent registered(WriteTracker tracker, int bytes) {
        PendingEvent e = PendingEvent.of("k", ByteBuffer.allocate(bytes));
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
        assertThat(released).hasValue(18);
        // one acknowledgement across the epochs: each epoch told once for its part
        PendingEvent.succeedAll(List.of(b, c));
        assertThat(first).isCompleted();
        assertThat(second).isCompleted();
        assertThat(released).hasValue(18 + 28 + 38);
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
        assertThat(released).hasValue(18 + 28);
        Assertions.assertThatThrownBy(flush::get).isInstanceOf(ExecutionException.class).hasCause(why);
    }
}
