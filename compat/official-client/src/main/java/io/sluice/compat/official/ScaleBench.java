package io.sluice.compat.official;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.pravega.client.EventStreamClientFactory;
import io.pravega.client.admin.ReaderGroupManager;
import io.pravega.client.admin.StreamManager;
import io.pravega.client.stream.EventStreamReader;
import io.pravega.client.stream.EventStreamWriter;
import io.pravega.client.stream.EventWriterConfig;
import io.pravega.client.stream.ReaderConfig;
import io.pravega.client.stream.ReaderGroupConfig;
import io.pravega.client.stream.Stream;

/**
 * Mode {@code bench --writers W} (W over 1): the scale workload of Sluice's {@code bench --writers W} with the
 * official client, same JSON keys. N events of S bytes, K fixed segments, R readers, L latency samples:
 *
 * <ol>
 *   <li>setup: one {@code EventStreamClientFactory} and W writers (default {@code EventWriterConfig}), timed as
 *       {@code setup.writers_ms}. Writer {@code w} writes only with its routing key from {@link ScaleRouting}, so
 *       its events all go to segment {@code w % K};</li>
 *   <li>write: W platform threads, one per writer, released together by a start gate; writer {@code w} writes its
 *       share of N ({@link ScaleRouting#share}) as {@code Payload.encode(w, seq, S)}, seq = 0, 1, ..., without
 *       waiting, then flushes. Time from opening the gate to the end of the last flush;</li>
 *   <li>read: a new reader group from the head (no automatic checkpoints) and R readers, timed as
 *       {@code setup.readers_ms}; then R platform threads read until the group has returned N events. Time from
 *       starting the threads to the N-th event. Every event is checked by {@link ScaleCheck};</li>
 *   <li>resources, with everything still open: heap in use after two {@code System.gc()}, the peak heap a
 *       {@link HeapSampler} saw since setup began, and the JVM's peak and current thread counts less the
 *       workload's own threads;</li>
 *   <li>latency: W threads at once, writer {@code w} doing its share of L awaited writes one after the other;
 *       nearest-rank percentiles of all of them ({@link Bench#latency}).</li>
 * </ol>
 * Then readers, reader group (unless {@code --keep}), writers and factory are closed; the driver deletes the
 * stream and scope as for every bench.
 *
 * <p>With connection pooling off (the {@code EventWriterConfig} default) every official writer opens a connection of
 * its own, with a 1 MiB encoder buffer and a reader thread, to every segment of the stream when it is created, so W
 * writers on K segments hold W x K connections. When that fills the heap, the {@link HeapSampler} notices and the
 * run is aborted with an error saying so (instead of thrashing until the watchdog cannot run either).
 */
final class ScaleBench {
    private static final double MIB = 1024.0 * 1024.0;

    private ScaleBench() {
    }

    /** The write phase: gate opened to the end of the last flush; writes that failed; the first error or null. */
    private record WriteOutcome(long nanos, long failed, String firstError) {
    }

    /** The read phase: reader threads started to the N-th event (or the end of the phase). */
    private record ReadOutcome(long nanos, boolean timedOut, String firstError) {
    }

    /** The latency phase: every awaited write's time in microseconds, the failures and the first error or null. */
    private record LatencyOutcome(long[] micros, long failed, String firstError) {
    }

    /**
     * Runs the workload and puts its results into {@code report}.
     *
     * @return true if every event was written, read back once and in order per writer, and no write failed
     */
    static boolean run(Run run, Report report, StreamManager streamManager) throws Exception {
        Options o = run.options;
        int writerCount = o.writers();
        String stream = o.stream();
        report.put("stream", o.scope() + "/" + stream);
        report.put("events", o.events());
        report.put("size", o.size());
        report.put("segments", o.segments());
        report.put("readers", o.readers());
        report.put("keys", writerCount);
        report.put("writers", writerCount);
        if (o.pooling()) {
            report.put("connection_pooling", true);
        }

        run.phase("bench --writers: creating stream " + stream + " of " + o.segments() + " segment(s)");
        run.createStream(streamManager, stream, o.segments());
        run.phase("bench --writers: choosing " + writerCount + " routing keys (writer w -> segment w % "
                + o.segments() + ")");
        long k0 = System.nanoTime();
        String[] keys = ScaleRouting.keys(writerCount, o.segments());
        Driver.LOG.info("bench --writers: routing keys chosen in {} ms", (System.nanoTime() - k0) / 1_000_000);
        int[] counts = new int[writerCount];
        for (int w = 0; w < writerCount; w++) {
            counts[w] = ScaleRouting.share(o.events(), writerCount, w);
        }

        ThreadMXBean threadBean = ManagementFactory.getThreadMXBean();
        List<Thread> workloadThreads = new ArrayList<>();
        run.phase("bench --writers: creating " + writerCount + " writers");
        threadBean.resetPeakThreadCount();
        long s0 = System.nanoTime();
        String why = o.pooling() ? "every official writer sets up an output stream for each segment when it is "
                + "created, pooled connections or not" : "with connection pooling off, the default, every official "
                + "writer opens a connection of its own, with a 1 MiB buffer, to each segment";
        try (HeapSampler sampler = HeapSampler.start(full -> run.abort(full + ", with " + writerCount
                + " writers on " + o.segments() + " segments (" + why + "); a larger SLUICE_OFFICIAL_XMX may help"));
             EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config)) {
            List<EventStreamWriter<ByteBuffer>> writers = new ArrayList<>(writerCount);
            try {
                int logEvery = Math.max(100, writerCount / 10);
                for (int w = 0; w < writerCount; w++) {
                    writers.add(factory.createEventWriter(stream, Payload.SERIALIZER,
                            EventWriterConfig.builder().enableConnectionPooling(o.pooling()).build()));
                    if ((w + 1) % logEvery == 0 && w + 1 < writerCount) {
                        Driver.LOG.info("bench --writers: {} writers created in {} ms ({} threads, {} MiB heap in "
                                + "use)", w + 1, (System.nanoTime() - s0) / 1_000_000, threadBean.getThreadCount(),
                                sampler.usedNow() >> 20);
                    }
                }
                long writersMs = (System.nanoTime() - s0) / 1_000_000;
                report.put("setup", setup(writersMs, null));
                Driver.LOG.info("bench --writers: {} writers created in {} ms ({} threads now)", writerCount,
                        writersMs, threadBean.getThreadCount());

                run.phase("bench --writers: " + writerCount + " writers writing " + o.events() + " events of "
                        + o.size() + " bytes");
                WriteOutcome write = write(run, writers, keys, counts, o.size(), workloadThreads);
                report.put("write", Bench.rate(o.events(), write.nanos(), o.size(), write.failed()));
                Driver.LOG.info("bench --writers: write {} events/s, {} failed",
                        Math.round(o.events() * 1e9 / Math.max(1, write.nanos())), write.failed());

                String group = run.name("-rg");
                run.phase("bench --writers: creating reader group " + group + " and " + o.readers() + " reader(s)");
                long r0 = System.nanoTime();
                try (ReaderGroupManager groups = ReaderGroupManager.withScope(o.scope(), run.config)) {
                    groups.createReaderGroup(group, ReaderGroupConfig.builder()
                            .stream(Stream.of(o.scope(), stream))
                            .disableAutomaticCheckpoints()
                            .build());
                    List<EventStreamReader<ByteBuffer>> readers = new ArrayList<>(o.readers());
                    try {
                        for (int r = 0; r < o.readers(); r++) {
                            readers.add(factory.createReader(group + "-reader-" + r, group, Payload.SERIALIZER,
                                    ReaderConfig.builder().build()));
                        }
                        report.put("setup", setup(writersMs, (System.nanoTime() - r0) / 1_000_000));

                        run.phase("bench --writers: reading " + o.events() + " events with " + o.readers()
                                + " reader(s)");
                        ScaleCheck check = new ScaleCheck(o.size(), counts);
                        ReadOutcome read = read(run, readers, check, o.events(), workloadThreads);
                        report.put("read", Bench.rate(check.read(), read.nanos(), o.size(), -1));
                        Driver.LOG.info("bench --writers: read {} events/s",
                                Math.round(check.read() * 1e9 / Math.max(1, read.nanos())));

                        run.phase("bench --writers: measuring heap and threads");
                        // the writers' and the readers' threads never run at the same time
                        Map<String, Object> resources = resources(sampler, threadBean,
                                Math.max(writerCount, o.readers()) + 1, workloadThreads);
                        sampler.close();

                        run.phase("bench --writers: " + o.latencySamples() + " awaited single writes by "
                                + writerCount + " writers");
                        LatencyOutcome latency = latency(run, writers, keys, counts, o.latencySamples(), o.size());
                        report.put("latency", Bench.latency(latency.micros(), latency.failed(),
                                latency.firstError()));
                        report.put("resources", resources);

                        Map<String, Object> verify = verify(o.events(), write, read, check, latency);
                        report.put("verify", verify);
                        run.phase("bench --writers: closing " + o.readers() + " reader(s) and " + writerCount
                                + " writers");
                        return (Boolean) verify.get("ok");
                    } finally {
                        closeAll(readers, "reader");
                        if (!o.keep()) {
                            groups.deleteReaderGroup(group);
                        }
                    }
                }
            } finally {
                long c0 = System.nanoTime();
                closeAll(writers, "writer");
                Driver.LOG.info("bench --writers: {} writers closed in {} ms", writers.size(),
                        (System.nanoTime() - c0) / 1_000_000);
            }
        }
    }

    /** @return the {@code setup} object; {@code readersMs} null while the readers do not exist yet */
    private static Map<String, Object> setup(long writersMs, Long readersMs) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("writers_ms", writersMs);
        if (readersMs != null) {
            m.put("readers_ms", readersMs);
        }
        return m;
    }

    /**
     * The write phase: one thread per writer, released together; each writes its events without waiting, flushes,
     * then checks its writes' futures (after the clock stopped). Adds its threads to {@code own}.
     */
    private static WriteOutcome write(Run run, List<EventStreamWriter<ByteBuffer>> writers, String[] keys,
                                      int[] counts, int size, List<Thread> own) throws InterruptedException {
        CountDownLatch gate = new CountDownLatch(1);
        AtomicLong lastFlushEnd = new AtomicLong(Long.MIN_VALUE);
        AtomicLong failed = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>(writers.size());
        for (int w = 0; w < writers.size(); w++) {
            int id = w;
            threads.add(thread("scale-writer-" + w, () -> {
                if (!await(gate)) {
                    failed.addAndGet(counts[id]);
                    return;
                }
                failed.addAndGet(writeOne(run, writers.get(id), id, keys[id], counts[id], size, lastFlushEnd,
                        firstError));
            }));
        }
        own.addAll(threads);
        for (Thread t : threads) {
            t.start();
        }
        long t0 = System.nanoTime();
        gate.countDown();
        joinAll(run, threads, 0);
        long end = lastFlushEnd.get() == Long.MIN_VALUE ? System.nanoTime() : lastFlushEnd.get();
        return new WriteOutcome(end - t0, failed.get(), firstError.get());
    }

    /**
     * One writer's part of the write phase: {@code count} events with sequence numbers {@code 0 .. count - 1},
     * then {@code flush}; records the end of the flush in {@code lastFlushEnd}.
     *
     * @return how many of the writes failed (or were never made)
     */
    @SuppressWarnings("unchecked")
    private static long writeOne(Run run, EventStreamWriter<ByteBuffer> writer, int w, String key, int count,
                                 int size, AtomicLong lastFlushEnd, AtomicReference<String> firstError) {
        CompletableFuture<Void>[] futures = new CompletableFuture[count];
        int issued = 0;
        try {
            for (; issued < count; issued++) {
                futures[issued] = writer.writeEvent(key, Payload.encode(w, issued, size));
            }
            writer.flush();
        } catch (RuntimeException e) {
            Driver.LOG.error("writer {} failed after {} of {} writes", w, issued, count, e);
            firstError.compareAndSet(null, "writer " + w + ": " + Part.describe(e));
        }
        lastFlushEnd.accumulateAndGet(System.nanoTime(), Math::max);
        long failed = count - issued;
        for (int i = 0; i < issued; i++) {
            try {
                futures[i].get(run.remainingNanos(), TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException e) {
                failed++;
                firstError.compareAndSet(null, "writer " + w + ": "
                        + Part.describe(e instanceof ExecutionException ? e.getCause() : e));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return failed + issued - i;
            }
        }
        return failed;
    }

    /**
     * The read phase: one thread per reader, each calling {@code readNextEvent} until the group has returned
     * {@code expected} events (or the run's deadline); {@code check} sees every event. Adds its threads to
     * {@code own}.
     */
    private static ReadOutcome read(Run run, List<EventStreamReader<ByteBuffer>> readers, ScaleCheck check,
                                    long expected, List<Thread> own) throws InterruptedException {
        AtomicLong lastEvent = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>(readers.size());
        for (int r = 0; r < readers.size(); r++) {
            EventStreamReader<ByteBuffer> reader = readers.get(r);
            int id = r;
            threads.add(thread("scale-reader-" + r, () -> {
                try {
                    while (check.read() < expected && System.nanoTime() < run.deadlineNanos) {
                        ByteBuffer event = reader.readNextEvent(EventsWorkload.READ_POLL_MS).getEvent();
                        if (event != null && check.accept(event) == expected) {
                            lastEvent.set(System.nanoTime());
                        }
                    }
                } catch (Exception e) {
                    Driver.LOG.error("reader {} failed", id, e);
                    firstError.compareAndSet(null, "reader " + id + ": " + Part.describe(e));
                }
            }));
        }
        own.addAll(threads);
        long t0 = System.nanoTime();
        for (Thread t : threads) {
            t.start();
        }
        joinAll(run, threads, 2 * EventsWorkload.READ_POLL_MS);
        boolean timedOut = check.read() < expected && System.nanoTime() >= run.deadlineNanos;
        long end = lastEvent.get() == 0 ? System.nanoTime() : lastEvent.get();
        return new ReadOutcome(end - t0, timedOut, firstError.get());
    }

    /**
     * Heap and threads while writers and readers are open: heap in use after two {@code System.gc()}, the
     * sampler's peak, and the JVM's peak (since setup began) and current thread counts less the workload's own
     * threads ({@code ownThreads} at the peak; those of {@code workloadThreads} and the sampler still alive now).
     */
    private static Map<String, Object> resources(HeapSampler sampler, ThreadMXBean threadBean, int ownThreads,
                                                 List<Thread> workloadThreads) {
        System.gc();
        System.gc();
        long live = sampler.usedNow();
        long peak = sampler.peakBytes();
        int threadsPeak = threadBean.getPeakThreadCount() - ownThreads;
        int ownAlive = sampler.alive() ? 1 : 0;
        for (Thread t : workloadThreads) {
            ownAlive += t.isAlive() ? 1 : 0;
        }
        int threadsNow = threadBean.getThreadCount() - ownAlive;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("heap_live_mib", mib(live));
        m.put("heap_peak_mib", mib(peak));
        m.put("threads_peak", threadsPeak);
        m.put("threads_now", threadsNow);
        Driver.LOG.info("bench --writers: heap live {} MiB, peak {} MiB; threads peak {}, now {} (workload's own "
                + "threads excluded)", mib(live), mib(peak), threadsPeak, threadsNow);
        return m;
    }

    /**
     * The latency phase: one thread per writer, released together; writer {@code w} makes its share of
     * {@code samples} awaited writes one after the other, with sequence numbers following its write phase's.
     */
    private static LatencyOutcome latency(Run run, List<EventStreamWriter<ByteBuffer>> writers, String[] keys,
                                          int[] counts, int samples, int size) throws InterruptedException {
        int n = writers.size();
        long[][] micros = new long[n][];
        CountDownLatch gate = new CountDownLatch(1);
        AtomicLong failed = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>(n);
        for (int w = 0; w < n; w++) {
            int id = w;
            threads.add(thread("scale-latency-" + w, () -> {
                if (await(gate)) {
                    micros[id] = awaitedWrites(run, writers.get(id), id, keys[id], counts[id],
                            ScaleRouting.share(samples, n, id), size, failed, firstError);
                }
            }));
        }
        for (Thread t : threads) {
            t.start();
        }
        gate.countDown();
        joinAll(run, threads, 0);
        int total = 0;
        for (long[] m : micros) {
            total += m == null ? 0 : m.length;
        }
        long[] all = new long[total];
        int at = 0;
        for (long[] m : micros) {
            if (m != null) {
                System.arraycopy(m, 0, all, at, m.length);
                at += m.length;
            }
        }
        return new LatencyOutcome(all, failed.get(), firstError.get());
    }

    /**
     * {@code samples} awaited writes by one writer, sequence numbers from {@code firstSeq}; stops at the first one
     * that times out (the run's deadline).
     *
     * @return each write's time in microseconds (failed writes included, the timed-out one not)
     */
    private static long[] awaitedWrites(Run run, EventStreamWriter<ByteBuffer> writer, int w, String key,
                                        int firstSeq, int samples, int size, AtomicLong failed,
                                        AtomicReference<String> firstError) {
        long[] out = new long[samples];
        int done = 0;
        for (int i = 0; i < samples; i++) {
            ByteBuffer payload = Payload.encode(w, firstSeq + i, size);
            long t0 = System.nanoTime();
            try {
                writer.writeEvent(key, payload).get(run.remainingNanos(), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                failed.incrementAndGet();
                firstError.compareAndSet(null, "writer " + w + ": " + Part.describe(e.getCause()));
            } catch (TimeoutException e) {
                failed.incrementAndGet();
                firstError.compareAndSet(null, "writer " + w + ": " + Part.describe(e));
                break;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            out[done++] = (System.nanoTime() - t0) / 1000;
        }
        return done == out.length ? out : Arrays.copyOf(out, done);
    }

    /** The {@code verify} object; {@code ok} is true only if every check passed. */
    private static Map<String, Object> verify(long expected, WriteOutcome write, ReadOutcome read, ScaleCheck check,
                                              LatencyOutcome latency) {
        long missing = check.missing();
        boolean ok = write.failed() == 0 && latency.failed() == 0 && check.read() == expected
                && check.duplicates() == 0 && check.outOfOrder() == 0 && check.bad() == 0 && missing == 0
                && !read.timedOut() && read.firstError() == null;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ok", ok);
        m.put("read", check.read());
        m.put("duplicates", check.duplicates());
        m.put("out_of_order", check.outOfOrder());
        m.put("missing", missing);
        m.put("bad", check.bad());
        m.put("failed_writes", write.failed() + latency.failed());
        if (read.timedOut()) {
            m.put("timed_out", true);
        }
        String error = write.firstError() != null ? write.firstError()
                : read.firstError() != null ? read.firstError() : latency.firstError();
        if (error != null) {
            m.put("error", error);
        }
        return m;
    }

    /** @return {@code bytes} in MiB with one decimal */
    private static double mib(long bytes) {
        return Math.round(bytes / MIB * 10) / 10.0;
    }

    /** @return a new platform daemon thread (not started) that logs anything {@code body} lets escape */
    private static Thread thread(String name, Runnable body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (RuntimeException | Error e) {
                Driver.LOG.error("{} failed", name, e);
            }
        }, name);
        t.setDaemon(true);
        return t;
    }

    /** Waits for the start gate. @return false if interrupted first */
    private static boolean await(CountDownLatch gate) {
        try {
            gate.await();
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Waits for every thread until the run's deadline plus {@code slackMs}. */
    private static void joinAll(Run run, List<Thread> threads, long slackMs) throws InterruptedException {
        for (Thread t : threads) {
            t.join(Math.max(1, run.remainingNanos() / 1_000_000 + slackMs));
        }
    }

    /** Closes every one of {@code items}, logging (not throwing) what fails, so the rest still get closed. */
    private static void closeAll(List<? extends AutoCloseable> items, String what) {
        for (int i = 0; i < items.size(); i++) {
            try {
                items.get(i).close();
            } catch (Exception e) {
                Driver.LOG.warn("closing {} {} failed: {}", what, i, Part.describe(e));
            }
        }
    }
}
