package io.sluice.segment;

import java.util.List;
import java.util.Objects;
import java.util.UUID;

import io.sluice.segment.DelegationTokenProvider;
import io.sluice.common.Deadline;
import io.sluice.connection.Lease;
import io.sluice.errors.IncompatibleServerException;
import io.sluice.errors.InvalidRequestException;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.wire.CreateSegment;
import io.sluice.wire.DeleteSegment;
import io.sluice.wire.GetSegmentAttribute;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.LocateOffset;
import io.sluice.wire.MergeSegments;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.OffsetLocated;
import io.sluice.wire.Reply;
import io.sluice.wire.SealSegment;
import io.sluice.wire.SegmentAlreadyExists;
import io.sluice.wire.SegmentAttribute;
import io.sluice.wire.SegmentAttributeUpdated;
import io.sluice.wire.SegmentCreated;
import io.sluice.wire.SegmentDeleted;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentIsTruncated;
import io.sluice.wire.SegmentSealed;
import io.sluice.wire.SegmentTruncated;
import io.sluice.wire.SegmentsMerged;
import io.sluice.wire.StreamSegmentInfo;
import io.sluice.wire.TruncateSegment;
import io.sluice.wire.UpdateSegmentAttribute;
import io.sluice.wire.WireProtocol;

/**
 * Metadata of one segment: its info, offsets and attributes, and the commands that change it as a whole (create,
 * seal, truncate, merge, delete). Every method is one request through {@link SegmentCalls}, so a moved segment, an
 * expired token and a lost connection are retried there; error replies that answer the question (a missing segment
 * for {@link #delete}, a sealed one for {@link #seal}) are taken as answers. Conditional appends are the
 * {@link RevisionedSegment}'s, which keeps the append session they need.
 *
 * <p>Thread-safe; every method blocks for its request.
 */
public final class SegmentMetadataClient {
    /** The first wire version with {@code LocateOffset}. */
    public static final int LOCATE_OFFSET_VERSION = 17;
    /** Value of an attribute that is not set (Pravega's {@code NULL_VALUE}). */
    public static final long NO_VALUE = WireProtocol.NULL_ATTRIBUTE_VALUE;

    private final SegmentCalls calls;
    private final String segment;
    private final DelegationTokenProvider tokens;

    /**
     * @param calls the segment-call layer
     * @param segment the qualified segment name
     * @param tokens the delegation tokens for the segment's stream, {@code null} without auth
     */
    public SegmentMetadataClient(SegmentCalls calls, String segment, DelegationTokenProvider tokens) {
        this.calls = Objects.requireNonNull(calls, "calls");
        this.segment = Objects.requireNonNull(segment, "segment");
        this.tokens = tokens;
    }

    /** @return the segment this client is about */
    public String segment() {
        return segment;
    }

    /**
     * @return the segment's info
     * @throws NoSuchSegmentException if the segment does not exist (or was deleted)
     */
    public SegmentInfo info() {
        return info(null);
    }

    /**
     * As {@link #info()}, retrying no longer than {@code deadline}.
     *
     * @param deadline the caller's deadline, {@code null} for the retry policy's alone
     */
    public SegmentInfo info(Deadline deadline) {
        String what = "info of " + segment;
        StreamSegmentInfo i = calls.call(segment, tokens, what, (id, token) -> new GetStreamSegmentInfo(id, segment,
                token), StreamSegmentInfo.class, deadline);
        if (!i.exists() || i.isDeleted()) {
            throw new NoSuchSegmentException("segment " + segment + " does not exist");
        }
        if (i.startOffset() < 0 || i.writeOffset() < i.startOffset()) {
            throw new ProtocolException("segment store says segment " + segment + " starts at " + i.startOffset()
                    + " and ends at " + i.writeOffset());
        }
        return new SegmentInfo(segment, i.isSealed(), i.startOffset(), i.writeOffset(), i.lastModified());
    }

    /** @return the first readable offset (0 unless truncated) */
    public long startOffset() {
        return info().startOffset();
    }

    /** @return the segment's length: the offset of its next append */
    public long length() {
        return info().length();
    }

    /**
     * @param attribute the attribute's id
     * @return its value, or {@link #NO_VALUE} if it is not set
     * @throws NoSuchSegmentException if the segment does not exist
     */
    public long attribute(UUID attribute) {
        Objects.requireNonNull(attribute, "attribute");
        return calls.call(segment, tokens, "attribute " + attribute + " of " + segment,
                (id, token) -> new GetSegmentAttribute(id, segment, attribute, token), SegmentAttribute.class, null)
                .value();
    }

    /**
     * Sets an attribute to {@code value} if it is {@code expected} now; atomic on the segment store.
     *
     * @param expected the value the attribute must have, {@link #NO_VALUE} for "not set"
     * @param value the new value, {@link #NO_VALUE} to remove it
     * @return true if it was set, false if it was not {@code expected}
     * @throws NoSuchSegmentException if the segment does not exist
     * @throws SegmentSealedException if the segment is sealed
     */
    public boolean compareAndSetAttribute(UUID attribute, long expected, long value) {
        Objects.requireNonNull(attribute, "attribute");
        return calls.call(segment, tokens, "update of attribute " + attribute + " of " + segment,
                (id, token) -> new UpdateSegmentAttribute(id, segment, attribute, value, expected, token),
                SegmentAttributeUpdated.class, null).success();
    }

    /**
     * Creates the segment (no scaling policy of its own, no rollover size: the server's default).
     *
     * @return true if created, false if it existed already
     */
    public boolean create() {
        Reply r = calls.call(segment, tokens, "creation of " + segment,
                (id, token) -> new CreateSegment(id, segment, CreateSegment.NO_SCALE, 0, token, 0), null);
        return switch (r) {
            case SegmentCreated c -> true;
            case SegmentAlreadyExists e -> false;
            default -> throw calls.unexpected(segment, r, "CreateSegment");
        };
    }

    /**
     * Seals the segment: no appends after its current end. Sealing a sealed segment does nothing.
     *
     * @return the segment's final length
     * @throws NoSuchSegmentException if the segment does not exist
     */
    public long seal() {
        Reply r = calls.call(segment, tokens, "seal of " + segment, (id, token) -> new SealSegment(id, segment, token),
                null);
        return switch (r) {
            case SegmentSealed s -> length();
            case SegmentIsSealed s -> length();
            default -> throw calls.unexpected(segment, r, "SealSegment");
        };
    }

    /**
     * Discards the segment's data before {@code offset}. Truncating at or below the current start does nothing.
     *
     * @throws IllegalArgumentException if {@code offset} is negative
     * @throws InvalidRequestException if {@code offset} is beyond the segment's end
     * @throws NoSuchSegmentException if the segment does not exist
     */
    public void truncate(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("truncation offset must not be negative: " + offset);
        }
        Reply r = calls.call(segment, tokens, "truncation of " + segment + " at " + offset,
                (id, token) -> new TruncateSegment(id, segment, offset, token), null);
        switch (r) {
            case SegmentTruncated t -> {
                // done
            }
            case SegmentIsTruncated t -> {
                // the segment store answers so both below the start (nothing to do) and beyond the end (refused)
                if (t.startOffset() < offset) {
                    throw new InvalidRequestException("cannot truncate " + segment + " at " + offset
                            + ": beyond its end");
                }
            }
            default -> throw calls.unexpected(segment, r, "TruncateSegment");
        }
    }

    /**
     * Deletes the segment.
     *
     * @return true if deleted, false if there was no such segment
     */
    public boolean delete() {
        Reply r = calls.call(segment, tokens, "deletion of " + segment,
                (id, token) -> new DeleteSegment(id, segment, token), null);
        return switch (r) {
            case SegmentDeleted d -> true;
            case NoSuchSegment n -> false;
            default -> throw calls.unexpected(segment, r, "DeleteSegment");
        };
    }

    /**
     * Appends the whole of sealed segment {@code source} to this segment and deletes {@code source} (how a
     * transaction commits). Both must be served by the same segment store: a transaction's segment and its parent
     * are.
     *
     * @param source the qualified name of a sealed segment
     * @return this segment's length after the merge
     * @throws NoSuchSegmentException if either segment does not exist
     * @throws SegmentSealedException if this segment is sealed
     */
    public long mergeFrom(String source) {
        Objects.requireNonNull(source, "source");
        return calls.call(segment, tokens, "merge of " + source + " into " + segment,
                (id, token) -> new MergeSegments(id, segment, source, token, List.of()), SegmentsMerged.class, null)
                .newTargetWriteOffset();
    }

    /**
     * Where the event boundary at or after {@code offset} is, by the segment store's index (Pravega's
     * {@code LocateOffset}, wire version {@value #LOCATE_OFFSET_VERSION} and later). The segment store's wire version
     * (from the Hello exchange of the connection) is checked first: an older one does not know the command.
     *
     * @param offset an offset in the segment
     * @return the offset the segment store located
     * @throws SegmentTruncatedException if {@code offset} was truncated away
     * @throws IncompatibleServerException if the segment store speaks a wire version before
     *     {@value #LOCATE_OFFSET_VERSION}; the message names its version
     */
    public long locateOffset(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must not be negative: " + offset);
        }
        int version = calls.retrying("wire version of the segment store of " + segment, null, () -> {
            try (Lease lease = calls.lease(segment, Deadline.after(calls.config().requestTimeout()))) {
                return lease.flow().connection().negotiatedVersion();
            }
        });
        if (version < LOCATE_OFFSET_VERSION) {
            throw new IncompatibleServerException("the segment store of " + segment + " speaks wire version "
                    + version + ", which has no LocateOffset (wire version " + LOCATE_OFFSET_VERSION
                    + " and later): it cannot locate event boundaries");
        }
        return calls.call(segment, tokens, "location of offset " + offset + " in " + segment,
                (id, token) -> new LocateOffset(id, segment, offset, token), OffsetLocated.class, null).offset();
    }

    @Override
    public String toString() {
        return "SegmentMetadataClient[" + segment + "]";
    }
}
