package io.sluice.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Quick restarts, played with a {@link LoopbackProxy} (tests): the proxy refuses every connection for a while, as a
 * server that is down does, then passes again; a client's progress (acknowledged writes, events read, calls
 * answered) is counted, and after each outage its first progress must come within a bound of the proxy passing.
 */
public final class Outages {
    private static final Logger LOG = LoggerFactory.getLogger(Outages.class);

    /** A client's progress: a count that its threads advance, and the failure that stopped it. Thread-safe. */
    public static final class Progress {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private final AtomicLong count = new AtomicLong();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();

        /** One more step made. */
        public void step() {
            count.incrementAndGet();
            wake();
        }

        /** The client failed: nothing more will come. */
        public void fail(Throwable t) {
            failure.compareAndSet(null, t);
            wake();
        }

        /** Wakes the waiters to look at their conditions again. */
        public void wake() {
            lock.lock();
            try {
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /** @return the steps made so far */
        public long count() {
            return count.get();
        }

        /** @return why the client stopped, or null */
        public Throwable failure() {
            return failure.get();
        }

        /**
         * @return whether {@code condition} held within {@code timeout} (looked at again whenever the progress
         *     changes or {@link #wake()} is called)
         */
        public boolean await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            lock.lock();
            try {
                while (!condition.getAsBoolean()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
                }
                return true;
            } finally {
                lock.unlock();
            }
        }
    }

    private Outages() {
    }

    /**
     * Runs the outages one after the other. During each, nothing more than what was already on its way may get
     * through; once the proxy passes again, the client must make progress within {@code bound}.
     *
     * @param who the client, for messages
     * @return how long the first progress after each outage took, in ms
     */
    public static List<Long> run(LoopbackProxy proxy, String who, Progress progress, List<Duration> outages,
                                 Duration bound) throws InterruptedException {
        List<Long> resumedAfter = new ArrayList<>();
        for (Duration outage : outages) {
            proxy.refuse();
            long during = progress.count();
            // the outage itself: nothing new gets through a server that refuses every connection
            assertThat(progress.await(() -> progress.count() > during + 1 || progress.failure() != null, outage))
                    .as("%s made progress through a refusing server", who).isFalse();
            long before = progress.count();
            proxy.pass();
            long opened = System.nanoTime();
            boolean resumed = progress.await(() -> progress.count() > before || progress.failure() != null,
                    bound.multipliedBy(10));
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - opened);
            LOG.info("{}: outage of {} ms, first progress {} ms after the server was reachable again", who,
                    outage.toMillis(), resumed ? ms : "never");
            assertThat(progress.failure()).as("%s failed", who).isNull();
            assertThat(resumed).as("%s made no progress within %s of the server coming back", who,
                    bound.multipliedBy(10)).isTrue();
            resumedAfter.add(ms);
        }
        LOG.info("{}: first progress after each outage (ms): {}", who, resumedAfter);
        assertThat(resumedAfter).as("%s: ms from the server being reachable again to its first progress", who)
                .allSatisfy(ms -> assertThat(ms).isLessThanOrEqualTo(bound.toMillis()));
        return resumedAfter;
    }
}
