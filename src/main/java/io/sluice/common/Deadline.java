package io.sluice.common;

import java.time.Duration;

import io.sluice.errors.DeadlineExceededException;

/**
 * A point in time a wait must not pass, on the monotonic clock. Every blocking wait in Sluice takes one.
 * Immutable and thread-safe.
 */
public final class Deadline {
    private static final long FAR_FUTURE_NANOS = Long.MAX_VALUE / 4;
    private static final Duration FAR_FUTURE = Duration.ofNanos(FAR_FUTURE_NANOS);

    private final long deadlineNanos;

    private Deadline(long deadlineNanos) {
        this.deadlineNanos = deadlineNanos;
    }

    /**
     * @param timeout how long from now; negative or zero means already expired
     * @return a deadline {@code timeout} from now
     */
    public static Deadline after(Duration timeout) {
        return after(System.nanoTime(), timeout);
    }

    /**
     * For a caller that read the clock already (a reading costs some 30 ns on a virtual machine, which counts on a
     * path taken per event).
     *
     * @param nowNanos a reading of {@link System#nanoTime()} taken just before
     * @param timeout how long from then; negative or zero means already expired
     * @return a deadline {@code timeout} after {@code nowNanos}
     */
    public static Deadline after(long nowNanos, Duration timeout) {
        long nanos = timeout.compareTo(FAR_FUTURE) > 0 ? FAR_FUTURE_NANOS : timeout.toNanos();
        return new Deadline(nowNanos + nanos);
    }

    /** @return a deadline {@code millis} milliseconds from now */
    public static Deadline afterMillis(long millis) {
        return after(Duration.ofMillis(millis));
    }

    /** @return the earlier of this deadline and {@code other} */
    public Deadline min(Deadline other) {
        return deadlineNanos - other.deadlineNanos <= 0 ? this : other;
    }

    /** @return nanoseconds left, zero or negative once expired */
    public long remainingNanos() {
        return deadlineNanos - System.nanoTime();
    }

    /** @return what is left, {@link Duration#ZERO} once expired */
    public Duration remaining() {
        return Duration.ofNanos(Math.max(0, remainingNanos()));
    }

    /** @return true once the deadline has passed */
    public boolean expired() {
        return remainingNanos() <= 0;
    }

    /**
     * @param what the operation, for the message
     * @throws DeadlineExceededException if the deadline has passed
     */
    public void check(String what) {
        if (expired()) {
            throw new DeadlineExceededException(what + " did not complete before its deadline");
        }
    }

    @Override
    public String toString() {
        return "Deadline[in " + remaining().toMillis() + " ms]";
    }
}
