package io.sluice.controller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.LongSupplier;

import io.sluice.common.Endpoint;
import io.sluice.errors.SluiceException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.stream.Segment;

/**
 * Which segment store serves a segment: answers from the controller's {@code getURI}, cached by qualified segment
 * name (transaction segments share their parent's entry). As in Pravega's Java client, entries expire
 * {@value #DEFAULT_TTL_MINUTES} minutes after they were fetched and at most {@value #DEFAULT_MAX_SIZE} are kept
 * (the oldest go first). After a {@code WrongHost} reply, call {@link #invalidate(Segment, Endpoint)} so the next
 * lookup asks the controller again.
 *
 * <p>Thread-safe without locks. {@link #endpointFor(Segment)} blocks the calling thread while it asks the
 * controller; concurrent lookups of the same segment share one request.
 */
public final class SegmentEndpointCache {
    /** Default entry lifetime in minutes. */
    public static final int DEFAULT_TTL_MINUTES = 5;
    /** Default bound on the number of entries. */
    public static final int DEFAULT_MAX_SIZE = 1000;

    private final Function<Segment, Endpoint> lookup;
    private final long ttlNanos;
    private final int maxSize;
    private final LongSupplier nanoTicker;
    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    private final AtomicBoolean evicting = new AtomicBoolean();

    private record Entry(CompletableFuture<Endpoint> endpoint, long fetchedNanos) {
    }

    /**
     * A cache with the defaults, asking {@code controller}.
     *
     * @param controller the controller client
     */
    public SegmentEndpointCache(ControllerClient controller) {
        this(controller::endpointFor, Duration.ofMinutes(DEFAULT_TTL_MINUTES), DEFAULT_MAX_SIZE, System::nanoTime);
    }

    /**
     * @param lookup asks the controller (blocking)
     * @param ttl how long an entry is used
     * @param maxSize how many entries are kept at most
     * @param nanoTicker a monotonic clock in nanoseconds ({@code System::nanoTime}; tests inject their own)
     */
    public SegmentEndpointCache(Function<Segment, Endpoint> lookup, Duration ttl, int maxSize,
                                LongSupplier nanoTicker) {
        this.lookup = Objects.requireNonNull(lookup, "lookup");
        this.ttlNanos = ttl.toNanos();
        this.maxSize = maxSize;
        this.nanoTicker = Objects.requireNonNull(nanoTicker, "nanoTicker");
        if (ttlNanos <= 0 || maxSize <= 0) {
            throw new IllegalArgumentException("ttl and maxSize must be positive: " + ttl + ", " + maxSize);
        }
    }

    /**
     * @param segment the segment
     * @return the segment store serving it, from the cache or the controller
     * @throws SluiceException as {@link ControllerClient#endpointFor(Segment)}
     * @throws StreamingInterruptedException if interrupted while waiting for another thread's lookup
     */
    public Endpoint endpointFor(Segment segment) {
        String key = segment.qualifiedName();
        while (true) {
            long now = nanoTicker.getAsLong();
            Entry entry = entries.get(key);
            if (entry != null) {
                if (!entry.endpoint().isDone() || now - entry.fetchedNanos() < ttlNanos) {
                    Endpoint shared = await(entry.endpoint());
                    if (shared == null) {
                        continue;   // the thread that looked it up was interrupted: look it up anew
                    }
                    return shared;
                }
                entries.remove(key, entry);
                continue;
            }
            Entry mine = new Entry(new CompletableFuture<>(), now);
            if (entries.putIfAbsent(key, mine) != null) {
                continue;
            }
            Endpoint endpoint;
            try {
                endpoint = lookup.apply(segment);
            } catch (RuntimeException | Error e) {
                entries.remove(key, mine);
                mine.endpoint().completeExceptionally(e);
                throw e;
            }
            mine.endpoint().complete(endpoint);
            evictIfNeeded();
            return endpoint;
        }
    }

    /**
     * @param qualifiedSegmentName e.g. {@code scope/stream/0.#epoch.0}
     * @return the segment store serving it
     * @throws IllegalArgumentException if the name cannot be parsed
     */
    public Endpoint endpointFor(String qualifiedSegmentName) {
        return endpointFor(Segment.parse(qualifiedSegmentName));
    }

    /**
     * Forgets the entry of {@code segment}, whatever it is.
     *
     * @param segment the segment
     */
    public void invalidate(Segment segment) {
        entries.remove(segment.qualifiedName());
    }

    /**
     * Forgets the entry of {@code segment} if it still says {@code stale} (another thread may already have fetched
     * a newer answer, which is kept).
     *
     * @param segment the segment
     * @param stale the endpoint that answered {@code WrongHost}
     */
    public void invalidate(Segment segment, Endpoint stale) {
        String key = segment.qualifiedName();
        Entry entry = entries.get(key);
        if (entry != null && entry.endpoint().isDone() && !entry.endpoint().isCompletedExceptionally()
                && stale.equals(entry.endpoint().join())) {
            entries.remove(key, entry);
        }
    }

    /** Forgets everything. */
    public void clear() {
        entries.clear();
    }

    /** @return the number of entries, expired ones included until they are looked up or evicted */
    public int size() {
        return entries.size();
    }

    /**
     * @return the endpoint another thread looked up, or null if that thread was interrupted during its lookup: its
     *     interruption is its own (a writer being closed, say), not a failure of the lookup for the others
     */
    private static Endpoint await(CompletableFuture<Endpoint> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while waiting for a segment endpoint", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof StreamingInterruptedException) {
                return null;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new SluiceException("segment endpoint lookup failed", e.getCause());
        }
    }

    private void evictIfNeeded() {
        if (entries.size() <= maxSize || !evicting.compareAndSet(false, true)) {
            return;
        }
        try {
            long now = nanoTicker.getAsLong();
            entries.entrySet().removeIf(e -> e.getValue().endpoint().isDone()
                    && now - e.getValue().fetchedNanos() >= ttlNanos);
            int excess = entries.size() - maxSize;
            if (excess > 0) {
                List<Map.Entry<String, Entry>> oldest = new ArrayList<>(entries.entrySet());
                oldest.sort(Comparator.comparingLong(e -> e.getValue().fetchedNanos()));
                for (Map.Entry<String, Entry> e : oldest.subList(0, Math.min(excess, oldest.size()))) {
                    entries.remove(e.getKey(), e.getValue());
                }
            }
        } finally {
            evicting.set(false);
        }
    }
}
