package io.sluice.client;

import java.nio.ByteBuffer;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.sluice.auth.AccessOperation;
import io.sluice.controller.ControllerClient;
import io.sluice.controller.StreamSegments;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.segment.DelegationTokenProvider;
import io.sluice.segment.RevisionedSegment;
import io.sluice.segment.SegmentCalls;
import io.sluice.segment.SegmentStores;
import io.sluice.state.Revision;
import io.sluice.state.RevisionedStreamClient;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializer;

/**
 * {@link RevisionedStreamClient} over a {@link RevisionedSegment}: values are serialized into events, revisions are
 * the segment's offsets. Thread-safe.
 */
final class RevisionedStreamClientImpl<T> implements RevisionedStreamClient<T> {
    private final RevisionedSegment log;
    private final Serializer<T> serializer;

    RevisionedStreamClientImpl(RevisionedSegment log, Serializer<T> serializer) {
        this.log = Objects.requireNonNull(log, "log");
        this.serializer = Objects.requireNonNull(serializer, "serializer");
    }

    /**
     * Opens the log of a stream as Pravega's synchronizer client factory does: the current segment that holds routing
     * key 0.0 (the only one of a one-segment stream). Blocks for the controller call.
     *
     * @throws NoSuchStreamException if the stream does not exist or has no open segment (it is sealed)
     */
    static RevisionedSegment open(String scope, String stream, ControllerClient controller, SegmentStores stores) {
        ScopedStream s = ScopedStream.of(scope, stream);
        StreamSegments segments = controller.currentSegments(s);
        SegmentWithRange first = segments.ranges().stream().filter(r -> r.low() <= 0.0 && 0.0 < r.high()).findFirst()
                .orElse(segments.ranges().isEmpty() ? null : segments.ranges().get(0));
        if (first == null) {
            throw new NoSuchStreamException("stream " + s + " has no open segment to keep a log in: is it sealed?");
        }
        DelegationTokenProvider tokens = DelegationTokenProvider.fromController(controller, s, AccessOperation.READ_WRITE);
        tokens.offer(segments.delegationToken());
        return new RevisionedSegment(first.segment().qualifiedName(), stores, () -> tokens,
                SegmentCalls.Config.DEFAULT);
    }

    /** @return the log's segment (for the synchronizer and tests) */
    RevisionedSegment log() {
        return log;
    }

    private Revision revision(long offset) {
        return Revision.of(log.segment(), offset);
    }

    /** @return the offset of {@code r}, which must be a revision of this log */
    static long offsetOf(RevisionedSegment log, Revision r, String what) {
        Objects.requireNonNull(r, what);
        if (!r.segment().equals(log.segment())) {
            throw new IllegalArgumentException(what + " " + r + " is a revision of segment " + r.segment()
                    + ", not of this log's segment " + log.segment());
        }
        return r.offset();
    }

    @Override
    public Iterator<Map.Entry<Revision, T>> readFrom(Revision start) {
        List<RevisionedSegment.Revisioned> read = log.readFrom(offsetOf(log, start, "start"));
        List<Map.Entry<Revision, T>> out = new ArrayList<>(read.size());
        for (RevisionedSegment.Revisioned r : read) {
            out.add(new AbstractMap.SimpleImmutableEntry<>(revision(r.revision()),
                    serializer.deserialize(r.update().asReadOnlyBuffer())));
        }
        return List.copyOf(out).iterator();
    }

    @Override
    public Revision fetchLatestRevision() {
        return revision(log.latestRevision());
    }

    @Override
    public Revision fetchOldestRevision() {
        return revision(log.startRevision());
    }

    @Override
    public Revision writeConditionally(Revision latestRevision, T value) {
        long expected = offsetOf(log, latestRevision, "latestRevision");
        long after = log.writeConditionally(expected, serialize(value));
        return after == RevisionedSegment.CONFLICT ? null : revision(after);
    }

    @Override
    public void writeUnconditionally(T value) {
        log.writeUnconditionally(serialize(value));
    }

    private ByteBuffer serialize(T value) {
        Objects.requireNonNull(value, "value");
        return Objects.requireNonNull(serializer.serialize(value), "the serializer returned null");
    }

    @Override
    public Revision getMark() {
        long mark = log.mark();
        return mark == RevisionedSegment.NO_MARK ? null : revision(mark);
    }

    @Override
    public boolean compareAndSetMark(Revision expected, Revision newLocation) {
        long e = expected == null ? RevisionedSegment.NO_MARK : offsetOf(log, expected, "expected");
        long n = newLocation == null ? RevisionedSegment.NO_MARK : offsetOf(log, newLocation, "newLocation");
        return log.compareAndSetMark(e, n);
    }

    @Override
    public void truncateToRevision(Revision revision) {
        log.truncateTo(offsetOf(log, revision, "revision"));
    }

    @Override
    public void close() {
        log.close();
    }

    @Override
    public String toString() {
        return "RevisionedStreamClient[" + log.segment() + "]";
    }
}
