package io.sluice.state;

import java.util.List;
import java.util.function.Function;

/**
 * A state shared by several processes through a stream, changed with optimistic concurrency (Pravega's
 * {@code StateSynchronizer}). The stream's segment is a log: a full state (written by {@link #initialize} and
 * {@link #compact}), then lists of {@link Update}s. Every synchronizer keeps a local copy of the state — the last full
 * state with every later update applied in log order — so all of them agree on it once they have read the same log.
 *
 * <h2>Types</h2>
 * The state {@code S} is a plain immutable value: the synchronizer tracks its {@link #revision()} itself (Pravega's
 * states implement {@code Revisioned} instead). An update {@code U} implements {@link Update}{@code <S>}. The full
 * state is written with the synchronizer's state serializer, so where Pravega writes an {@code InitialUpdate} that
 * creates the state, Sluice writes the state itself; given serializers that write the same bytes, the two clients
 * share one log.
 *
 * <h2>Format</h2>
 * Pravega's exactly: each record is one event, {@code [i32 1][state bytes]} for a full state and
 * {@code [i32 2]} followed by {@code [i32 n][n bytes]} per update for a list of updates. The mark attribute points at
 * the last compacted full state.
 *
 * <p>Thread-safe. {@link #state()} and {@link #revision()} never block; the other methods block for their I/O.
 *
 * @param <S> the state: immutable, since it is handed out and shared between threads
 * @param <U> the updates
 */
public interface StateSynchronizer<S, U extends Update<S>> extends AutoCloseable {

    /** @return the local copy of the state as of the last read or write; {@code null} before any state was seen */
    S state();

    /** @return the revision the local copy reflects (offset 0 before anything was read) */
    Revision revision();

    /**
     * Brings the local copy up to the log's end as of this call. If the log was compacted and truncated beyond the
     * local copy, starts again from the full state at the mark.
     *
     * @throws io.sluice.errors.ProtocolException if the log holds records this format does not know
     */
    void fetchUpdates();

    /**
     * Writes {@code initial} as the first record, only if the log is empty; otherwise reads the state there.
     *
     * @return true if {@code initial} was written, false if the log already held data
     */
    boolean initialize(S initial);

    /**
     * Changes the state with optimistic concurrency: brings the local copy up to date, calls {@code generator} with
     * the current state and appends the updates it returns — all of them or none — only if nobody appended since.
     * If someone did, reads again and calls {@code generator} again, until the append wins or the update timeout
     * ({@link SynchronizerConfig#updateTimeout()}, one minute by default) passes.
     * Updates are never lost and never applied twice; {@code generator} may run several times and must not have
     * effects it cannot repeat.
     *
     * @param generator derives updates from the current state; an empty list or {@code null} writes nothing
     * @return the local state after the updates were applied
     * @throws IllegalStateException if the log holds no state yet (call {@link #initialize} first)
     * @throws io.sluice.errors.DeadlineExceededException if other writers won every race until the update timeout
     * @throws IllegalArgumentException if the updates take more than one event (8 MiB)
     */
    S updateState(Function<? super S, ? extends List<? extends U>> generator);

    /**
     * Appends one update whatever the log holds (no condition). The local copy is not changed; the next
     * {@link #fetchUpdates} applies the update in its place in the log.
     */
    void updateStateUnconditionally(U update);

    /** As {@link #updateStateUnconditionally(Update)}, for several updates written as one record. */
    void updateStateUnconditionally(List<? extends U> updates);

    /**
     * Compacts the log: appends {@code compactor}'s full state for the current state (conditionally, retried like
     * {@link #updateState}), moves the mark to it (never backwards) and truncates the log there. Synchronizers that
     * were behind then start again from the mark.
     *
     * @param compactor returns the full state to write (usually the state itself), or {@code null} to skip
     * @throws IllegalStateException if the log holds no state yet
     */
    void compact(Function<? super S, ? extends S> compactor);

    /**
     * @return bytes of log between the mark (0 if none) and the local copy's revision: how much a new synchronizer
     *     reads, and a hint for when to {@link #compact}. Blocks for one request (the mark).
     */
    long bytesWrittenSinceCompaction();

    /** Releases the synchronizer's append session. Idempotent. */
    @Override
    void close();
}
