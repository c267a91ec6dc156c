package io.sluice.common;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that tests move by hand; thread-safe. */
public final class MutableClock implements InstantSource {
    public static final Instant START = Instant.parse("2030-01-01T00:00:00Z");

    private final AtomicReference<Instant> now = new AtomicReference<>(START);

    @Override
    public Instant instant() {
        return now.get();
    }

    public void advance(Duration by) {
        now.updateAndGet(t -> t.plus(by));
    }

    public void advanceSeconds(long seconds) {
        advance(Duration.ofSeconds(seconds));
    }
}
