package io.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.sluice.common.Endpoint;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Expiry (on an injected ticker), bounds, invalidation and shared lookups of the endpoint cache. */
@Timeout(30)
class SegmentEndpointCacheTest {
    private static final ScopedStream STREAM = ScopedStream.of("sc", "st");
    private static final Segment SEG = Segment.of(STREAM, 0, 0);

    private final AtomicLong now = new AtomicLong(1_000);
    private final ConcurrentLinkedQueue<Segment> lookups = new ConcurrentLinkedQueue<>();
    private final AtomicInteger port = new AtomicInteger(100);

    private final Function<Segment, Endpoint> controller = segment -> {
        lookups.add(segment);
        return new Endpoint("store", port.incrementAndGet());
    };

    private SegmentEndpointCache cache(int maxSize) {
        return new SegmentEndpointCache(controller, Duration.ofMinutes(5), maxSize, now::get);
    }

    @Test
    void cachesUntilTheEntryExpires() {
        SegmentEndpointCache cache = cache(10);
        assertThat(cache.endpointFor(SEG)).isEqualTo(new Endpoint("store", 101));
        now.addAndGet(Duration.ofMinutes(5).toNanos() - 1);
        assertThat(cache.endpointFor(SEG)).isEqualTo(new Endpoint("store", 101));
        assertThat(lookups).containsExactly(SEG);
        now.addAndGet(1);
        assertThat(cache.endpointFor(SEG)).isEqualTo(new Endpoint("store", 102));
        assertThat(lookups).containsExactly(SEG, SEG);
    }

    @Test
    void transactionSegmentsShareTheParentsEntry() {
        SegmentEndpointCache cache = cache(10);
        Endpoint parent = cache.endpointFor(SEG);
        assertThat(cache.endpointFor("sc/st/0.#epoch.0#transaction.0000000000000000000000000000002a"))
                .isEqualTo(parent);
        assertThat(lookups).hasSize(1);
    }

    @Test
    void invalidateForgetsTheEntry() {
        SegmentEndpointCache cache = cache(10);
        Endpoint first = cache.endpointFor(SEG);
        cache.invalidate(SEG);
        assertThat(cache.endpointFor(SEG)).isNotEqualTo(first);
        assertThat(lookups).hasSize(2);
    }

    @Test
    void invalidateWithStaleEndpointKeepsANewerAnswer() {
        SegmentEndpointCache cache = cache(10);
        Endpoint first = cache.endpointFor(SEG);
        cache.invalidate(SEG, new Endpoint("elsewhere", 1));
        assertThat(cache.endpointFor(SEG)).isEqualTo(first);
        cache.invalidate(SEG, first);
        assertThat(cache.endpointFor(SEG)).isNotEqualTo(first);
        assertThat(lookups).hasSize(2);
    }

    @Test
    void boundedSizeEvictsTheOldestEntries() {
        SegmentEndpointCache cache = cache(3);
        for (int i = 0; i < 5; i++) {
            cache.endpointFor(Segment.of(STREAM, i, 0));
            now.addAndGet(1);
        }
        assertThat(cache.size()).isEqualTo(3);
        lookups.clear();
        cache.endpointFor(Segment.of(STREAM, 4, 0));
        cache.endpointFor(Segment.of(STREAM, 3, 0));
        assertThat(lookups).isEmpty();
        cache.endpointFor(Segment.of(STREAM, 0, 0));
        assertThat(lookups).containsExactly(Segment.of(STREAM, 0, 0));
    }

    @Test
    void failedLookupsAreNotCached() {
        AtomicInteger calls = new AtomicInteger();
        SegmentEndpointCache cache = new SegmentEndpointCache(segment -> {
            if (calls.incrementAndGet() == 1) {
                throw new ConnectionFailedException("controller down");
            }
            return new Endpoint("store", 1);
        }, Duration.ofMinutes(5), 10, now::get);
        assertThatThrownBy(() -> cache.endpointFor(SEG)).isInstanceOf(ConnectionFailedException.class);
        assertThat(cache.size()).isZero();
        assertThat(cache.endpointFor(SEG)).isEqualTo(new Endpoint("store", 1));
    }

    @Test
    void concurrentLookupsOfOneSegmentShareOneRequest() throws Exception {
        CountDownLatch inLookup = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        SegmentEndpointCache cache = new SegmentEndpointCache(segment -> {
            calls.incrementAndGet();
            inLookup.countDown();
            try {
                assertThat(release.await(10, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            return new Endpoint("store", 7);
        }, Duration.ofMinutes(5), 10, now::get);
        CompletableFuture<Endpoint> first = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> first.complete(cache.endpointFor(SEG)));
        assertThat(inLookup.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Endpoint> second = new CompletableFuture<>();
        Thread waiter = Thread.ofVirtual().start(() -> second.complete(cache.endpointFor(SEG)));
        // release only once the second caller blocks: on the shared lookup, or (if sharing were broken) in its own
        while (waiter.getState() != Thread.State.WAITING && waiter.getState() != Thread.State.TIMED_WAITING) {
            Thread.onSpinWait();
        }
        release.countDown();
        assertThat(List.of(first.get(10, TimeUnit.SECONDS), second.get(10, TimeUnit.SECONDS)))
                .containsOnly(new Endpoint("store", 7));
        assertThat(calls.get()).isEqualTo(1);
    }

    @Test
    void aLookupWhoseThreadIsInterruptedDoesNotFailTheThreadsThatWaitForIt() throws Exception {
        // ServerKillTest met it: the thread looking a segment up was interrupted in the lookup's retry, and every
        // writer waiting for the same lookup failed for good with "interrupted while waiting to retry"
        CountDownLatch inLookup = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        SegmentEndpointCache cache = new SegmentEndpointCache(segment -> {
            if (calls.incrementAndGet() == 1) {
                inLookup.countDown();
                try {
                    Thread.sleep(Duration.ofSeconds(20));   // as a retry's backoff does
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new io.sluice.errors.StreamingInterruptedException("interrupted while waiting to retry", e);
                }
            }
            return new Endpoint("store", 8);
        }, Duration.ofMinutes(5), 10, now::get);
        CompletableFuture<Endpoint> first = new CompletableFuture<>();
        Thread owner = Thread.ofVirtual().start(() -> {
            try {
                first.complete(cache.endpointFor(SEG));
            } catch (RuntimeException e) {
                first.completeExceptionally(e);
            }
        });
        assertThat(inLookup.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Endpoint> second = new CompletableFuture<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                second.complete(cache.endpointFor(SEG));
            } catch (RuntimeException e) {
                second.completeExceptionally(e);
            }
        });
        while (waiter.getState() != Thread.State.WAITING && waiter.getState() != Thread.State.TIMED_WAITING) {
            Thread.onSpinWait();
        }
        owner.interrupt();
        // the interrupted thread learns of its own interruption; the waiter looks the segment up itself
        assertThatThrownBy(() -> first.get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(io.sluice.errors.StreamingInterruptedException.class);
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo(new Endpoint("store", 8));
        assertThat(calls.get()).isEqualTo(2);
    }

    @Test
    void rejectsNonsenseSettings() {
        assertThatThrownBy(() -> new SegmentEndpointCache(controller, Duration.ZERO, 1, now::get))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SegmentEndpointCache(controller, Duration.ofMinutes(1), 0, now::get))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
