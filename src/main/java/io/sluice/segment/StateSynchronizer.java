package io.sluice.segment;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import java.util.function.Function;

import io.sluice.common.Deadline;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.SegmentTruncatedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a local copy of a state shared through a {@link RevisionedSegment}, and changes it with optimistic
 * concurrency (Pravega's {@code StateSynchronizer}). The segment is a log of records, each one event:
 * <ul>
 *   <li>a <em>full state</em>: {@code [i32 1][state bytes]} — written by {@link #initialize} and {@link #compact};</li>
 *   <li>a <em>list of updates</em>: {@code [i32 2]} then {@code [i32 n][n bytes]} per update — written by
 *       {@link #updateState}, applied all together or not at all.</li>
 * </ul>
 * (Pravega's {@code UpdateOrInitSerializer} layout.) The state is the last full state with every later update applied
 * in log order by {@code applyUpdate}; every process reading the log computes the same state.
 *
 * <p><b>Optimistic updates.</b> {@link #updateState} reads what is new, lets the caller derive updates from the
 * current state, and appends them only if nobody appended since (a conditional append at the local revision). If
 * someone did, it reads again and asks again: the generator may run several times and must not have side effects it
 * cannot repeat. Updates are never lost and never applied twice.
 *
 * <p><b>Compaction.</b> {@link #compact} writes the whole current state, moves the segment's mark to it and truncates
 * the log before it; a synchronizer whose copy is older than the segment's start (and any new one) starts again from
 * the full state at the mark.
 *
 * <p><b>Threads.</b> Thread-safe: the local copy is guarded by a lock that is never held during I/O (reads and
 * writes happen outside it; what they bring is applied under it, after checking that the copy has not moved on
 * meanwhile). {@link #state()} and {@link #revision()} never block; every other method blocks for the I/O it needs.
 * {@code applyUpdate} runs under the lock and must be quick and pure. The synchronizer does not own the
 * {@link RevisionedSegment}: whoever created it closes it.
 *
 * @param <S> the state: immutable (it is handed out and shared between threads)
 * @param <U> an update
 */
public final class StateSynchronizer<S, U> {
    private static final Logger LOG = LoggerFactory.getLogger(StateSynchronizer.class);

    /** How long {@link #updateState} and {@link #compact} keep trying by default. */
    public static final Duration DEFAULT_UPDATE_TIMEOUT = Duration.ofSeconds(60);
    /** Record type of a full state (Pravega's {@code INITIALIZATION}). */
    private static final int FULL_STATE = 1;
    /** Record type of a list of updates (Pravega's {@code UPDATE}). */
    private static final int UPDATES = 2;
    /** Rereads after the log was truncated under a reader, before giving up. */
    private static final int MAX_TRUNCATION_RETRIES = 10;

    /**
     * Turns values into bytes and back. Must be deterministic and thread-safe.
     *
     * @param <T> the values
     */
    public interface Codec<T> {
        /**
         * @param value a value, never {@code null}
         * @return its bytes (from position to limit)
         */
        ByteBuffer encode(T value);

        /**
         * @param bytes what {@link #encode} produced (from position to limit); may be read freely
         * @return the value, never {@code null}
         */
        T decode(ByteBuffer bytes);

        /** @return a codec made of two functions */
        static <T> Codec<T> of(Function<? super T, ByteBuffer> encoder, Function<ByteBuffer, ? extends T> decoder) {
            Objects.requireNonNull(encoder, "encoder");
            Objects.requireNonNull(decoder, "decoder");
            return new Codec<>() {
                @Override
                public ByteBuffer encode(T value) {
                    return encoder.apply(value);
                }

                @Override
                public T decode(ByteBuffer bytes) {
                    return decoder.apply(bytes);
                }
            };
        }
    }

    /** The local copy: a state (null until one was read or written) and the revision it reflects. */
    private record Local<S>(S state, long revision) {
    }

    /** A decoded record: a full state ({@code state} set) or updates; {@code start}/{@code end} are its revisions. */
    private record Entry<S, U>(long start, long end, S state, List<U> updates) {
    }

    private final RevisionedSegment segment;
    private final Codec<S> stateCodec;
    private final Codec<U> updateCodec;
    private final BiFunction<? super S, ? super U, ? extends S> applyUpdate;
    private final Duration updateTimeout;

    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by lock; only ever moves to later revisions. */
    private Local<S> local = new Local<>(null, 0);

    /**
     * Creates a synchronizer with an empty local copy; nothing is read until a method that does I/O is called.
     *
     * @param segment the log
     * @param stateCodec encodes whole states (the full-state records)
     * @param updateCodec encodes single updates
     * @param applyUpdate returns the state after an update; pure, never {@code null}
     * @param updateTimeout how long {@link #updateState} and {@link #compact} keep retrying after conflicts
     */
    public StateSynchronizer(RevisionedSegment segment, Codec<S> stateCodec, Codec<U> updateCodec,
                             BiFunction<? super S, ? super U, ? extends S> applyUpdate, Duration updateTimeout) {
        this.segment = Objects.requireNonNull(segment, "segment");
        this.stateCodec = Objects.requireNonNull(stateCodec, "stateCodec");
        this.updateCodec = Objects.requireNonNull(updateCodec, "updateCodec");
        this.applyUpdate = Objects.requireNonNull(applyUpdate, "applyUpdate");
        this.updateTimeout = Objects.requireNonNull(updateTimeout, "updateTimeout");
        if (updateTimeout.isNegative() || updateTimeout.isZero()) {
            throw new IllegalArgumentException("updateTimeout must be positive: " + updateTimeout);
        }
    }

    /** @return the log this synchronizer reads and writes */
    public RevisionedSegment segment() {
        return segment;
    }

    /**
     * @return the local copy of the state, as of the last read or write; {@code null} if no state has been seen yet
     *     (call {@link #fetchUpdates} or {@link #initialize}). No I/O, never blocks for long.
     */
    public S state() {
        return local().state();
    }

    /** @return the revision the local copy reflects (0 before anything was read). No I/O. */
    public long revision() {
        return local().revision();
    }

    private Local<S> local() {
        lock.lock();
        try {
            return local;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Brings the local copy up to the log's end as of this call: applies every record written since the local
     * revision. If the log was truncated beyond the local revision (compacted), starts again from the full state at
     * the mark (or the first full state after the segment's start when no mark is set). Blocks for the reads.
     *
     * @throws io.sluice.errors.NoSuchSegmentException if the segment does not exist
     * @throws IllegalStateException if the log was truncated and holds no full state after its start
     * @throws ProtocolException if a record is not one this class writes
     * @throws SegmentTruncatedException if the log kept being truncated under the reads
     */
    public void fetchUpdates() {
        for (int attempt = 1; ; attempt++) {
            long from = revision();
            try {
                apply(decode(segment.readFrom(from), false));
                return;
            } catch (SegmentTruncatedException e) {
                LOG.debug("log {} was truncated beyond revision {}; starting again from its mark", segment.segment(), from);
            }
            try {
                long mark = segment.mark();
                long start = mark == RevisionedSegment.NO_MARK ? segment.startRevision() : mark;
                List<Entry<S, U>> entries = decode(segment.readFrom(start), true);
                if (entries.isEmpty()) {
                    throw new IllegalStateException("log " + segment.segment() + " was truncated and holds no full state"
                            + " after revision " + start);
                }
                apply(entries);
                return;
            } catch (SegmentTruncatedException e) {
                if (attempt >= MAX_TRUNCATION_RETRIES) {
                    throw e;
                }
            }
        }
    }

    /**
     * Changes the state with optimistic concurrency: reads what is new, calls {@code generator} with the current
     * state, and appends the updates it returns as one record — all of them or none — only if the log has not moved
     * since; otherwise reads again and calls {@code generator} again, until the append wins or the update timeout
     * passes. Blocks for the reads and writes.
     *
     * @param generator derives updates from a state; may be called several times; an empty list (or null) means
     *     "nothing to do" and ends the call without writing
     * @return the local state after the update was applied (it may already include later updates of others)
     * @throws IllegalStateException if the log holds no state yet ({@link #initialize} first)
     * @throws DeadlineExceededException if other writers won every race until the update timeout passed
     * @throws IllegalArgumentException if the encoded updates exceed {@link RevisionedSegment#MAX_UPDATE_BYTES}
     * @throws io.sluice.errors.SegmentSealedException if the segment is sealed
     */
    public S updateState(Function<? super S, ? extends List<? extends U>> generator) {
        Objects.requireNonNull(generator, "generator");
        Deadline deadline = Deadline.after(updateTimeout);
        for (int conflicts = 0; ; conflicts++) {
            Local<S> seen = fetched();
            List<? extends U> updates = generator.apply(seen.state());
            if (updates == null || updates.isEmpty()) {
                return seen.state();
            }
            long revision = segment.writeConditionally(seen.revision(), encodeUpdates(updates));
            if (revision != RevisionedSegment.CONFLICT) {
                return applyOwn(seen, updates, revision);
            }
            checkDeadline(deadline, conflicts + 1, "update");
        }
    }

    /**
     * Appends {@code updates} as one record whatever the log holds (no condition, no read first). The local copy is
     * not changed: the next {@link #fetchUpdates} applies them in their place in the log. Blocks for the write.
     *
     * @param updates one or more updates
     * @return the revision after the record
     * @throws IllegalArgumentException if {@code updates} is empty or the encoded updates exceed
     *     {@link RevisionedSegment#MAX_UPDATE_BYTES}
     * @throws io.sluice.errors.SegmentSealedException if the segment is sealed
     */
    public long updateStateUnconditionally(List<? extends U> updates) {
        Objects.requireNonNull(updates, "updates");
        if (updates.isEmpty()) {
            throw new IllegalArgumentException("at least one update is needed");
        }
        return segment.writeUnconditionally(encodeUpdates(updates));
    }

    /**
     * Writes {@code initial} as the first record of the log, only if the log is empty (a conditional append at
     * revision 0); otherwise reads the state that is there. Blocks for the I/O.
     *
     * @return true if {@code initial} was written, false if the log already had data (the local copy is then
     *     brought up to date)
     * @throws io.sluice.errors.SegmentSealedException if the segment is sealed
     */
    public boolean initialize(S initial) {
        Objects.requireNonNull(initial, "initial");
        long revision = segment.writeConditionally(0, encodeState(initial));
        if (revision == RevisionedSegment.CONFLICT) {
            fetchUpdates();
            return false;
        }
        lock.lock();
        try {
            if (local.revision() < revision) {
                local = new Local<>(initial, revision);
            }
        } finally {
            lock.unlock();
        }
        return true;
    }

    /**
     * Compacts the log: appends the current full state (conditionally, retried like {@link #updateState}), moves the
     * mark to the revision where that record starts (never backwards: a later mark set meanwhile stays), and
     * truncates the log there. Synchronizers behind the truncation start again from the mark. Blocks for the I/O.
     *
     * @return the revision of the full-state record (the mark)
     * @throws IllegalStateException if the log holds no state yet
     * @throws DeadlineExceededException if other writers won every race until the update timeout passed
     * @throws io.sluice.errors.SegmentSealedException if the segment is sealed
     */
    public long compact() {
        return compact(s -> s);
    }

    /**
     * As {@link #compact()}, writing {@code compactor}'s answer for the current state as the full state instead of
     * the state itself (it may be called several times, after conflicts).
     *
     * @param compactor returns the full state to write, or {@code null} to write nothing
     * @return the revision of the full-state record (the mark), or {@link RevisionedSegment#NO_MARK} if
     *     {@code compactor} returned {@code null} and nothing was written
     */
    public long compact(Function<? super S, ? extends S> compactor) {
        Objects.requireNonNull(compactor, "compactor");
        Deadline deadline = Deadline.after(updateTimeout);
        long markAt;
        for (int conflicts = 0; ; conflicts++) {
            Local<S> seen = fetched();
            S full = compactor.apply(seen.state());
            if (full == null) {
                return RevisionedSegment.NO_MARK;
            }
            long revision = segment.writeConditionally(seen.revision(), encodeState(full));
            if (revision != RevisionedSegment.CONFLICT) {
                lock.lock();
                try {
                    if (local.revision() == seen.revision()) {
                        local = new Local<>(full, revision);
                    }
                } finally {
                    lock.unlock();
                }
                markAt = seen.revision();
                break;
            }
            checkDeadline(deadline, conflicts + 1, "compaction");
        }
        for (int conflicts = 0; ; conflicts++) {
            long mark = segment.mark();
            if ((mark != RevisionedSegment.NO_MARK && mark >= markAt) || segment.compareAndSetMark(mark, markAt)) {
                break;
            }
            checkDeadline(deadline, conflicts + 1, "mark update");
        }
        // the mark is at or after markAt, so the full state it points to survives this truncation
        segment.truncateTo(markAt);
        return markAt;
    }

    /** Fetches and returns the local copy, which must hold a state. */
    private Local<S> fetched() {
        fetchUpdates();
        Local<S> seen = local();
        if (seen.state() == null) {
            throw new IllegalStateException("log " + segment.segment() + " holds no state yet: initialize it first");
        }
        return seen;
    }

    private void checkDeadline(Deadline deadline, int conflicts, String what) {
        if (deadline.expired()) {
            throw new DeadlineExceededException("the " + what + " of log " + segment.segment() + " lost " + conflicts
                    + " races to other writers within " + updateTimeout);
        }
    }

    /** Our updates were appended at {@code seen.revision()}: apply them unless the local copy already moved past. */
    private S applyOwn(Local<S> seen, List<? extends U> updates, long revision) {
        lock.lock();
        try {
            if (local.revision() == seen.revision()) {
                S s = local.state();
                for (U u : updates) {
                    s = next(s, u);
                }
                local = new Local<>(s, revision);
            }
            return local.state();
        } finally {
            lock.unlock();
        }
    }

    /** Applies decoded records under the lock, skipping those the local copy already reflects. */
    private void apply(List<Entry<S, U>> entries) {
        if (entries.isEmpty()) {
            return;
        }
        lock.lock();
        try {
            Local<S> l = local;
            for (Entry<S, U> e : entries) {
                if (e.end() <= l.revision()) {
                    continue;
                }
                if (e.state() != null) {
                    l = new Local<>(e.state(), e.end());
                    continue;
                }
                if (e.start() != l.revision()) {
                    throw new IllegalStateException("log " + segment.segment() + ": records from " + e.start()
                            + " cannot follow the local copy at revision " + l.revision());
                }
                S s = l.state();
                if (s != null) {
                    for (U u : e.updates()) {
                        s = next(s, u);
                    }
                }
                // updates before any full state have nothing to apply to: skip them
                l = new Local<>(s, e.end());
            }
            local = l;
        } finally {
            lock.unlock();
        }
    }

    private S next(S state, U update) {
        return Objects.requireNonNull(applyUpdate.apply(state, update), "applyUpdate returned null");
    }

    // ------------------------------------------------------------------ records

    /**
     * Decodes records (outside the lock).
     *
     * @param fromFullState drop records before the first full state (reading from a mark or a truncated start)
     */
    private List<Entry<S, U>> decode(List<RevisionedSegment.Revisioned> records, boolean fromFullState) {
        List<Entry<S, U>> out = new ArrayList<>(records.size());
        boolean seenState = !fromFullState;
        for (RevisionedSegment.Revisioned r : records) {
            ByteBuffer b = r.update();
            if (b.remaining() < Integer.BYTES) {
                throw new ProtocolException("record ending at revision " + r.revision() + " of log " + segment.segment()
                        + " is too short (" + b.remaining() + " bytes) to be a state or updates");
            }
            int type = b.getInt();
            if (type == FULL_STATE) {
                S state = Objects.requireNonNull(stateCodec.decode(b.slice()), "stateCodec.decode returned null");
                out.add(new Entry<>(r.startRevision(), r.revision(), state, null));
                seenState = true;
            } else if (type == UPDATES) {
                if (seenState) {
                    out.add(new Entry<>(r.startRevision(), r.revision(), null, decodeUpdates(b, r.revision())));
                }
            } else {
                throw new ProtocolException("record ending at revision " + r.revision() + " of log " + segment.segment()
                        + " has unknown type " + type + " (1 = full state, 2 = updates)");
            }
        }
        return out;
    }

    private List<U> decodeUpdates(ByteBuffer b, long revision) {
        List<U> updates = new ArrayList<>();
        while (b.hasRemaining()) {
            int n = b.remaining() >= Integer.BYTES ? b.getInt() : -1;
            if (n < 0 || n > b.remaining()) {
                throw new ProtocolException("updates record ending at revision " + revision + " of log "
                        + segment.segment() + " is malformed (update length " + n + ", " + b.remaining() + " bytes left)");
            }
            ByteBuffer one = b.slice(b.position(), n);
            b.position(b.position() + n);
            updates.add(Objects.requireNonNull(updateCodec.decode(one), "updateCodec.decode returned null"));
        }
        return updates;
    }

    private ByteBuffer encodeState(S state) {
        ByteBuffer s = stateCodec.encode(state);
        return ByteBuffer.allocate(Integer.BYTES + s.remaining()).putInt(FULL_STATE).put(s.duplicate()).flip();
    }

    private ByteBuffer encodeUpdates(List<? extends U> updates) {
        List<ByteBuffer> encoded = new ArrayList<>(updates.size());
        long size = Integer.BYTES;
        for (U u : updates) {
            ByteBuffer b = updateCodec.encode(Objects.requireNonNull(u, "updates must not contain null"));
            encoded.add(b);
            size += Integer.BYTES + b.remaining();
        }
        if (size > RevisionedSegment.MAX_UPDATE_BYTES) {
            throw new IllegalArgumentException(updates.size() + " updates take " + size + " bytes, more than one record"
                    + " may hold (" + RevisionedSegment.MAX_UPDATE_BYTES + ")");
        }
        ByteBuffer out = ByteBuffer.allocate((int) size).putInt(UPDATES);
        for (ByteBuffer b : encoded) {
            out.putInt(b.remaining()).put(b.duplicate());
        }
        return out.flip();
    }

    @Override
    public String toString() {
        Local<S> l = local();
        return "StateSynchronizer[" + segment.segment() + " at revision " + l.revision() + "]";
    }
}
