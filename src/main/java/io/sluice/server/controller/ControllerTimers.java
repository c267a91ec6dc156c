package io.sluice.server.controller;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.common.Threads;

/**
 * The controller's two timer threads: the lease timer (every {@link ControllerSettings#leaseCheckInterval()} it
 * aborts transactions whose lease ran out and retries failed background work) and the watermark timer (every
 * {@link ControllerSettings#watermarkInterval()}). A zero interval starts no thread. Thread-safe.
 */
final class ControllerTimers {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedControllerService.class);

    private final ControllerCore core;
    private final ControllerSettings settings;
    private final CountDownLatch stopping = new CountDownLatch(1);
    private final Thread leaseTimer;
    private final Thread watermarkTimer;

    /** Starts the timers the settings ask for. */
    ControllerTimers(ControllerCore core, ControllerSettings settings) {
        this.core = core;
        this.settings = settings;
        leaseTimer = settings.leaseCheckInterval().isZero() ? null
                : Threads.startVirtual("sluice-controller-lease-timer", this::leaseLoop);
        watermarkTimer = settings.watermarkInterval().isZero() ? null
                : Threads.startVirtual("sluice-controller-watermarks", this::watermarkLoop);
    }

    /** Stops both timers, waiting up to {@code timeout} for each to finish its round. */
    void stop(Duration timeout) {
        stopping.countDown();
        for (Thread timer : new Thread[] {leaseTimer, watermarkTimer}) {
            if (timer != null) {
                try {
                    timer.join(timeout.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private void leaseLoop() {
        every(settings.leaseCheckInterval(), "checking transaction leases", () -> {
            core.expireLeases();
            core.retryFailedWork();
        });
    }

    private void watermarkLoop() {
        every(settings.watermarkInterval(), "computing watermarks", () -> core.watermarks().run());
    }

    /** Runs {@code task} every {@code interval} until stopped; a failing round is logged and the next one runs. */
    private void every(Duration interval, String what, Runnable task) {
        try {
            while (!stopping.await(interval.toMillis(), TimeUnit.MILLISECONDS)) {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.warn("{} failed", what, e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
