package io.sluice.common;

import java.util.function.BooleanSupplier;

/** Waits for a condition that no latch can signal (e.g. "n threads are blocked"), without sleeping. */
public final class Await {
    private Await() {
    }

    /** Re-checks {@code condition}, yielding the CPU in between, until it holds or 10 s pass. */
    public static void until(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.yield();
        }
    }
}
