package io.sluice.server;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.sluice.server.controller.SegmentAdmin;
import io.sluice.wire.AppendSetup;
import io.sluice.wire.GetSegmentAttribute;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.LocateOffset;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.OffsetLocated;
import io.sluice.wire.Reply;
import io.sluice.wire.SegmentAttribute;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.StreamSegmentInfo;
import io.sluice.wire.WireProtocol;

/**
 * Queries of a {@link SegmentContainer}'s segments other than reads and table queries: SetupAppend, segment info,
 * attributes, LocateOffset, and the in-process admin views. The wire queries run under the container lock (inside
 * {@link SegmentContainer#query}); the admin views take it themselves.
 */
final class ContainerQueries {
    private final ContainerState state;

    ContainerQueries(ContainerState state) {
        this.state = state;
    }

    /** @return the answer to SetupAppend: the writer's last event number in the segment */
    Reply setupAppend(SegmentContainer.QueryContext ctx, SetupAppend r) {
        Optional<Segment> s = ctx.segment(r.segment());
        if (s.isEmpty() || s.get().isTable()) {
            return new NoSuchSegment(r.requestId(), r.segment(), "", -1);
        }
        long last = s.get().attributes.getOrDefault(r.writerId(), WireProtocol.NULL_ATTRIBUTE_VALUE);
        // the writer resends from `last` on: its appends are accepted again
        state.writerResumed(r.segment(), r.writerId());
        return new AppendSetup(r.requestId(), r.segment(), r.writerId(), last);
    }

    Reply streamSegmentInfo(SegmentContainer.QueryContext ctx, GetStreamSegmentInfo r) {
        Optional<Segment> o = ctx.segment(r.segmentName());
        if (o.isEmpty()) {
            return new NoSuchSegment(r.requestId(), r.segmentName(), "", -1);
        }
        Segment s = o.get();
        return new StreamSegmentInfo(r.requestId(), r.segmentName(), true, s.sealed, false, s.lastModifiedMillis, s.length(),
                s.startOffset());
    }

    Reply attribute(SegmentContainer.QueryContext ctx, GetSegmentAttribute r) {
        Optional<Segment> o = ctx.segment(r.segmentName());
        if (o.isEmpty()) {
            return new NoSuchSegment(r.requestId(), r.segmentName(), "", -1);
        }
        return new SegmentAttribute(r.requestId(), o.get().attributes.getOrDefault(r.attributeId(), WireProtocol.NULL_ATTRIBUTE_VALUE));
    }

    Reply locateOffset(SegmentContainer.QueryContext ctx, LocateOffset r) {
        Optional<Segment> o = ctx.segment(r.segment());
        if (o.isEmpty()) {
            return new NoSuchSegment(r.requestId(), r.segment(), "", -1);
        }
        Segment s = o.get();
        long length = s.length();
        long target = Math.max(r.targetOffset(), s.startOffset());
        if (s.isTable() || target >= length) {
            return new OffsetLocated(r.requestId(), r.segment(), length);
        }
        Map.Entry<Long, Boolean> floor = s.boundaries.floorEntry(target);
        long p = floor == null ? s.startOffset() : Math.max(floor.getKey(), s.startOffset());
        // walk event headers from a known boundary; only memory-resident data is scanned under the lock
        while (p < target) {
            if (length - p < 8) {
                return new OffsetLocated(r.requestId(), r.segment(), length);
            }
            byte[] header = readHeaderIfInMemory(s, p);
            if (header == null) {
                return new OffsetLocated(r.requestId(), r.segment(), Math.min(length, Math.max(target, p)));
            }
            ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.BIG_ENDIAN);
            int type = h.getInt();
            int len = h.getInt();
            if (type != 0 || len < 0) {
                return new OffsetLocated(r.requestId(), r.segment(), length);
            }
            p += 8L + len;
        }
        return new OffsetLocated(r.requestId(), r.segment(), Math.min(p, length));
    }

    private static byte[] readHeaderIfInMemory(Segment s, long offset) {
        for (SegmentData.Chunk c : s.data.chunks()) {
            if (c.offset() <= offset && offset + 8 <= c.offset() + c.length()) {
                if (c instanceof SegmentData.MemoryChunk m) {
                    byte[] b = new byte[8];
                    m.copy(offset, b, 0, 8);
                    return b;
                }
                return null;
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- admin views (take the lock)

    /** @return the names of transient segments (deleted at recovery: their connections are gone) */
    List<String> transientSegments() {
        return state.locked(() -> state.segments.values().stream().filter(s -> s.kind == Segment.Kind.TRANSIENT)
                .map(s -> s.name).toList());
    }

    /** @return a read-only copy of a segment's state for in-process callers, or empty */
    Optional<SegmentAdmin.SegmentInfo> info(String name) {
        return state.locked(() -> {
            Segment s = state.segments.get(name);
            return s == null ? Optional.<SegmentAdmin.SegmentInfo>empty()
                    : Optional.of(new SegmentAdmin.SegmentInfo(name, s.startOffset(), s.length(), s.sealed, s.isTable(),
                            s.lastModifiedMillis));
        });
    }

    /** @return every segment name in the container */
    Collection<String> segmentNames() {
        return state.locked(() -> List.copyOf(state.segments.keySet()));
    }
}
