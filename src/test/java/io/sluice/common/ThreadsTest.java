package io.sluice.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The counters of {@link Threads} (live virtual threads, uncaught exceptions) and {@link Threads#all}. */
@Timeout(30)
class ThreadsTest {

    @Test
    void countsVirtualThreadsWhileTheyRun() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(2);
        long before = Threads.liveVirtualThreads();
        Thread started = Threads.startVirtual("threads-test", () -> {
            running.countDown();
            await(release);
        });
        Future<?> pooled;
        try (ExecutorService executor = Threads.perTaskExecutor("threads-test-")) {
            pooled = executor.submit(() -> {
                running.countDown();
                await(release);
            });
            assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
            // other tests' threads may end meanwhile, never start here: at least ours are counted
            assertThat(Threads.liveVirtualThreads()).isGreaterThanOrEqualTo(before + 2);
            long whileRunning = Threads.liveVirtualThreads();
            release.countDown();
            started.join();
            pooled.get(10, TimeUnit.SECONDS);
            executor.shutdown();
            assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            // a thread is counted until its task's last statement: wait for the executor's to finish
            Deadline deadline = Deadline.after(java.time.Duration.ofSeconds(10));
            while (Threads.liveVirtualThreads() > whileRunning - 2 && !deadline.expired()) {
                Thread.onSpinWait();
            }
            assertThat(Threads.liveVirtualThreads()).isLessThanOrEqualTo(whileRunning - 2);
        }
    }

    @Test
    void countsExceptionsThatKillAThread() throws Exception {
        long before = Threads.uncaughtExceptions();
        Thread dying = Threads.startVirtual("threads-test-dying", () -> {
            throw new IllegalStateException("expected by ThreadsTest");
        });
        dying.join();
        Deadline deadline = Deadline.after(java.time.Duration.ofSeconds(10));
        while (Threads.uncaughtExceptions() == before && !deadline.expired()) {
            Thread.onSpinWait();
        }
        assertThat(Threads.uncaughtExceptions()).isEqualTo(before + 1);
    }

    @Test
    void allRunsTheTasksAtOnceAndKeepsTheirOrder() {
        int n = 5;
        CountDownLatch all = new CountDownLatch(n);
        List<Supplier<Integer>> tasks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int value = i * 10;
            tasks.add(() -> {
                // every task waits for all the others to start: only tasks that run at once get past this
                all.countDown();
                await(all);
                return value;
            });
        }
        assertThat(Threads.all("threads-test-all-", tasks)).containsExactly(0, 10, 20, 30, 40);
        assertThat(Threads.all("threads-test-all-", List.<Supplier<String>>of(() -> null))).containsExactly(
                (String) null);
        assertThat(Threads.all("threads-test-all-", List.<Supplier<String>>of())).isEmpty();
    }

    @Test
    void allThrowsTheFirstFailureAndInterruptsTheTasksStillRunning() {
        CountDownLatch never = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        List<Supplier<String>> tasks = List.of(() -> {
            try {
                never.await();
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
            return "waited";
        }, () -> {
            throw new IllegalArgumentException("expected by ThreadsTest");
        });
        assertThatThrownBy(() -> Threads.all("threads-test-all-", tasks)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("expected by ThreadsTest");
        assertThat(interrupted.getCount()).isZero();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
