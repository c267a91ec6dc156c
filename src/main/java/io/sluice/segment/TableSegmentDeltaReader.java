package io.sluice.segment;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.common.Deadline;
import io.sluice.common.Threads;
import io.sluice.errors.InvalidRequestException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.wire.OperationUnsupported;
import io.sluice.wire.ReadTableEntriesDelta;
import io.sluice.wire.Reply;
import io.sluice.wire.TableEntriesDeltaRead;
import io.sluice.wire.TableEntry;

/**
 * Follows the changes to one table segment: a blocking iterator of {@link TableSegmentChanges}, each the entries
 * written since the previous one, that waits for new changes when it has seen them all. Made by
 * {@link TableSegmentClient#deltaReader(long)}.
 *
 * <h2>How it reads</h2>
 * A virtual thread of the reader's asks the segment store for the entries written since its position
 * ({@code ReadTableEntriesDelta}) and hands every non-empty answer to the caller, keeping at most
 * {@value #MAX_BUFFERED} batches ahead (then it waits for the caller). The segment store answers with the newest
 * value of each key written in the span it read (so a key written twice there appears once) and leaves removals out:
 * a caller that must see removals has to write something it recognises (a tombstone) instead. A real segment store
 * returns a batch in no particular order; the reader sorts it by version, which is the order of the writes.
 *
 * <h2>How it waits</h2>
 * A table segment is a segment whose length grows with every update and removal, and a delta read that reaches the
 * end says so. There the reader sends a {@code ReadSegment} at the table segment's length, which the segment store
 * answers only when the segment grows: the long poll readers of streams wait with. Once answered, the reader reads the
 * delta again, so a change is seen one round trip after it is made, without polling. Pravega 0.13 has no other way
 * to wait for a table: its Java client has no delta reads at all, and its Rust client's synchronizer polls when
 * asked. On a real Pravega 0.13 segment store the read at the tail waits without a time limit and is answered by the
 * next update or removal, with the new bytes (a sealed table answers it with its end); the embedded server,
 * which keeps a table's entries but not its bytes, answers it with {@code SegmentIsTruncated} at the new length, and
 * any read of a table segment below its length likewise. A connection that dies wakes the wait (its keep-alive notices
 * a silent death), and the reader reads again; the wait is also sent afresh every {@value #WAIT_SLICE_SECONDS}
 * seconds, in case a segment store forgot it. Each renewal leaves the old read waiting on the segment store until the
 * next change answers it (and the answer is dropped), which is why the renewals are rare.
 *
 * <h2>Positions</h2>
 * A position is an offset in the table segment at which an entry starts: 0, the table's length, or a
 * {@link TableSegmentChanges#position()}. A real segment store returns nothing for a position inside an entry; the
 * reader then fails with {@link InvalidRequestException} instead of asking again forever. If compaction discarded
 * the part of the table the position points into, the next batch says {@link TableSegmentChanges#reset()}.
 *
 * <h2>Failures</h2>
 * A moved segment, an expired token and lost connections are handled by {@link SegmentCalls} (with its retries). A
 * failure that stops the reader (the table was deleted: {@link io.sluice.errors.NoSuchSegmentException}; a table with
 * fixed-length keys, which real segment stores have no delta reads for, or a position inside an entry:
 * {@link InvalidRequestException}; a sealed table: {@link SegmentSealedException}; retries exhausted) is thrown by
 * the next call of {@link #hasNext()}, {@link #next()} or {@link #poll(Duration)} once the batches read before it
 * are taken; resume with a new reader from {@link #position()}.
 *
 * <p>Thread-safe: one thread may iterate while another closes. Close it when done; {@link #close()} wakes a caller
 * blocked in it, whose {@code hasNext()} then returns false.
 */
public final class TableSegmentDeltaReader implements Iterator<TableSegmentChanges>, AutoCloseable {
    /** Entries asked for per delta read by default. */
    public static final int DEFAULT_BATCH_SIZE = 1000;
    /** Batches read ahead of the caller at most. */
    public static final int MAX_BUFFERED = 2;
    /** Seconds a wait for a change lasts before it is sent again. */
    public static final long WAIT_SLICE_SECONDS = 600;

    private final SegmentCalls calls;
    private final String segment;
    private final DelegationTokenProvider tokens;
    private final SegmentFetcher fetcher;
    private final int batchSize;
    private final Thread thread;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a batch, a failure or the close arrives. */
    private final Condition available = lock.newCondition();
    /** Signalled when the caller took a batch, or on close. */
    private final Condition room = lock.newCondition();
    /** Guarded by lock: batches read and not yet taken, oldest first. */
    private final ArrayDeque<TableSegmentChanges> ready = new ArrayDeque<>();
    /** Guarded by lock: what stopped the reader's thread, if anything did. */
    private SluiceException failure;
    /** Guarded by lock. */
    private boolean closed;
    /** Guarded by lock: the position after the last batch the caller took. */
    private long position;

    TableSegmentDeltaReader(SegmentCalls calls, String segment, DelegationTokenProvider tokens, long fromPosition,
                            int batchSize) {
        if (fromPosition < 0) {
            throw new IllegalArgumentException("a delta read of table segment " + segment + " starts at a position of"
                    + " 0 or more: " + fromPosition);
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("a delta read asks for at least 1 entry: " + batchSize);
        }
        this.calls = Objects.requireNonNull(calls, "calls");
        this.segment = Objects.requireNonNull(segment, "segment");
        this.tokens = tokens;
        this.fetcher = new SegmentFetcher(calls, segment, tokens);
        this.batchSize = batchSize;
        this.position = fromPosition;
        this.thread = Threads.startVirtual("sluice-table-delta-" + segment, () -> run(fromPosition));
    }

    /** @return the table segment followed */
    public String segment() {
        return segment;
    }

    /**
     * @return the position after the last batch taken (the start position before any): a new reader from here sees
     *     every change this one has not returned yet
     */
    public long position() {
        lock.lock();
        try {
            return position;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until a batch of changes is there or the reader is closed.
     *
     * @return true if {@link #next()} has a batch, false once the reader is closed
     * @throws SluiceException the failure that stopped the reader, once the batches read before it are taken
     * @throws StreamingInterruptedException if the calling thread is interrupted (its flag is set again)
     */
    @Override
    public boolean hasNext() {
        return await(null);
    }

    /**
     * Waits for the next batch of changes.
     *
     * @throws NoSuchElementException if the reader is closed
     * @throws SluiceException the failure that stopped the reader
     */
    @Override
    public TableSegmentChanges next() {
        if (!hasNext()) {
            throw new NoSuchElementException("the delta reader of table segment " + segment + " is closed");
        }
        return take();
    }

    /**
     * Waits up to {@code timeout} for the next batch of changes.
     *
     * @return the batch, or empty if none came in time or the reader is closed
     * @throws SluiceException the failure that stopped the reader
     * @throws StreamingInterruptedException if the calling thread is interrupted (its flag is set again)
     */
    public Optional<TableSegmentChanges> poll(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        return await(Deadline.after(timeout)) ? Optional.of(take()) : Optional.empty();
    }

    /** Stops reading and wakes a caller waiting for a batch; batches not taken are dropped. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            ready.clear();
            available.signalAll();
            room.signalAll();
        } finally {
            lock.unlock();
        }
        // the reader's own thread: interrupting it ends the wait it may be in (a flow's await, a retry's sleep)
        thread.interrupt();
    }

    @Override
    public String toString() {
        return "TableSegmentDeltaReader[" + segment + " at " + position() + "]";
    }

    // ---------------------------------------------------------------- the caller's side

    /** @return true when a batch is ready; false when closed or the deadline passed */
    private boolean await(Deadline deadline) {
        lock.lock();
        try {
            while (true) {
                if (closed) {
                    return false;
                }
                if (!ready.isEmpty()) {
                    return true;
                }
                if (failure != null) {
                    throw failure;
                }
                if (deadline == null) {
                    available.await();
                } else {
                    long nanos = deadline.remainingNanos();
                    if (nanos <= 0) {
                        return false;
                    }
                    available.awaitNanos(nanos);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while waiting for changes to table segment "
                    + segment, e);
        } finally {
            lock.unlock();
        }
    }

    private TableSegmentChanges take() {
        lock.lock();
        try {
            TableSegmentChanges c = ready.poll();
            if (c == null) {
                throw new NoSuchElementException("the delta reader of table segment " + segment + " is closed");
            }
            position = c.position();
            room.signalAll();
            return c;
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- the reader's thread

    private void run(long from) {
        try {
            follow(from);
        } catch (RuntimeException e) {
            lock.lock();
            try {
                if (!closed) {
                    failure = e instanceof SluiceException s ? s : new SluiceException("the delta reader of table "
                            + "segment " + segment + " failed: " + e, e);
                    available.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    private boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    private void follow(long from) {
        long at = from;
        boolean woken = false;
        while (!isClosed()) {
            TableEntriesDeltaRead r = readDelta(at);
            if (woken && stuck(r, at)) {
                // the wait said the table grew, yet nothing moved: a dropped connection, or a position inside an entry
                long length = new TableSegmentClient(calls, segment, tokens).info().length();
                if (length > at) {
                    r = readDelta(at);
                    if (stuck(r, at)) {
                        throw new InvalidRequestException("position " + at + " of table segment " + segment + " ("
                                + length + " bytes long) is not where an entry starts: start a delta read at 0, at "
                                + "the table's length or at a position a delta read returned");
                    }
                }
            }
            long next = next(r, at);
            List<TableSegmentEntry> entries = sorted(segment, r.entries());
            if (!entries.isEmpty() || r.shouldClear()) {
                hand(new TableSegmentChanges(entries, r.shouldClear(), next));
            }
            boolean progressed = next > at;
            at = next;
            woken = (r.reachedEnd() || !progressed) && awaitGrowth(at);
        }
    }

    /** A real segment store answers a read that finds nothing with lastPosition 0: the position stays then. */
    static long next(TableEntriesDeltaRead r, long at) {
        return Math.max(at, r.lastPosition());
    }

    private static boolean stuck(TableEntriesDeltaRead r, long at) {
        return next(r, at) == at && r.entries().entries().isEmpty() && !r.shouldClear();
    }

    private TableEntriesDeltaRead readDelta(long at) {
        return readDelta(calls, segment, tokens, at, batchSize);
    }

    /** One {@code ReadTableEntriesDelta} from {@code at} through the call layer (also {@link TableSegmentClient#readDelta}). */
    static TableEntriesDeltaRead readDelta(SegmentCalls calls, String segment, DelegationTokenProvider tokens, long at,
                                           int batchSize) {
        Reply reply = calls.call(segment, tokens, "delta read of table segment " + segment + " from " + at,
                (id, token) -> new ReadTableEntriesDelta(id, segment, token, at, batchSize), null);
        return switch (reply) {
            case TableEntriesDeltaRead d -> d;
            case OperationUnsupported u -> throw new InvalidRequestException("the segment store has no delta reads of"
                    + " table segment " + segment + " (" + u.operationName() + "): Pravega reads no deltas of tables "
                    + "with fixed-length keys");
            default -> throw calls.unexpected(segment, reply, "ReadTableEntriesDelta");
        };
    }

    /** The entries of a delta read, ordered by version (the order of the writes). */
    static List<TableSegmentEntry> sorted(String segment, io.sluice.wire.TableEntries wire) {
        List<TableSegmentEntry> out = new ArrayList<>(wire.entries().size());
        for (TableEntry e : wire.entries()) {
            long version = e.key().keyVersion();
            if (version < 0) {
                throw new ProtocolException("segment store returned version " + version + " in a delta read of "
                        + "table segment " + segment);
            }
            out.add(new TableSegmentEntry(e.key().data(), e.value().data(), version));
        }
        out.sort(Comparator.comparingLong(TableSegmentEntry::version));
        return out;
    }

    /** Queues a batch for the caller, waiting while {@value #MAX_BUFFERED} are queued. */
    private void hand(TableSegmentChanges changes) {
        lock.lock();
        try {
            while (!closed && ready.size() >= MAX_BUFFERED) {
                room.await();
            }
            if (!closed) {
                ready.add(changes);
                available.signalAll();
            }
        } catch (InterruptedException e) {
            // close() interrupts; the loop sees closed and ends
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /**
     * @return true if the table may have grown past {@code at}, false if the wait ran out or the reader closed
     * @throws SegmentSealedException if the table segment is sealed: no change will ever come
     */
    private boolean awaitGrowth(long at) {
        if (isClosed()) {
            return false;
        }
        return switch (fetcher.awaitData(at, Deadline.after(Duration.ofSeconds(WAIT_SLICE_SECONDS)))) {
            case CHANGED -> !isClosed();
            case TIMED_OUT -> false;
            case SEALED -> throw new SegmentSealedException("table segment " + segment + " is sealed at " + at
                    + ": no change will come");
        };
    }
}
