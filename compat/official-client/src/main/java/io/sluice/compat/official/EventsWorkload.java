package io.sluice.compat.official;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import io.pravega.client.ClientConfig;
import io.pravega.client.EventStreamClientFactory;
import io.pravega.client.admin.ReaderGroupManager;
import io.pravega.client.stream.EventRead;
import io.pravega.client.stream.EventStreamReader;
import io.pravega.client.stream.EventStreamWriter;
import io.pravega.client.stream.EventWriterConfig;
import io.pravega.client.stream.ReaderConfig;
import io.pravega.client.stream.ReaderGroupConfig;
import io.pravega.client.stream.Stream;

/**
 * The event workload shared by {@code verify} (part {@code events}) and {@code bench}: one writer writes
 * {@link Payload} events over {@link Payload#KEYS} routing keys and flushes; a reader group of R readers reads them
 * back and checks count, per-key order, duplicates and (optionally) content.
 *
 * <p>Per-key order across readers: a segment (hence a key) is owned by one reader at a time and handed over at the
 * reader's position, so the group as a whole must return each key's sequence numbers exactly as 0, 1, 2, ...;
 * every reader checks that against one shared array of "last sequence per key".
 */
final class EventsWorkload {
    /** How long one {@code readNextEvent} waits for an event, in milliseconds. */
    static final long READ_POLL_MS = 500;

    private EventsWorkload() {
    }

    /**
     * What a write phase did. {@code nanos} runs from the first {@code writeEvent} to the end of {@code flush};
     * {@code totalNanos} includes creating and closing the writer (with {@link #writeWith}: waiting for the futures).
     */
    record WriteResult(long events, long nanos, long failed, String firstError, long totalNanos) {
        double eventsPerSecond() {
            return nanos == 0 ? 0 : events * 1e9 / nanos;
        }
    }

    /**
     * What a read phase saw. {@code nanos} runs from the readers' first {@code readNextEvent} to the return of the
     * last expected event; {@code setupNanos} is the creation of the reader group and its readers before that;
     * {@code totalNanos} the whole phase, including the wait for extra events, closing the readers and deleting
     * the group.
     */
    record ReadResult(long events, long nanos, long duplicates, long gaps, long corrupt, long missing, long extra,
                      boolean timedOut, String firstError, long setupNanos, long totalNanos) {
        double eventsPerSecond() {
            return nanos == 0 ? 0 : events * 1e9 / nanos;
        }

        boolean ok(long expected) {
            return events == expected && duplicates == 0 && gaps == 0 && corrupt == 0 && missing == 0 && extra == 0
                    && !timedOut && firstError == null;
        }
    }

    /**
     * Writes {@code events} events of {@code size} bytes through one new writer, then flushes and waits for every
     * write's future. Blocks until then or until {@code deadlineNanos} (then the unfinished writes count as failed).
     */
    static WriteResult write(EventStreamClientFactory factory, String stream, int events, int size,
                             long deadlineNanos) {
        long t0 = System.nanoTime();
        WriteResult w;
        try (EventStreamWriter<ByteBuffer> writer =
                     factory.createEventWriter(stream, Payload.SERIALIZER, EventWriterConfig.builder().build())) {
            w = writeWith(writer, 0, events, size, deadlineNanos);
        }
        return new WriteResult(w.events(), w.nanos(), w.failed(), w.firstError(), System.nanoTime() - t0);
    }

    /** As {@link #write} with a writer the caller owns; event numbers {@code first .. first + events - 1}. */
    @SuppressWarnings("unchecked")
    static WriteResult writeWith(EventStreamWriter<ByteBuffer> writer, long first, int events, int size,
                                 long deadlineNanos) {
        CompletableFuture<Void>[] futures = new CompletableFuture[events];
        long t0 = System.nanoTime();
        for (int i = 0; i < events; i++) {
            long n = first + i;
            int key = Payload.keyOf(n);
            futures[i] = writer.writeEvent(Payload.routingKey(key), Payload.encode(key, Payload.seqOf(n), size));
        }
        writer.flush();
        long t1 = System.nanoTime();
        long failed = 0;
        String firstError = null;
        for (CompletableFuture<Void> f : futures) {
            try {
                f.get(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException e) {
                failed++;
                if (firstError == null) {
                    firstError = Part.describe(e instanceof ExecutionException ? e.getCause() : e);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for writes", e);
            }
        }
        return new WriteResult(events, t1 - t0, failed, firstError, System.nanoTime() - t0);
    }

    /**
     * Creates reader group {@code group} on {@code scope/stream} (from its head, no automatic checkpoints), reads
     * {@code expected} events with {@code readers} readers in parallel, checks them, closes the readers and deletes
     * the group. With {@code extraWaitMs > 0} every reader then waits that long for one more event, which must not
     * come. Blocks until done or {@code deadlineNanos}.
     */
    static ReadResult read(ClientConfig config, String scope, String stream, String group, int readers,
                           long expected, int size, boolean checkContent, long extraWaitMs, long deadlineNanos)
            throws InterruptedException {
        long t0 = System.nanoTime();
        ReadResult result = null;
        long t1 = 0;
        try (ReaderGroupManager groups = ReaderGroupManager.withScope(scope, config);
             EventStreamClientFactory factory = EventStreamClientFactory.withScope(scope, config)) {
            groups.createReaderGroup(group, ReaderGroupConfig.builder()
                    .stream(Stream.of(scope, stream))
                    .disableAutomaticCheckpoints()
                    .build());
            try {
                List<EventStreamReader<ByteBuffer>> list = new ArrayList<>();
                try {
                    for (int r = 0; r < readers; r++) {
                        list.add(factory.createReader(group + "-reader-" + r, group, Payload.SERIALIZER,
                                ReaderConfig.builder().build()));
                    }
                    t1 = System.nanoTime();
                    result = readWith(list, expected, size, checkContent, extraWaitMs, deadlineNanos);
                } finally {
                    for (EventStreamReader<ByteBuffer> reader : list) {
                        reader.close();
                    }
                }
            } finally {
                groups.deleteReaderGroup(group);
            }
        }
        return new ReadResult(result.events(), result.nanos(), result.duplicates(), result.gaps(), result.corrupt(),
                result.missing(), result.extra(), result.timedOut(), result.firstError(), t1 - t0,
                System.nanoTime() - t0);
    }

    private static ReadResult readWith(List<EventStreamReader<ByteBuffer>> readers, long expected, int size,
                                       boolean checkContent, long extraWaitMs, long deadlineNanos)
            throws InterruptedException {
        AtomicLongArray lastSeq = new AtomicLongArray(Payload.KEYS);
        for (int k = 0; k < Payload.KEYS; k++) {
            lastSeq.set(k, -1);
        }
        AtomicLong count = new AtomicLong();
        AtomicLong duplicates = new AtomicLong();
        AtomicLong gaps = new AtomicLong();
        AtomicLong corrupt = new AtomicLong();
        AtomicLong extra = new AtomicLong();
        AtomicLong lastEventNanos = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();

        ExecutorService pool = Executors.newFixedThreadPool(readers.size(), r -> {
            Thread t = new Thread(r, "reader");
            t.setDaemon(true);
            return t;
        });
        long t0 = System.nanoTime();
        boolean timedOut = false;
        try {
            List<Future<?>> tasks = new ArrayList<>();
            for (EventStreamReader<ByteBuffer> reader : readers) {
                tasks.add(pool.submit(() -> {
                    try {
                        // the clock is read when no event came (and for the last one), not per event, as in
                        // Sluice's driver: a reading per event costs as much as a small event's read on a VM
                        while (count.get() < expected) {
                            EventRead<ByteBuffer> read = reader.readNextEvent(READ_POLL_MS);
                            ByteBuffer event = read.getEvent();
                            if (event == null) {
                                if (System.nanoTime() >= deadlineNanos) {
                                    break;
                                }
                                continue; // timeout or checkpoint
                            }
                            check(event, size, checkContent, lastSeq, duplicates, gaps, corrupt);
                            if (count.incrementAndGet() == expected) {
                                lastEventNanos.set(System.nanoTime());
                            }
                        }
                        if (extraWaitMs > 0 && count.get() >= expected) {
                            EventRead<ByteBuffer> read = reader.readNextEvent(extraWaitMs);
                            if (read.getEvent() != null) {
                                extra.incrementAndGet();
                                check(read.getEvent(), size, checkContent, lastSeq, duplicates, gaps, corrupt);
                            }
                        }
                    } catch (RuntimeException | Error e) {
                        Driver.LOG.error("reader failed", e);
                        firstError.compareAndSet(null, Part.describe(e));
                    } catch (Exception e) {
                        Driver.LOG.error("reader failed", e);
                        firstError.compareAndSet(null, Part.describe(e));
                    }
                }));
            }
            for (Future<?> task : tasks) {
                try {
                    task.get(Math.max(1, deadlineNanos - System.nanoTime()) + extraWaitMs * 1_000_000L
                            + 2 * READ_POLL_MS * 1_000_000L, TimeUnit.NANOSECONDS);
                } catch (ExecutionException e) {
                    firstError.compareAndSet(null, Part.describe(e.getCause()));
                } catch (TimeoutException e) {
                    timedOut = true;
                }
            }
        } finally {
            pool.shutdownNow();
        }
        long got = count.get();
        timedOut |= got < expected && System.nanoTime() >= deadlineNanos;
        long missing = 0;
        for (int k = 0; k < Payload.KEYS; k++) {
            long want = Payload.expectedPerKey(expected, k);
            long have = lastSeq.get(k) + 1;
            if (have < want) {
                missing += want - have;
            }
        }
        long end = lastEventNanos.get() == 0 ? System.nanoTime() : lastEventNanos.get();
        return new ReadResult(got, end - t0, duplicates.get(), gaps.get(), corrupt.get(), missing, extra.get(),
                timedOut, firstError.get(), 0, 0);
    }

    private static void check(ByteBuffer event, int size, boolean checkContent, AtomicLongArray lastSeq,
                              AtomicLong duplicates, AtomicLong gaps, AtomicLong corrupt) {
        int key = Payload.key(event);
        if (key < 0 || key >= Payload.KEYS || (checkContent && !Payload.contentOk(event, size))) {
            corrupt.incrementAndGet();
            return;
        }
        long seq = Payload.seq(event);
        while (true) {
            long last = lastSeq.get(key);
            if (seq <= last) {
                duplicates.incrementAndGet(); // seen before (or order broken backwards)
                return;
            }
            if (lastSeq.compareAndSet(key, last, seq)) {
                if (seq != last + 1) {
                    gaps.incrementAndGet(); // skipped ahead: order broken or events lost
                }
                return;
            }
        }
    }
}
