package io.sluice.segment;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

import io.sluice.segment.DelegationTokenProvider;
import io.sluice.common.Deadline;
import io.sluice.common.KeyHash;
import io.sluice.common.Retry;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.Lease;
import io.sluice.connection.ReplyErrors;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.InvalidRequestException;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.errors.TokenExpiredException;
import io.sluice.errors.WrongHostException;
import io.sluice.wire.AppendEncoder;
import io.sluice.wire.AppendSetup;
import io.sluice.wire.AuthTokenCheckFailed;
import io.sluice.wire.ConditionalAppend;
import io.sluice.wire.ConditionalCheckFailed;
import io.sluice.wire.DataAppended;
import io.sluice.wire.ErrorReply;
import io.sluice.wire.Event;
import io.sluice.wire.EventFrames;
import io.sluice.wire.GetSegmentAttribute;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.InvalidEventNumber;
import io.sluice.wire.InvalidWireCommandException;
import io.sluice.wire.KeepAlive;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.Reply;
import io.sluice.wire.Request;
import io.sluice.wire.SegmentAttribute;
import io.sluice.wire.SegmentAttributeUpdated;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentIsTruncated;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.SegmentTruncated;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.StreamSegmentInfo;
import io.sluice.wire.TruncateSegment;
import io.sluice.wire.UpdateSegmentAttribute;
import io.sluice.wire.WireProtocol;
import io.sluice.wire.WrongHost;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One segment used as a log of updates, with optimistic concurrency: the client behind a state synchronizer
 * (Pravega's {@code RevisionedStreamClient}). A <em>revision</em> is a segment offset at an update boundary: the
 * segment's length right after some update. Updates are stored as event frames ({@code [i32 0][i32 n][n bytes]}),
 * so every update of {@code n} bytes advances the revision by {@code n + 8}.
 *
 * <p><b>Conditional writes.</b> {@link #writeConditionally} appends an update only if the segment's length is still
 * the revision the caller last saw, using {@code ConditionalAppend} on an append session of its own (a random
 * writer id, event numbers increasing by one per write). Of several clients writing at the same revision exactly one
 * wins; the others learn that someone else wrote first and may read, recompute and try again.
 *
 * <p><b>Exactly once across reconnects.</b> When the connection fails with an append unacknowledged, the client
 * sets the session up again with the same writer id; {@code AppendSetup.lastEventNumber} (the segment attribute the
 * server updates atomically with each append) says whether the lost append is durable. If it is, the write
 * succeeded and is not sent again — this check is needed on a real Pravega segment store, which appends a resent
 * event number a second time instead of deduplicating it; Sluice's server would deduplicate it anyway. If it is not,
 * the same append (same event number, same expected offset) is sent again. Should the first copy still be applied
 * after the check (it was in flight on the dead connection), the two copies cannot both land:
 * <ul>
 *   <li>Sluice's server deduplicates by event number before any other check and acknowledges the second copy;</li>
 *   <li>a real server refuses the second copy either by its offset check (both copies expect the same offset) —
 *       {@code ConditionalCheckFailed} — or by its compare-and-set of the writer attribute, which answers
 *       {@code InvalidEventNumber} and closes the connection; the next setup then reports the write durable.</li>
 * </ul>
 * A conditional check that fails for a resent copy is therefore resolved by reading the writer's attribute once
 * more: the segment has moved past the expected offset, so the first copy either landed already (attribute ≥ the
 * event number: the write succeeded) or never will (a real conflict). Unconditional writes are resent under the
 * same {@code lastEventNumber} rule and are protected by the same attribute compare-and-set.
 *
 * <p><b>Reads</b> never block at the tail: {@link #readFrom} reads up to the segment's length as of the call.
 *
 * <p>Thread-safe. Writes through one instance are serialised (one append in flight at a time); reads and metadata
 * calls run concurrently, each on a flow of its own. Every method blocks the calling thread for the I/O it needs,
 * retrying lost connections with the configured {@link Retry}.
 */
public final class RevisionedSegment implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RevisionedSegment.class);

    /** What {@link #writeConditionally} returns when the segment was not at the expected revision. */
    public static final long CONFLICT = -1L;
    /** Value of {@link #mark()} when no mark is set (Pravega's {@code NULL_VALUE}). */
    public static final long NO_MARK = WireProtocol.NULL_ATTRIBUTE_VALUE;
    /** The segment attribute holding the mark: Pravega's {@code RevisionStreamClientMark}. */
    public static final UUID MARK_ATTRIBUTE = KeyHash.attributeId("RevisionStreamClientMark");
    /** Largest update, in bytes: Pravega's largest event (8 MiB). */
    public static final int MAX_UPDATE_BYTES = 8 * 1024 * 1024;
    /** Bytes asked for per ReadSegment. */
    private static final int READ_CHUNK_BYTES = 1024 * 1024;

    /**
     * One update read from the log.
     *
     * @param revision the revision just after the update (where reading resumes to see what came after it)
     * @param update the update's bytes (a read-only buffer of its own)
     */
    public record Revisioned(long revision, ByteBuffer update) {
        /** Checks the values. */
        public Revisioned {
            Objects.requireNonNull(update, "update");
            update = update.asReadOnlyBuffer();
        }

        /** @return the revision at which this update starts: {@code revision - 8 - update length} */
        public long startRevision() {
            return revision - Event.HEADER_SIZE - update.remaining();
        }

        @Override
        public ByteBuffer update() {
            return update.duplicate();
        }

        @Override
        public String toString() {
            return "Revisioned[revision=" + revision + ", " + update.remaining() + " bytes]";
        }
    }

    private final String segment;
    private final SegmentCalls calls;
    private final Supplier<DelegationTokenProvider> tokens;
    private final SegmentCalls.Config config;
    private final UUID writerId = UUID.randomUUID();

    /** One append at a time: the holder of the permit owns {@link #session} and {@link #lastEventNumber}. */
    private final Semaphore appendPermit = new Semaphore(1);
    /** Confined to the holder of {@link #appendPermit}: the append session, or null before setup / after a failure. */
    private Lease session;
    /** Confined to the holder of {@link #appendPermit}: the token the session was set up with. */
    private String sessionToken = "";
    /** Confined to the holder of {@link #appendPermit}: the last event number handed out. */
    private long lastEventNumber;
    private volatile boolean closed;

    /**
     * Creates a client over a client's shared segment stores; see the main constructor.
     */
    public RevisionedSegment(String segment, SegmentStores stores, Supplier<DelegationTokenProvider> tokens,
                             SegmentCalls.Config config) {
        this(segment, stores.pool(), stores.locator(), tokens, config);
    }

    /**
     * Creates a client; it connects on first use.
     *
     * @param segment the qualified segment name (e.g. {@code scope/_RGgroup/0.#epoch.0})
     * @param pool where connections come from (not closed by this client)
     * @param locator where the segment lives
     * @param tokens the delegation tokens for the segment's stream (a {@code null} result = no auth)
     * @param config retry and timeout
     */
    public RevisionedSegment(String segment, ConnectionPool pool, SegmentLocator locator,
                             Supplier<DelegationTokenProvider> tokens, SegmentCalls.Config config) {
        this.segment = Objects.requireNonNull(segment, "segment");
        this.tokens = Objects.requireNonNull(tokens, "tokens");
        this.config = Objects.requireNonNull(config, "config");
        this.calls = new SegmentCalls(pool, locator, config);
    }

    /** @return the segment this client works on */
    public String segment() {
        return segment;
    }

    /** @return the writer id of this client's append session */
    public UUID writerId() {
        return writerId;
    }

    // ------------------------------------------------------------------ writes

    /**
     * Appends {@code update} only if the segment's length is {@code expectedRevision}. All or nothing: the update is
     * one event, appended whole or not at all. Blocks until the segment store answers (retrying lost connections)
     * and waits for any other write of this client to finish first. Reads {@code update} from its position to its
     * limit without moving them.
     *
     * @param expectedRevision the revision the caller last saw: the segment length the append requires
     * @return the new revision ({@code expectedRevision + 8 + update length}), or {@link #CONFLICT} if the segment's
     *     length was not {@code expectedRevision} (someone else wrote first)
     * @throws IllegalArgumentException if {@code expectedRevision} is negative or the update exceeds
     *     {@link #MAX_UPDATE_BYTES}
     * @throws NoSuchSegmentException if the segment does not exist
     * @throws SegmentSealedException if the segment is sealed
     * @throws io.sluice.errors.RetriesExhaustedException if the segment store stayed unreachable; the update may or
     *     may not have been appended (read the log to find out)
     * @throws StreamingInterruptedException if interrupted while waiting for another write of this client
     * @throws IllegalStateException if this client is closed
     */
    public long writeConditionally(long expectedRevision, ByteBuffer update) {
        if (expectedRevision < 0) {
            throw new IllegalArgumentException("expectedRevision must not be negative: " + expectedRevision);
        }
        return append(expectedRevision, update);
    }

    /**
     * Appends {@code update} at the end of the segment, whatever its length. The update is one event, appended whole
     * and exactly once. Blocks like {@link #writeConditionally}.
     *
     * @return the revision just after the update as the segment store reported it; when the acknowledgement was lost
     *     with a connection and the reconnect found the update durable, the segment's length at that moment, which is
     *     at or after the update's own revision
     * @throws IllegalArgumentException if the update exceeds {@link #MAX_UPDATE_BYTES}
     * @throws NoSuchSegmentException if the segment does not exist
     * @throws SegmentSealedException if the segment is sealed
     * @throws io.sluice.errors.RetriesExhaustedException if the segment store stayed unreachable
     * @throws StreamingInterruptedException if interrupted while waiting for another write of this client
     * @throws IllegalStateException if this client is closed
     */
    public long writeUnconditionally(ByteBuffer update) {
        return append(PendingAppend.UNCONDITIONAL, update);
    }

    private long append(long expectedOffset, ByteBuffer update) {
        Objects.requireNonNull(update, "update");
        if (update.remaining() > MAX_UPDATE_BYTES) {
            throw new IllegalArgumentException("an update of " + update.remaining() + " bytes exceeds the largest ("
                    + MAX_UPDATE_BYTES + " bytes)");
        }
        checkOpen();
        try {
            appendPermit.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while waiting to append to " + segment, e);
        }
        try {
            checkOpen();
            // a copy of its own: a frame may still be queued when an append gives up, and the caller may reuse its buffer
            ByteBuffer data = ByteBuffer.allocate(update.remaining()).put(update.duplicate()).flip().asReadOnlyBuffer();
            PendingAppend a = new PendingAppend(++lastEventNumber, expectedOffset, data);
            String what = (a.conditional() ? "conditional append at " + expectedOffset + " to " : "append to ") + segment;
            return config.retry().run(what, () -> attempt(a));
        } finally {
            appendPermit.release();
            if (closed) {
                closeSessionIfIdle();
            }
        }
    }

    /** An append being made; confined to the holder of the append permit. */
    private static final class PendingAppend {
        static final long UNCONDITIONAL = Long.MIN_VALUE;

        final long eventNumber;
        final long expectedOffset;
        final ByteBuffer data;
        /** Copies sent so far (a copy counts as sent once handed to the connection). */
        int sent;

        PendingAppend(long eventNumber, long expectedOffset, ByteBuffer data) {
            this.eventNumber = eventNumber;
            this.expectedOffset = expectedOffset;
            this.data = data;
        }

        boolean conditional() {
            return expectedOffset != UNCONDITIONAL;
        }

        /** For a conditional append: the segment's length right after it, the only length it can produce. */
        long revisionAfter() {
            return expectedOffset + EventFrames.framedSize(data.remaining());
        }
    }

    /** One try of an append: (re)sets the session up if needed, sends, waits for the outcome. */
    private long attempt(PendingAppend a) {
        Deadline deadline = Deadline.after(config.requestTimeout());
        boolean keepSession = false;
        try {
            if (session == null) {
                long serverLast = setUpSession(deadline);
                if (serverLast != WireProtocol.NULL_ATTRIBUTE_VALUE && serverLast > a.eventNumber) {
                    throw new ProtocolException("segment store reports event number " + serverLast + " for writer "
                            + writerId + " on " + segment + ", beyond the last one it sent (" + a.eventNumber + ")");
                }
                if (serverLast == a.eventNumber) {
                    // durable before the connection failed; its acknowledgement was lost with it: never resend
                    LOG.debug("append {} of writer {} to {} was durable before the reconnect", a.eventNumber, writerId, segment);
                    keepSession = true;
                    return a.conditional() ? a.revisionAfter() : latestRevision();
                }
            }
            long requestId = session.nextRequestId();
            a.sent++;
            if (a.conditional()) {
                session.send(new ConditionalAppend(writerId, a.eventNumber, a.expectedOffset, new Event(a.data), requestId));
            } else {
                // encoded on the connection's writer thread, straight into its buffer; a.data stays unchanged
                List<ByteBuffer> event = List.of(a.data);
                long eventNumber = a.eventNumber;
                session.flow().connection().sendFrames(out -> AppendEncoder.writeBlockEndOnly(out, writerId, event,
                        eventNumber, requestId));
            }
            long result = awaitOutcome(a, deadline);
            keepSession = true;
            return result;
        } finally {
            if (!keepSession) {
                dropSession();
            }
        }
    }

    private long awaitOutcome(PendingAppend a, Deadline deadline) {
        while (true) {
            Reply r = session.await(deadline);
            switch (r) {
                case DataAppended ack -> {
                    if (ack.eventNumber() >= a.eventNumber) {
                        if (a.conditional()) {
                            return a.revisionAfter();
                        }
                        return ack.currentSegmentWriteOffset() >= 0 ? ack.currentSegmentWriteOffset() : latestRevision();
                    }
                    throw unexpectedEventNumber("DataAppended", ack.eventNumber(), a);
                }
                case ConditionalCheckFailed failed -> {
                    if (failed.eventNumber() == a.eventNumber) {
                        if (a.sent > 1 && writerAttribute() >= a.eventNumber) {
                            // an earlier copy landed while we were reconnecting; this copy found the segment moved
                            return a.revisionAfter();
                        }
                        return CONFLICT;
                    }
                    throw unexpectedEventNumber("ConditionalCheckFailed", failed.eventNumber(), a);
                }
                case KeepAlive k -> {
                    // liveness only
                }
                case SegmentIsSealed s -> throw new SegmentSealedException("cannot append to " + segment
                        + ": the segment is sealed");
                case NoSuchSegment n -> throw new NoSuchSegmentException("cannot append to " + segment
                        + ": the segment does not exist");
                case InvalidEventNumber e -> throw new ConnectionFailedException("segment store rejected event number "
                        + e.eventNumber() + " of writer " + writerId + " on " + segment + "; setting the session up again");
                case ErrorReply e -> throw calls.failure(segment, tokens.get(), sessionToken, e);
                default -> throw new ProtocolException("segment store answered an append to " + segment + " with " + r.type());
            }
        }
    }

    /**
     * A reply about another append than the one outstanding. Appends take turns (the append permit), and every earlier
     * one was resolved on this session or ended it, so no honest reply names another event number: the session's
     * replies cannot be trusted, and waiting on would only run into the request timeout. The session is dropped and the
     * append retried at once; the new session's {@code AppendSetup} tells whether it landed.
     */
    private ConnectionFailedException unexpectedEventNumber(String reply, long eventNumber, PendingAppend a) {
        return new ConnectionFailedException("segment store answered append " + a.eventNumber + " of writer " + writerId
                + " on " + segment + " with " + reply + " for event " + eventNumber + "; setting the session up again");
    }

    /** Opens a lease and sets the append session up on it; returns the server's last event number of this writer. */
    private long setUpSession(Deadline deadline) {
        Lease l = calls.lease(segment, deadline);
        boolean kept = false;
        try {
            long id = l.nextRequestId();
            String token = calls.token(tokens.get(), deadline);
            sessionToken = token;
            l.send(new SetupAppend(id, writerId, segment, token));
            while (true) {
                Reply r = l.await(deadline);
                switch (r) {
                    case AppendSetup s -> {
                        session = l;
                        kept = true;
                        return s.lastEventNumber();
                    }
                    case KeepAlive k -> {
                        // liveness only
                    }
                    case NoSuchSegment n -> throw new NoSuchSegmentException("cannot append to " + segment
                            + ": the segment does not exist");
                    case ErrorReply e -> throw calls.failure(segment, tokens.get(), sessionToken, e);
                    default -> throw new ProtocolException("segment store answered SetupAppend on " + segment
                            + " with " + r.type());
                }
            }
        } finally {
            if (!kept) {
                l.close();
            }
        }
    }

    private void dropSession() {
        Lease l = session;
        session = null;
        if (l != null) {
            l.close();
        }
    }

    // ------------------------------------------------------------------ reads

    /**
     * Reads every update from {@code revision} to the segment's end as of this call (its length is asked first; the
     * read never waits for more). Blocks for the reads, retrying lost connections.
     *
     * @param revision where to start: a revision this client returned, or the start or a mark of the segment
     * @return the updates in order, each with the revision just after it; empty when {@code revision} is the end
     * @throws SegmentTruncatedException if the segment was truncated beyond {@code revision}
     * @throws IllegalArgumentException if {@code revision} is negative or beyond the segment's end
     * @throws NoSuchSegmentException if the segment does not exist
     * @throws ProtocolException if the data at {@code revision} is not a sequence of events
     */
    public List<Revisioned> readFrom(long revision) {
        if (revision < 0) {
            throw new IllegalArgumentException("revision must not be negative: " + revision);
        }
        StreamSegmentInfo info = info();
        if (revision < info.startOffset()) {
            throw new SegmentTruncatedException("segment " + segment + " was truncated at " + info.startOffset()
                    + ": revision " + revision + " is no longer readable");
        }
        long end = info.writeOffset();
        if (revision > end) {
            throw new IllegalArgumentException("revision " + revision + " is beyond the end of segment " + segment
                    + " (length " + end + ")");
        }
        List<Revisioned> out = new ArrayList<>();
        EventFrames.Reassembler updates = new EventFrames.Reassembler(revision, MAX_UPDATE_BYTES);
        long offset = revision;
        while (offset < end) {
            ByteBuffer data = readChunk(offset, (int) Math.min(end - offset, READ_CHUNK_BYTES));
            int n = (int) Math.min(data.remaining(), end - offset);
            data.limit(data.position() + n);
            offset += n;
            updates.add(data);
            for (ByteBuffer e; (e = take(updates, revision)) != null; ) {
                ByteBuffer copy = ByteBuffer.allocate(e.remaining()).put(e).flip();
                out.add(new Revisioned(updates.offset(), copy));
            }
        }
        if (updates.buffered() > 0) {
            throw new ProtocolException("segment " + segment + " ends at " + end + " inside an event that starts at "
                    + updates.offset() + ": not a log of updates, or " + revision + " is not an update boundary");
        }
        return out;
    }

    /** @return the next whole update of {@code updates}, or {@code null}; its header must be an event's */
    private ByteBuffer take(EventFrames.Reassembler updates, long revision) {
        try {
            return updates.take();
        } catch (InvalidWireCommandException e) {
            throw new ProtocolException("segment " + segment + " holds no update at " + updates.offset() + " ("
                    + e.getMessage() + "): not a log of updates, or " + revision + " is not an update boundary", e);
        }
    }

    private ByteBuffer readChunk(long offset, int length) {
        Reply r = request("read of " + segment + " at " + offset,
                (id, token) -> new ReadSegment(segment, offset, length, token, id));
        return switch (r) {
            case SegmentRead read -> {
                if (read.offset() != offset) {
                    throw new ProtocolException("segment store answered a read of " + segment + " at " + offset
                            + " with data at " + read.offset());
                }
                if (!read.data().hasRemaining()) {
                    throw new ProtocolException("segment store returned no data for " + segment + " at " + offset
                            + ", below the length it reported");
                }
                yield read.data();
            }
            case SegmentIsTruncated t -> throw new SegmentTruncatedException("segment " + segment + " was truncated at "
                    + t.startOffset() + " while reading it at " + offset);
            default -> throw unexpected(r, "ReadSegment");
        };
    }

    // ------------------------------------------------------------------ metadata

    /**
     * @return the segment's start offset: the oldest revision still readable (0 unless truncated). Blocks for one
     *     request.
     * @throws NoSuchSegmentException if the segment does not exist
     */
    public long startRevision() {
        return info().startOffset();
    }

    /**
     * @return the segment's length: the latest revision. Blocks for one request.
     * @throws NoSuchSegmentException if the segment does not exist
     */
    public long latestRevision() {
        return info().writeOffset();
    }

    /**
     * @return the mark (the {@code RevisionStreamClientMark} attribute), or {@link #NO_MARK} if none is set. Blocks
     *     for one request.
     * @throws NoSuchSegmentException if the segment does not exist
     */
    public long mark() {
        return attribute(MARK_ATTRIBUTE, "mark");
    }

    /**
     * Sets the mark to {@code newMark} if it is {@code expected} now. Atomic on the segment store. Blocks for one
     * request.
     *
     * @param expected the mark as last read, {@link #NO_MARK} for "not set"
     * @param newMark the new mark: a revision, or {@link #NO_MARK} to clear it
     * @return true if the mark was set, false if it was not {@code expected}
     * @throws IllegalArgumentException if a value is negative and not {@link #NO_MARK}
     * @throws NoSuchSegmentException if the segment does not exist
     * @throws SegmentSealedException if the segment is sealed
     */
    public boolean compareAndSetMark(long expected, long newMark) {
        if ((expected < 0 && expected != NO_MARK) || (newMark < 0 && newMark != NO_MARK)) {
            throw new IllegalArgumentException("marks are revisions or NO_MARK: expected " + expected + ", new " + newMark);
        }
        Reply r = request("mark update on " + segment,
                (id, token) -> new UpdateSegmentAttribute(id, segment, MARK_ATTRIBUTE, newMark, expected, token));
        return switch (r) {
            case SegmentAttributeUpdated u -> u.success();
            default -> throw unexpected(r, "UpdateSegmentAttribute");
        };
    }

    /**
     * Discards the segment's data before {@code revision}; readers of older revisions then get a
     * {@link SegmentTruncatedException}. Truncating below the current start does nothing. Blocks for one request.
     *
     * @param revision the new start: an update boundary at or below the segment's length
     * @throws IllegalArgumentException if {@code revision} is negative
     * @throws InvalidRequestException if {@code revision} is beyond the segment's end
     * @throws NoSuchSegmentException if the segment does not exist
     */
    public void truncateTo(long revision) {
        if (revision < 0) {
            throw new IllegalArgumentException("revision must not be negative: " + revision);
        }
        Reply r = request("truncation of " + segment + " at " + revision,
                (id, token) -> new TruncateSegment(id, segment, revision, token));
        switch (r) {
            case SegmentTruncated t -> {
                // done
            }
            case SegmentIsTruncated t -> {
                // the segment store says so both below the start (already done) and beyond the end (refused)
                if (t.startOffset() < revision) {
                    throw new InvalidRequestException("cannot truncate " + segment + " at " + revision
                            + ": beyond its end");
                }
            }
            default -> throw unexpected(r, "TruncateSegment");
        }
    }

    private StreamSegmentInfo info() {
        Reply r = request("info of " + segment, (id, token) -> new GetStreamSegmentInfo(id, segment, token));
        return switch (r) {
            case StreamSegmentInfo info when info.exists() && !info.isDeleted() -> info;
            case StreamSegmentInfo info -> throw new NoSuchSegmentException("segment " + segment + " does not exist");
            default -> throw unexpected(r, "GetStreamSegmentInfo");
        };
    }

    private long attribute(UUID id, String what) {
        Reply r = request(what + " of " + segment, (rid, token) -> new GetSegmentAttribute(rid, segment, id, token));
        return switch (r) {
            case SegmentAttribute a -> a.value();
            default -> throw unexpected(r, "GetSegmentAttribute");
        };
    }

    /** The last event number of this client's writer the segment holds durably. */
    private long writerAttribute() {
        return attribute(writerId, "writer attribute");
    }

    /** One request/reply through the segment-call layer; error replies other than WrongHost and expiry included. */
    private Reply request(String what, SegmentCalls.RequestBuilder builder) {
        return calls.call(segment, tokens.get(), what, builder, null);
    }

    private SluiceException unexpected(Reply r, String request) {
        return calls.unexpected(segment, r, request);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the revisioned segment client of " + segment + " is closed");
        }
    }

    // ------------------------------------------------------------------ close

    /** Closes the session unless an append holds it (that append closes it on its way out). */
    private void closeSessionIfIdle() {
        if (appendPermit.tryAcquire()) {
            try {
                dropSession();
            } finally {
                appendPermit.release();
            }
        }
    }

    /**
     * Closes the append session. A write in progress finishes first (it closes the session on its way out); later
     * calls of the write methods throw {@link IllegalStateException}. Idempotent; does not block.
     */
    @Override
    public void close() {
        closed = true;
        closeSessionIfIdle();
    }

    @Override
    public String toString() {
        return "RevisionedSegment[" + segment + ", writer " + writerId + "]";
    }
}
