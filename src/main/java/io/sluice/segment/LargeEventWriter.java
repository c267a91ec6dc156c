package io.sluice.segment;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

import io.sluice.common.Deadline;
import io.sluice.connection.Lease;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.SluiceException;
import io.sluice.wire.AppendSetup;
import io.sluice.wire.AuthTokenCheckFailed;
import io.sluice.wire.ConditionalAttributeUpdate;
import io.sluice.wire.ConditionalCheckFailed;
import io.sluice.wire.CreateTransientSegment;
import io.sluice.wire.DataAppended;
import io.sluice.wire.DeleteSegment;
import io.sluice.wire.ErrorReply;
import io.sluice.wire.GetSegmentAttribute;
import io.sluice.wire.InvalidEventNumber;
import io.sluice.wire.KeepAlive;
import io.sluice.wire.LargeEventPieces;
import io.sluice.wire.MergeSegments;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.Reply;
import io.sluice.wire.SegmentAttribute;
import io.sluice.wire.SegmentCreated;
import io.sluice.wire.SegmentDeleted;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentsMerged;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.WireOutput;
import io.sluice.wire.WireProtocol;
import io.sluice.wire.WrongHost;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes events larger than an append frame carries the way Pravega's Java client does (its
 * {@code LargeEventWriter}, wire-protocol.md §5.6): on one flow, {@code CreateTransientSegment(parent)} →
 * {@code SetupAppend} on the transient segment → the events' framed bytes in pieces of at most 8 MiB, each a
 * {@code ConditionalBlockEnd(eventNumber = i, expectedOffset = i × 8 MiB)} → every {@code DataAppended} →
 * {@code MergeSegments(target = parent, source = transient)}. Until the merge nothing is visible in the parent; the
 * merge adds all the bytes at once, so readers see the events whole or not at all.
 *
 * <p>A lost connection, a moved segment, an expired token or a transient segment the server lost start over with
 * a fresh transient segment (the failed one is deleted, over the next connection if its own was lost), as the call
 * layer's retry
 * policy says. A sealed or missing parent fails at once with {@link SegmentSealedException}: the caller finds the
 * successor and writes there.
 *
 * <p>Heap: the payloads are not copied as a whole; at most {@link #WINDOW} encoded pieces (8 MiB each) are in
 * flight at a time, each encoded once into a buffer of its own that the connection writes as it is.
 *
 * <p>Thread-safe and stateless apart from the call layer; every write blocks until it is merged or failed.
 */
public final class LargeEventWriter {
    private static final Logger LOG = LoggerFactory.getLogger(LargeEventWriter.class);
    /** Pieces sent and not yet acknowledged at most. */
    public static final int WINDOW = 2;

    private final SegmentCalls calls;

    /**
     * @param calls the segment-call layer; its request timeout bounds each wait for a reply
     */
    public LargeEventWriter(SegmentCalls calls) {
        this.calls = Objects.requireNonNull(calls, "calls");
    }

    /**
     * Appends the events to {@code segment} atomically, after everything already in it.
     *
     * @param segment the qualified name of the segment the events go to (the parent)
     * @param tokens the delegation tokens of its stream, {@code null} without auth
     * @param payloads the events' bytes, in order (not copied; must not change until this returns)
     * @return the segment's length after the merge ({@code -1} if the server does not say)
     * @throws SegmentSealedException if the segment is sealed or gone: nothing was written to it
     * @throws io.sluice.errors.RetriesExhaustedException if connections kept failing
     */
    public long write(String segment, DelegationTokenProvider tokens, List<ByteBuffer> payloads) {
        return write(segment, tokens, payloads, () -> { });
    }

    /**
     * Appends the events to {@code segment} atomically, after everything already in it, running {@code beforeMerge}
     * once the transient segment holds every piece and just before the merge is sent (on every attempt: it must
     * return at once when called again). A writer with several large writes under way merges them in order this way,
     * while the pieces of a later one travel during an earlier one's merge.
     *
     * @param segment the qualified name of the segment the events go to (the parent)
     * @param tokens the delegation tokens of its stream, {@code null} without auth
     * @param payloads the events' bytes, in order (not copied; must not change until this returns)
     * @param beforeMerge blocks until the merge may go (e.g. until the writer's earlier writes are done)
     * @return the segment's length after the merge ({@code -1} if the server does not say)
     * @throws SegmentSealedException if the segment is sealed or gone: nothing was written to it
     * @throws io.sluice.errors.RetriesExhaustedException if connections kept failing
     */
    public long write(String segment, DelegationTokenProvider tokens, List<ByteBuffer> payloads,
                      Runnable beforeMerge) {
        Objects.requireNonNull(segment, "segment");
        Objects.requireNonNull(beforeMerge, "beforeMerge");
        LargeEventPieces pieces = new LargeEventPieces(payloads);
        Attempts attempts = new Attempts(UUID.randomUUID());
        return calls.retrying("large write of " + pieces.framedBytes() + " bytes to " + segment, null,
                () -> attempt(segment, tokens, pieces, attempts, beforeMerge));
    }

    /**
     * What one write's attempts hand on to the next (used by one attempt at a time).
     *
     * <p>{@code proof} is the id of the parent's attribute that the write's merge sets (atomically with the merge,
     * {@link #MERGED}): a merge whose reply was lost leaves the question whether it took effect, and the answer is
     * in the parent. The next attempt first deletes that transient segment: if the delete succeeds it was not
     * merged (and can no longer be); if it is gone, the proof attribute tells merged (done) from deleted unmerged
     * (as Sluice's server does when the connection closes). Either way a late merge can no longer land, so a new
     * transient segment never writes the event a second time.
     */
    private static final class Attempts {
        final UUID proof;
        /**
         * Transient segments of failed attempts that could not be deleted on their own connection (it was lost):
         * the next attempt deletes them (a real segment store would keep them for good).
         */
        final List<String> leftovers = new ArrayList<>();
        /** The transient segment whose merge was sent and not answered, or null. */
        String mergeUnanswered;

        Attempts(UUID proof) {
            this.proof = proof;
        }
    }

    /** The value a large write's merge gives its proof attribute on the parent. */
    static final long MERGED = 1;

    private Duration timeout() {
        return calls.config().requestTimeout();
    }

    private long attempt(String parent, DelegationTokenProvider tokens, LargeEventPieces pieces, Attempts attempts,
                         Runnable beforeMerge) {
        UUID writerId = UUID.randomUUID();
        try (Lease lease = calls.lease(parent, Deadline.after(timeout()))) {
            String token = calls.token(tokens, Deadline.after(timeout()));
            if (attempts.mergeUnanswered != null) {
                long length = settleUnansweredMerge(lease, parent, tokens, token, attempts);
                if (length != NOT_MERGED) {
                    return length;
                }
            }
            attempts.leftovers.removeIf(old -> deleteQuietly(lease, old, token));
            long id = lease.nextRequestId();
            lease.send(new CreateTransientSegment(id, writerId, parent, token));
            String transientSegment = switch (reply(lease, id)) {
                case SegmentCreated c -> c.segment();
                case ErrorReply e -> throw failure(parent, null, tokens, token, e);
                case Reply other -> throw unexpected(parent, other, "CreateTransientSegment");
            };
            boolean merged = false;
            boolean mergeSent = false;
            try {
                id = lease.nextRequestId();
                lease.send(new SetupAppend(id, writerId, transientSegment, token));
                switch (reply(lease, id)) {
                    case AppendSetup s when s.lastEventNumber() == Long.MIN_VALUE -> { }
                    case AppendSetup s -> throw new ConnectionFailedException("the server says transient segment "
                            + transientSegment + " was written to already (event " + s.lastEventNumber() + ")");
                    case ErrorReply e -> throw failure(parent, transientSegment, tokens, token, e);
                    case Reply other -> throw unexpected(transientSegment, other, "SetupAppend");
                }
                sendPieces(lease, parent, transientSegment, writerId, tokens, token, pieces);
                beforeMerge.run();
                id = lease.nextRequestId();
                mergeSent = true;
                lease.send(new MergeSegments(id, parent, transientSegment, token, List.of(
                        new ConditionalAttributeUpdate(attempts.proof, ConditionalAttributeUpdate.REPLACE, MERGED,
                                WireProtocol.NULL_ATTRIBUTE_VALUE))));
                Reply answer = reply(lease, id);
                mergeSent = false;   // answered: whatever it says, the merge's outcome is known
                long length = switch (answer) {
                    case SegmentsMerged m -> m.newTargetWriteOffset();
                    case ErrorReply e -> throw failure(parent, null, tokens, token, e);
                    case Reply other -> throw unexpected(parent, other, "MergeSegments");
                };
                merged = true;
                LOG.debug("merged {} bytes in {} pieces into {}", pieces.framedBytes(), pieces.count(), parent);
                return length;
            } finally {
                if (mergeSent) {
                    // the merge may have taken effect: the next attempt finds out before it writes anything
                    attempts.mergeUnanswered = transientSegment;
                } else if (!merged && !deleteQuietly(lease, transientSegment, token)) {
                    attempts.leftovers.add(transientSegment);
                }
            }
        }
    }

    /** What {@link #settleUnansweredMerge} answers when the merge did not take effect. */
    private static final long NOT_MERGED = Long.MIN_VALUE;

    /**
     * Finds out whether the merge of {@code attempts.mergeUnanswered}, sent by an earlier attempt whose connection
     * was lost before the answer, took effect: deletes that transient segment (deleted: it was not merged, and now
     * never will be), and if it was gone already, reads the proof attribute the merge sets on the parent.
     *
     * @return the parent's length if it was merged ({@code -1}: not known), else {@link #NOT_MERGED}
     */
    private long settleUnansweredMerge(Lease lease, String parent, DelegationTokenProvider tokens, String token,
                                       Attempts attempts) {
        String source = attempts.mergeUnanswered;
        long id = lease.nextRequestId();
        lease.send(new DeleteSegment(id, source, token));
        switch (reply(lease, id)) {
            case SegmentDeleted d -> {
                LOG.debug("the unanswered merge of {} had not taken effect: starting over", source);
                attempts.mergeUnanswered = null;
                return NOT_MERGED;
            }
            case NoSuchSegment n -> { }
            case ErrorReply e -> throw failure(parent, source, tokens, token, e);
            case Reply other -> throw unexpected(source, other, "DeleteSegment");
        }
        id = lease.nextRequestId();
        lease.send(new GetSegmentAttribute(id, parent, attempts.proof, token));
        long proof = switch (reply(lease, id)) {
            case SegmentAttribute a -> a.value();
            case ErrorReply e -> throw failure(parent, null, tokens, token, e);
            case Reply other -> throw unexpected(parent, other, "GetSegmentAttribute");
        };
        attempts.mergeUnanswered = null;
        if (proof == MERGED) {
            LOG.debug("the unanswered merge of {} into {} had taken effect", source, parent);
            return -1;
        }
        LOG.debug("transient segment {} was deleted unmerged: starting over", source);
        return NOT_MERGED;
    }

    /** Sends every piece, at most {@link #WINDOW} unacknowledged at a time, and waits for all acknowledgements. */
    private void sendPieces(Lease lease, String parent, String transientSegment, UUID writerId,
                            DelegationTokenProvider tokens, String token, LargeEventPieces pieces) {
        int count = pieces.count();
        int sent = 0;
        int acked = 0;
        while (acked < count) {
            while (sent < count && sent - acked < WINDOW) {
                WireOutput frame = new WireOutput(LargeEventPieces.OVERHEAD + pieces.lengthOf(sent));
                pieces.writePiece(frame, writerId, sent, lease.nextRequestId());
                // a heap buffer of its own: the connection writes it to the socket as it is, without a second copy
                lease.flow().connection().sendFrames(ByteBuffer.wrap(frame.array(), 0, frame.position()));
                sent++;
            }
            Reply r = lease.await(Deadline.after(timeout()));
            switch (r) {
                case DataAppended d when d.writerId().equals(writerId) -> {
                    if (d.eventNumber() >= sent) {
                        throw new ProtocolException("segment store acknowledged piece " + d.eventNumber() + " of "
                                + count + " of a large event on " + transientSegment);
                    }
                    acked = Math.max(acked, (int) d.eventNumber() + 1);
                }
                case ConditionalCheckFailed c -> throw new ConnectionFailedException("the segment store refused piece "
                        + c.eventNumber() + " of a large event on " + transientSegment + ": its offset check failed; "
                        + "starting over with a new transient segment");
                case InvalidEventNumber n -> throw new ConnectionFailedException("the segment store refused event "
                        + "number " + n.eventNumber() + " on " + transientSegment + "; starting over with a new transient segment");
                case KeepAlive k -> { }
                case ErrorReply e -> throw failure(parent, transientSegment, tokens, token, e);
                default -> LOG.debug("large write to {} ignores {}", transientSegment, r);
            }
        }
    }

    /** Waits for the reply to request {@code id}, skipping keep-alives and late replies to earlier requests. */
    private Reply reply(Lease lease, long id) {
        Deadline deadline = Deadline.after(timeout());
        while (true) {
            Reply r = lease.await(deadline);
            if (r.requestId() == id) {
                return r;
            }
        }
    }

    /**
     * What an error reply means here. To CreateTransientSegment and MergeSegments (requests about the parent), a
     * sealed or missing segment means the parent: the write ends and the caller goes to the successor. (A Pravega
     * segment store names the merge's source in the reply whichever of the two it is about, so the name does not
     * tell; Pravega's client reads these replies the same way.) To the appends, it means the transient segment,
     * which is retried with a new one. WrongHost and expired tokens are handled by the call layer (about the parent,
     * whose segment store serves the transient segment too) and retried; the rest maps as usual.
     */
    private SluiceException failure(String parent, String transientSegment, DelegationTokenProvider tokens,
                                    String token, ErrorReply e) {
        boolean aboutParent = transientSegment == null;
        return switch (e) {
            case SegmentIsSealed s when aboutParent -> new SegmentSealedException("segment " + parent + " is sealed");
            case NoSuchSegment n when aboutParent -> new SegmentSealedException("segment " + parent
                    + " does not exist (any more)");
            case NoSuchSegment n -> new ConnectionFailedException("transient segment " + transientSegment
                    + " is gone; starting over with a new one");
            case SegmentIsSealed s -> new ConnectionFailedException("transient segment " + transientSegment
                    + " is sealed; starting over with a new one");
            case WrongHost w -> calls.failure(parent, tokens, token, w);
            case AuthTokenCheckFailed a -> calls.failure(parent, tokens, token, a);
            default -> calls.failure(aboutParent ? parent : transientSegment, tokens, token, e);
        };
    }

    private SluiceException unexpected(String segment, Reply reply, String request) {
        return new ProtocolException("segment store answered " + request + " for " + segment + " with "
                + reply.type());
    }

    /**
     * Best effort: a transient segment that will not be merged is deleted rather than left behind.
     *
     * @return true if the segment store answered (deleted, or it was gone already), false if the flow failed first
     */
    private boolean deleteQuietly(Lease lease, String transientSegment, String token) {
        try {
            long id = lease.nextRequestId();
            lease.send(new DeleteSegment(id, transientSegment, token));
            Reply r = reply(lease, id);
            LOG.debug("deleted unmerged transient segment {}: {}", transientSegment, r.type());
            return true;
        } catch (SluiceException e) {
            LOG.debug("could not delete unmerged transient segment {} yet: {}", transientSegment, e.getMessage());
            return false;
        }
    }

    @Override
    public String toString() {
        return "LargeEventWriter";
    }
}
