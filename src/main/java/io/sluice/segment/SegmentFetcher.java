package io.sluice.segment;

import java.nio.ByteBuffer;
import java.util.Objects;

import io.sluice.segment.DelegationTokenProvider;
import io.sluice.common.Deadline;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.RetriableException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.wire.Event;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.Reply;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentIsTruncated;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.WireCommandType;

/**
 * Reads of one segment that are not a stream of its data: the bytes of one range, one event by its offset and
 * length (what an {@code EventPointer} holds), and the long-poll wait for data past an offset. All go through
 * {@link SegmentCalls}, so a moved segment and an expired token are handled there.
 *
 * <p>Thread-safe; every method blocks for its requests.
 */
public final class SegmentFetcher {

    /** How a {@link #awaitData wait} ended. */
    public enum Wait {
        /** The segment has data at the offset, or may have (the wait was cut short by a reconnect): read to see. */
        CHANGED,
        /** The segment is sealed at the offset: nothing will ever come. */
        SEALED,
        /** The deadline passed with nothing new. */
        TIMED_OUT
    }

    private final SegmentCalls calls;
    private final String segment;
    private final DelegationTokenProvider tokens;
    private final SegmentMetadataClient metadata;

    /**
     * @param calls the segment-call layer
     * @param segment the qualified segment name
     * @param tokens the delegation tokens for the segment's stream, {@code null} without auth
     */
    public SegmentFetcher(SegmentCalls calls, String segment, DelegationTokenProvider tokens) {
        this.calls = Objects.requireNonNull(calls, "calls");
        this.segment = Objects.requireNonNull(segment, "segment");
        this.tokens = tokens;
        this.metadata = new SegmentMetadataClient(calls, segment, tokens);
    }

    /** @return the segment this fetcher reads */
    public String segment() {
        return segment;
    }

    /**
     * Reads exactly the bytes {@code [offset, offset + length)}, in as many reads as the segment store needs.
     *
     * @return a buffer of its own holding the bytes
     * @throws SegmentTruncatedException if the range was truncated away
     * @throws IllegalArgumentException if the range goes past the segment's end, or is negative
     * @throws io.sluice.errors.NoSuchSegmentException if the segment does not exist
     */
    public ByteBuffer fetch(long offset, int length) {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("cannot read " + length + " bytes at " + offset + " of " + segment);
        }
        SegmentInfo info = metadata.info();
        if (offset < info.startOffset()) {
            throw new SegmentTruncatedException("bytes " + offset + " to " + (offset + length) + " of segment "
                    + segment + " were truncated away: it now starts at offset " + info.startOffset());
        }
        if (offset + length > info.length()) {
            throw new IllegalArgumentException("segment " + segment + " is only " + info.length()
                    + " bytes long: there are no bytes " + offset + " to " + (offset + length));
        }
        ByteBuffer out = ByteBuffer.allocate(length);
        while (out.hasRemaining()) {
            long at = offset + out.position();
            int want = out.remaining();
            Reply reply = calls.call(segment, tokens, "read of " + segment + " at " + at,
                    (id, token) -> new ReadSegment(segment, at, want, token, id), null);
            switch (reply) {
                case SegmentRead r -> {
                    if (r.offset() != at || !r.data().hasRemaining()) {
                        throw new ProtocolException("segment store answered a read of " + segment + " at " + at
                                + " with " + r.data().remaining() + " bytes at " + r.offset());
                    }
                    ByteBuffer data = r.data();
                    out.put(data.limit(data.position() + Math.min(data.remaining(), out.remaining())));
                }
                case SegmentIsTruncated t -> throw new SegmentTruncatedException("segment " + segment
                        + " was truncated at " + t.startOffset() + " while reading it at " + at);
                default -> throw calls.unexpected(segment, reply, "ReadSegment");
            }
        }
        return out.flip();
    }

    /**
     * Reads the event whose frame starts at {@code offset} and is {@code frameLength} bytes long (its 8-byte header
     * included), as an {@code EventPointer} records it.
     *
     * @return the event's bytes, read-only
     * @throws IllegalArgumentException if there is no event of that size there
     * @throws SegmentTruncatedException if the event was truncated away
     */
    public ByteBuffer fetchEvent(long offset, int frameLength) {
        if (frameLength < Event.HEADER_SIZE) {
            throw new IllegalArgumentException("an event frame is at least " + Event.HEADER_SIZE + " bytes: "
                    + frameLength);
        }
        ByteBuffer frame = fetch(offset, frameLength);
        int type = frame.getInt(0);
        int length = frame.getInt(4);
        if (type != WireCommandType.EVENT.code() || length != frameLength - Event.HEADER_SIZE) {
            throw new IllegalArgumentException("there is no event at offset " + offset + " of " + segment
                    + ": the bytes there start with type " + type + " and length " + length + ", not an event of "
                    + (frameLength - Event.HEADER_SIZE) + " bytes");
        }
        return frame.slice(Event.HEADER_SIZE, length).asReadOnlyBuffer();
    }

    /**
     * Waits until the segment has data at {@code offset}, up to {@code deadline}: one read at that offset, which
     * the segment store answers when data arrives there (a long poll). A lost connection, a moved segment or an
     * expired token end the wait early with {@link Wait#CHANGED} after being handled, so the caller reads again
     * and loops.
     *
     * @return how the wait ended
     * @throws io.sluice.errors.SluiceException if the segment store refused the read for another reason
     */
    public Wait awaitData(long offset, Deadline deadline) {
        Reply reply;
        try {
            reply = calls.callOnce(segment, tokens, (id, token) -> new ReadSegment(segment, offset, 1, token, id),
                    deadline);
        } catch (DeadlineExceededException e) {
            return Wait.TIMED_OUT;
        } catch (ConnectionFailedException e) {
            return Wait.CHANGED;
        } catch (RetriableException e) {
            return deadline.expired() ? Wait.TIMED_OUT : Wait.CHANGED; // wrong host or token: handled, read again
        }
        return switch (reply) {
            case SegmentRead r -> !r.data().hasRemaining() && r.endOfSegment() ? Wait.SEALED : Wait.CHANGED;
            // how the segment store ends a read parked at the tail when the segment is sealed meanwhile
            case SegmentIsSealed s -> Wait.SEALED;
            case SegmentIsTruncated t -> Wait.CHANGED;
            default -> throw calls.unexpected(segment, reply, "ReadSegment");
        };
    }

    @Override
    public String toString() {
        return "SegmentFetcher[" + segment + "]";
    }
}
