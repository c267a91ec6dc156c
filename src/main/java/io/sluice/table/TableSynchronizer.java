package io.sluice.table;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * A map shared by several processes, kept on one table segment with optimistic concurrency per key. Every
 * synchronizer holds a local copy of the map; {@link #fetchUpdates()} brings it up to date by reading only what
 * changed since (the segment store's delta reads), and every write is conditional on the versions of the keys it
 * depends on, so two processes changing the same keys never lose one another's changes.
 *
 * <h2>Updates</h2>
 * {@link #update} hands a function the current map; the function returns the entries to write (a {@code null} value
 * removes its key). The writes are applied atomically, all or none, and only if every key the function wrote, or
 * <em>read</em> (through {@code get}, {@code containsKey}, {@code getOrDefault}; iterating the map or asking its size
 * reads every key in it), still has the version the local copy saw. Otherwise the synchronizer fetches the changes and
 * calls the function again. Keys read but not written are written again with their value, so that the condition on
 * them is checked in the same atomic batch; a key read while absent is then written as a removal marker. A key that
 * another process <em>adds</em> while a function iterates the map is not a conflict (only the keys present are
 * checked).
 *
 * <h2>Removals</h2>
 * The segment store's delta reads do not report removed keys, so a removal is written as a tombstone: the key stays
 * in the table segment with a marker value, and every synchronizer drops it from its copy when it reads the marker.
 * A removed key therefore keeps taking a few bytes in the table.
 *
 * <h2>Exactly once</h2>
 * Each batch also writes a marker key of its synchronizer with a sequence number. When the reply to a write is lost
 * with a connection and the resent write fails its conditions, the synchronizer reads the marker to learn whether
 * the first attempt was applied, so an update is never applied twice.
 *
 * <h2>Limits</h2>
 * Serialized keys are 1 to 8191 bytes, values at most 1 MiB minus 8 KiB; one update writes at most 255 keys
 * (written and read ones together).
 *
 * <p>Thread-safe. {@link #snapshot()} and {@link #get} never block (they read the local copy); the other methods block
 * for their requests.
 *
 * @param <K> the keys (with {@code equals}/{@code hashCode} consistent with their serialized bytes)
 * @param <V> the values (immutable: they are shared)
 */
public interface TableSynchronizer<K, V> extends AutoCloseable {

    /** @return the scope */
    String scope();

    /** @return the synchronizer's name in its scope */
    String name();

    /** Brings the local copy up to date with every change made before this call. */
    void fetchUpdates();

    /** @return the local copy as an unmodifiable map (as of the last fetch or write); no I/O */
    Map<K, V> snapshot();

    /** @return the local copy's value of {@code key}; no I/O */
    Optional<V> get(K key);

    /**
     * Changes the map with optimistic concurrency, as the class description says: fetches, calls {@code fn} with the
     * current map (read-only), writes what it returns atomically on the versions of the keys it read and wrote, and
     * repeats after a conflict until the write wins or the update timeout
     * ({@link io.sluice.state.SynchronizerConfig#updateTimeout()}, one minute by default) passes. {@code fn} may run several times.
     *
     * @param fn returns the entries to write ({@code null} values remove their keys); an empty map or {@code null}
     *     writes nothing
     * @return the local copy after the write
     * @throws io.sluice.errors.DeadlineExceededException if other writers won every race until the update timeout
     * @throws IllegalArgumentException if a key or value is too long, or the batch has too many keys
     */
    Map<K, V> update(Function<? super Map<K, V>, ? extends Map<K, V>> fn);

    /**
     * Adds {@code key} with {@code value} if it is absent.
     *
     * @return true if added, false if the key was there (its value is left alone)
     */
    boolean insert(K key, V value);

    /**
     * Removes {@code key} if it is present.
     *
     * @return true if removed, false if it was absent
     */
    boolean remove(K key);

    /** Releases the synchronizer (its local copy stays readable). Idempotent. */
    @Override
    void close();
}
