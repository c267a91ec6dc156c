package io.sluice.client;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

import io.sluice.segment.PendingEvent;
import io.sluice.stream.WriterConfig;

/**
 * Knows when every write issued before a flush is done, at the cost of one counter update per write. Writes are
 * counted in the current epoch; a flush closes the epoch (new writes go to the next) and waits until the closed
 * epoch and every earlier one still running have drained. Thread-safe, lock-free.
 */
final class WriteTracker {

    /**
     * The writes of one stretch between flushes. As the {@link PendingEvent.Settlement} of its events it gives back
     * what they were {@link PendingEvent#charge charged} ({@link #WriteTracker(IntConsumer)}) and counts them done.
     */
    final class Epoch implements PendingEvent.Settlement {
        private final AtomicLong outstanding = new AtomicLong();
        private final CompletableFuture<Void> drained = new CompletableFuture<>();
        private final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        private volatile boolean closed;

        @Override
        public void settled(PendingEvent event, Throwable failure) {
            release.accept(event.charged());
            done(failure);
        }

        @Override
        public void succeeded(int writes, long bytes) {
            release.accept((int) bytes);
            if (outstanding.addAndGet(-writes) == 0 && closed) {
                drain();
            }
        }

        /** One write of this epoch finished ({@code failure} null on success). */
        void done(Throwable failure) {
            if (failure != null) {
                firstFailure.compareAndSet(null, failure);
            }
            if (outstanding.decrementAndGet() == 0 && closed) {
                drain();
            }
        }

        private void close() {
            closed = true;
            if (outstanding.get() == 0) {
                drain();
            }
        }

        private void drain() {
            if (drained.complete(null)) {
                running.remove(this);
            }
        }
    }

    private final AtomicReference<Epoch> current = new AtomicReference<>(new Epoch());
    /** Closed epochs not drained yet. */
    private final ConcurrentLinkedQueue<Epoch> running = new ConcurrentLinkedQueue<>();
    private final IntConsumer release;

    /** A tracker whose epochs, as settlements, give nothing back. */
    WriteTracker() {
        this(bytes -> { });
    }

    /** @param release given what each event settled through an {@link Epoch} was charged */
    WriteTracker(IntConsumer release) {
        this.release = Objects.requireNonNull(release, "release");
    }

    /**
     * @return what a write holds of a writer's budget of {@code budget} bytes until it settles: its framed bytes and
     *     {@link WriterConfig#EVENT_OVERHEAD_BYTES} per event, at most the whole budget (a batch of many tiny events
     *     must still fit in an empty writer)
     */
    static int charge(PendingEvent event, long budget) {
        long charge = event.framedSize() + (long) event.count() * WriterConfig.EVENT_OVERHEAD_BYTES;
        return (int) Math.min(budget, charge);
    }

    /** @return the epoch a new write belongs to; call {@link Epoch#done} when it finishes */
    Epoch register() {
        Epoch e = current.get();
        e.outstanding.incrementAndGet();
        return e;
    }

    /**
     * Closes the current epoch.
     *
     * @return a future completing when every write registered so far has finished; exceptional with the first
     *     failure among them, if any
     */
    CompletableFuture<Void> flush() {
        Epoch closing = current.getAndSet(new Epoch());
        running.add(closing);
        closing.close();
        List<Epoch> waitFor = List.copyOf(running);
        CompletableFuture<?>[] all = waitFor.stream().map(e -> e.drained).toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(all).thenCompose(v -> {
            for (Epoch e : waitFor) {
                Throwable t = e.firstFailure.get();
                if (t != null) {
                    return CompletableFuture.failedFuture(t);
                }
            }
            Throwable t = closing.firstFailure.get();
            return t == null ? CompletableFuture.completedFuture(null) : CompletableFuture.failedFuture(t);
        });
    }
}
