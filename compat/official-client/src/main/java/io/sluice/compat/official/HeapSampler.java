package io.sluice.compat.official;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A platform daemon thread that samples the heap in use ({@link MemoryMXBean}) every {@value #PERIOD_MS} ms and
 * keeps the largest value seen, for the scale workload's {@code resources.heap_peak_mib} ({@link ScaleBench}).
 *
 * <p>It also watches for a full heap: when the heap pools still hold more than {@value #EXHAUSTED_FRACTION} of the
 * maximum heap after a garbage collection, it tells its {@code exhausted} callback once (with a message), so the run
 * can end with a clear error instead of thrashing until every thread, the watchdog's too, fails to allocate.
 * Thread-safe; {@link #close} stops the thread and waits for it.
 */
final class HeapSampler implements AutoCloseable {
    /** Milliseconds between two samples. */
    static final long PERIOD_MS = 50;

    /** Share of the maximum heap still in use after a garbage collection that counts as a full heap. */
    static final double EXHAUSTED_FRACTION = 0.9;

    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final List<MemoryPoolMXBean> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getType() == MemoryType.HEAP && p.isValid())
            .toList();
    private final long maxHeap = Runtime.getRuntime().maxMemory();
    private final AtomicLong peak = new AtomicLong();
    private final Consumer<String> exhausted;
    private final Thread thread;
    private volatile boolean stopped;
    private volatile boolean exhaustedTold;

    private HeapSampler(Consumer<String> exhausted) {
        this.exhausted = exhausted;
        thread = new Thread(this::loop, "scale-heap-sampler");
        thread.setDaemon(true);
    }

    /**
     * @param exhausted told once, from the sampler's thread, when the heap is full (see the class comment)
     * @return a sampler whose thread is running (it takes a first sample at once)
     */
    static HeapSampler start(Consumer<String> exhausted) {
        HeapSampler sampler = new HeapSampler(exhausted);
        sampler.sample();
        sampler.thread.start();
        return sampler;
    }

    /** @return the heap in use right now, in bytes */
    long usedNow() {
        return memory.getHeapMemoryUsage().getUsed();
    }

    /** @return the most heap in use seen so far, in bytes (a sample taken now included) */
    long peakBytes() {
        sample();
        return peak.get();
    }

    /** @return true while the sampling thread runs */
    boolean alive() {
        return thread.isAlive();
    }

    /** Stops sampling and waits for the thread to end. Idempotent. */
    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join(TimeUnit.SECONDS.toMillis(5));
    }

    private void sample() {
        long used = usedNow();
        peak.accumulateAndGet(used, Math::max);
    }

    /** @return bytes the heap pools held right after their last garbage collection */
    private long usedAfterGc() {
        long used = 0;
        for (MemoryPoolMXBean pool : heapPools) {
            MemoryUsage u = pool.getCollectionUsage();
            used += u == null ? 0 : u.getUsed();
        }
        return used;
    }

    private void checkExhausted() {
        long afterGc = usedAfterGc();
        if (!exhaustedTold && maxHeap > 0 && afterGc > EXHAUSTED_FRACTION * maxHeap) {
            exhaustedTold = true;
            exhausted.accept(String.format(Locale.ROOT,
                    "heap exhausted: %d MiB of the %d MiB heap still in use after a garbage collection",
                    afterGc >> 20, maxHeap >> 20));
        }
    }

    private void loop() {
        while (!stopped) {
            sample();
            checkExhausted();
            try {
                TimeUnit.MILLISECONDS.sleep(PERIOD_MS);
            } catch (InterruptedException e) {
                return; // close()
            }
        }
    }
}
