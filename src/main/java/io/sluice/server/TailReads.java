package io.sluice.server;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

import io.sluice.wire.Bytes;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.Reply;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentIsTruncated;
import io.sluice.wire.SegmentRead;

/**
 * Reads of a {@link SegmentContainer}'s segments: ReadSegment answered from the applied state, and reads parked at
 * the tail of a segment (long polls) until a change gives them data, seals or deletes the segment, or their connection
 * goes away.
 *
 * <p>Every method but {@link #drop} runs under the container lock; replies to parked reads are effects, sent after it
 * is released.
 */
final class TailReads {
    private final ContainerState state;

    TailReads(ContainerState state) {
        this.state = state;
    }

    /** See {@link SegmentContainer#read}. */
    Object read(SegmentContainer.QueryContext ctx, ReadSegment r, ReplySink sink, Object owner) {
        Optional<Segment> o = ctx.segment(r.segment());
        if (o.isEmpty()) {
            return new NoSuchSegment(r.requestId(), r.segment(), "", r.offset());
        }
        Segment s = o.get();
        long offset = r.offset();
        if (s.isTable() && offset < s.length()) {
            return tableBytesGone(s, offset, r.requestId());
        }
        if (offset < s.startOffset()) {
            return new SegmentIsTruncated(r.requestId(), r.segment(), s.startOffset(), "", offset);
        }
        int max = Math.min(SegmentContainer.MAX_READ_BYTES, Math.max(8, r.suggestedLength()));
        if (offset < s.length()) {
            return readReply(s, offset, max, r.requestId(), false);
        }
        if (s.sealed) {
            return new SegmentRead(r.segment(), offset, false, true, Bytes.EMPTY, r.requestId());
        }
        s.parked.add(new Segment.ParkedRead(offset, max, r.requestId(), sink, owner));
        return null;
    }

    /**
     * Builds a SegmentRead of up to {@code max} bytes at {@code offset} (which is below the length). Bytes that lie
     * in one memory chunk are not copied: the reply is a view of it, so any number of replies of the same data (reads
     * parked at the tail, woken by one append) costs the server no more memory. A read across chunks is copied.
     *
     * <p>{@code atTail} is what a real Pravega 0.13 segment store says: true for a read parked at the tail (a long
     * poll) however much of the new data it returns, and for a read answered at once that wanted more than the
     * unsealed segment holds; false for a read answered at once whose length ends at or before the tail (even
     * exactly at it), and for any read of a sealed segment. {@code endOfSegment} says a sealed segment's read reached
     * its end.
     *
     * @param parked whether the read waited at the tail for this data
     */
    private static Object readReply(Segment s, long offset, int max, long requestId, boolean parked) {
        int n = (int) Math.min(max, s.length() - offset);
        boolean end = offset + n == s.length();
        boolean atTail = !s.sealed && (parked || n < max);
        boolean endOfSegment = end && s.sealed;
        if (s.data.chunkAt(offset) instanceof SegmentData.MemoryChunk m && offset + n <= m.offset() + m.length()) {
            return new SegmentRead(s.name, offset, atTail, endOfSegment, m.view(offset, n), requestId);
        }
        List<SegmentData.Chunk> refs = new ArrayList<>();
        for (SegmentData.Chunk c : s.data.chunks()) {
            if (c.offset() + c.length() > offset && c.offset() < offset + n && c instanceof SegmentData.StoredChunk) {
                refs.add(c);
            }
        }
        if (refs.isEmpty()) {
            byte[] bytes = s.data.read(offset, n, (chunk, from, dst, at, len) -> {
                throw new IllegalStateException("no stored chunk expected");
            });
            return new SegmentRead(s.name, offset, atTail, endOfSegment, ByteBuffer.wrap(bytes), requestId);
        }
        // some bytes are in chunk files: copy what is in memory now, read the files after the lock is released
        return new DeferredRead(s.name, offset, n, atTail, endOfSegment, requestId, List.copyOf(s.data.chunks()));
    }

    /** Completes parked reads that new data satisfies. Under the lock; replies are sent after it is released. */
    void wake(Segment s, List<Runnable> effects) {
        if (s.parked.isEmpty()) {
            return;
        }
        for (Iterator<Segment.ParkedRead> it = s.parked.iterator(); it.hasNext();) {
            Segment.ParkedRead p = it.next();
            if (p.offset() < s.length()) {
                it.remove();
                Object reply = s.isTable() ? tableBytesGone(s, p.offset(), p.requestId())
                        : readReply(s, p.offset(), p.maxLength(), p.requestId(), true);
                effects.add(() -> state.deliver(reply, p.sink()));
            }
        }
    }

    /** The answer to a read of a table segment's bytes below its length: they are not kept. */
    private static Reply tableBytesGone(Segment s, long offset, long requestId) {
        return new SegmentIsTruncated(requestId, s.name, s.length(), "", offset);
    }

    /** Answers every parked read of a segment that was sealed ({@code sealed}) or is gone. */
    void release(Segment s, List<Runnable> effects, boolean sealed) {
        for (Segment.ParkedRead p : s.parked) {
            Reply reply = sealed ? new SegmentIsSealed(p.requestId(), s.name, "", p.offset())
                    : new NoSuchSegment(p.requestId(), s.name, "", p.offset());
            effects.add(() -> p.sink().send(reply));
        }
        s.parked.clear();
    }

    /** Forgets the parked reads of a connection that went away. Takes the lock. */
    void drop(Object owner) {
        state.locked(() -> {
            for (Segment s : state.segments.values()) {
                if (!s.parked.isEmpty()) {
                    s.parked.removeIf(p -> p.owner() == owner);
                }
            }
        });
    }
}
