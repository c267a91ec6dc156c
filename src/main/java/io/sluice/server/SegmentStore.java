package io.sluice.server;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntFunction;

import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.SluiceException;
import io.sluice.server.controller.SegmentAdmin;
import io.sluice.wire.Bytes;
import io.sluice.wire.ConditionalCheckFailed;
import io.sluice.wire.CreateSegment;
import io.sluice.wire.CreateTableSegment;
import io.sluice.wire.DeleteSegment;
import io.sluice.wire.DeleteTableSegment;
import io.sluice.wire.ErrorMessage;
import io.sluice.wire.GetSegmentAttribute;
import io.sluice.wire.MergeSegments;
import io.sluice.wire.MergeSegmentsBatch;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.RemoveTableKeys;
import io.sluice.wire.Reply;
import io.sluice.wire.Request;
import io.sluice.wire.SealSegment;
import io.sluice.wire.SegmentAlreadyExists;
import io.sluice.wire.SegmentAttribute;
import io.sluice.wire.SegmentAttributeUpdated;
import io.sluice.wire.SegmentCreated;
import io.sluice.wire.SegmentDeleted;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentIsTruncated;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.SegmentSealed;
import io.sluice.wire.SegmentTruncated;
import io.sluice.wire.SegmentsMerged;
import io.sluice.wire.TruncateSegment;
import io.sluice.wire.UpdateSegmentAttribute;
import io.sluice.wire.UpdateSegmentPolicy;
import io.sluice.wire.UpdateTableEntries;

/**
 * The embedded segment store's data: segments spread over {@link SegmentContainer containers} by the hash of their
 * base name (a transaction or transient segment lives in its parent's container, so merging it is local).
 * Implements {@link SegmentAdmin} for the embedded controller. Thread-safe.
 */
public final class SegmentStore implements SegmentAdmin {
    /** The writer id of the controller's own appends ({@link #appendEvent}); its event numbers are offsets + 1. */
    static final UUID CONTROLLER_WRITER = new UUID(0x736c75696365L, 0x636f6e74726f6cL);

    private final SegmentContainer[] containers;

    SegmentStore(int containerCount, IntFunction<SegmentContainer> containerFactory) {
        if (containerCount < 1) {
            throw new IllegalArgumentException("a segment store needs at least one container: " + containerCount);
        }
        this.containers = new SegmentContainer[containerCount];
        for (int i = 0; i < containerCount; i++) {
            containers[i] = containerFactory.apply(i);
        }
    }

    /**
     * A segment store that keeps everything in memory (nothing survives the process).
     *
     * @param containerCount how many containers to spread segments over
     */
    public static SegmentStore inMemory(int containerCount) {
        return new SegmentStore(containerCount, i -> new SegmentContainer(i, SegmentContainer.NO_LOG,
                (chunk, from, dst, at, n) -> {
                    throw new IllegalStateException("an in-memory container has no chunk files");
                }));
    }

    /** @return the name without a {@code #transaction.} or {@code #transient.} suffix */
    static String baseName(String segment) {
        int txn = segment.indexOf("#transaction.");
        if (txn > 0) {
            return segment.substring(0, txn);
        }
        int trans = segment.indexOf("#transient.");
        return trans > 0 ? segment.substring(0, trans) : segment;
    }

    SegmentContainer container(String segment) {
        return containers[Math.floorMod(baseName(segment).hashCode(), containers.length)];
    }

    List<SegmentContainer> containers() {
        return List.of(containers);
    }

    /** @return the segment a mutating request changes (for routing and for decoding log entries) */
    static String segmentOf(Request r) {
        return switch (r) {
            case CreateSegment c -> c.segment();
            case CreateTableSegment c -> c.segment();
            case SealSegment c -> c.segment();
            case DeleteSegment c -> c.segment();
            case DeleteTableSegment c -> c.segment();
            case TruncateSegment c -> c.segment();
            case UpdateSegmentPolicy c -> c.segment();
            case UpdateSegmentAttribute c -> c.segmentName();
            case MergeSegments c -> c.target();
            case MergeSegmentsBatch c -> c.targetSegmentId();
            case UpdateTableEntries c -> c.segment();
            case RemoveTableKeys c -> c.segment();
            default -> throw new IllegalArgumentException(r.type() + " does not change a segment");
        };
    }

    /** Submits a mutating wire request to its container. */
    CompletableFuture<Object> submit(Request r) {
        String segment = segmentOf(r);
        return container(segment).submit(new ContainerOp.Wire(System.currentTimeMillis(), r, segment));
    }

    /** Submits a change to its container. */
    CompletableFuture<Object> submit(ContainerOp op) {
        return container(op.segment()).submit(op);
    }

    private Reply call(Request r) {
        try {
            return (Reply) submit(r).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : e;
        }
    }

    @Override
    public boolean createSegment(String name, byte scaleType, int targetRate, long rolloverSizeBytes) {
        return switch (call(new CreateSegment(0, name, scaleType, targetRate, "", rolloverSizeBytes))) {
            case SegmentCreated c -> true;
            case SegmentAlreadyExists e -> false;
            case Reply other -> throw unexpected("createSegment", name, other);
        };
    }

    @Override
    public boolean createTableSegment(String name, int keyLength) {
        return switch (call(new CreateTableSegment(0, name, false, keyLength, "", 0))) {
            case SegmentCreated c -> true;
            case SegmentAlreadyExists e -> false;
            case Reply other -> throw unexpected("createTableSegment", name, other);
        };
    }

    @Override
    public boolean sealSegment(String name) {
        return switch (call(new SealSegment(0, name, ""))) {
            case SegmentSealed s -> true;
            case SegmentIsSealed s -> false;
            case NoSuchSegment n -> throw new NoSuchSegmentException("segment " + name + " does not exist");
            case Reply other -> throw unexpected("sealSegment", name, other);
        };
    }

    @Override
    public boolean deleteSegment(String name) {
        boolean table = info(name).map(SegmentInfo::table).orElse(false);
        Request r = table ? new DeleteTableSegment(0, name, false, "") : new DeleteSegment(0, name, "");
        return switch (call(r)) {
            case SegmentDeleted d -> true;
            case NoSuchSegment n -> false;
            case Reply other -> throw unexpected("deleteSegment", name, other);
        };
    }

    @Override
    public void truncateSegment(String name, long offset) {
        switch (call(new TruncateSegment(0, name, offset, ""))) {
            case SegmentTruncated t -> { }
            case NoSuchSegment n -> throw new NoSuchSegmentException("segment " + name + " does not exist");
            case SegmentIsTruncated t -> {
                if (offset > t.startOffset()) {
                    throw new IllegalArgumentException("cannot truncate segment " + name + " at " + offset
                            + ": beyond its length");
                }
                // truncated further already: nothing to do
            }
            case Reply other -> throw unexpected("truncateSegment", name, other);
        }
    }

    @Override
    public long mergeSegments(String target, String source) {
        return switch (call(new MergeSegments(0, target, source, ""))) {
            case SegmentsMerged m -> m.newTargetWriteOffset();
            case NoSuchSegment n -> throw new NoSuchSegmentException("cannot merge " + source + " into " + target
                    + ": segment " + (info(target).isEmpty() ? target : source) + " does not exist");
            case SegmentIsSealed s -> throw new SegmentSealedException("cannot merge into sealed segment " + target);
            case Reply other -> throw unexpected("mergeSegments", target, other);
        };
    }

    @Override
    public long appendEvent(String name, long expectedLength, ByteBuffer payload) {
        io.sluice.wire.WireOutput framed = new io.sluice.wire.WireOutput(payload.remaining() + 8);
        framed.writeEventFrame(payload.duplicate());
        Object result;
        try {
            result = submit(new ContainerOp.Append(System.currentTimeMillis(), name, CONTROLLER_WRITER,
                    expectedLength + 1, 1, expectedLength, 0, framed.buffer())).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : e;
        }
        return switch ((SegmentContainer.AppendResult) result) {
            case SegmentContainer.AppendResult.Appended a -> a.ack().currentSegmentWriteOffset();
            case SegmentContainer.AppendResult.Duplicate d -> -1;
            case SegmentContainer.AppendResult.Refused r -> switch (r.reply()) {
                case ConditionalCheckFailed c -> -1;
                case NoSuchSegment n -> throw new NoSuchSegmentException("segment " + name + " does not exist");
                case SegmentIsSealed sealed -> throw new SegmentSealedException("segment " + name + " is sealed");
                case Reply other -> throw unexpected("appendEvent", name, other);
            };
        };
    }

    @Override
    public ByteBuffer read(String name, long offset, int maxLength) {
        SegmentContainer c = container(name);
        CompletableFuture<Reply> answer = new CompletableFuture<>();
        c.query(ctx -> {
            Optional<Segment> s = ctx.segment(name);
            if (s.isPresent() && !s.get().isTable() && offset >= s.get().length()) {
                return offset == s.get().length() ? new SegmentRead(name, offset, true, false, Bytes.EMPTY, 0)
                        : new ErrorMessage(0, name, "offset " + offset + " is beyond the length " + s.get().length(),
                                ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
            }
            return c.read(ctx, new ReadSegment(name, offset, Math.max(1, maxLength), "", 0), ReplySink.NONE, this);
        }, answer::complete);
        return switch (answer.join()) {
            case SegmentRead r -> {
                ByteBuffer data = r.data();
                yield data.remaining() > maxLength ? data.slice(data.position(), maxLength) : data;
            }
            case NoSuchSegment n -> throw new NoSuchSegmentException("segment " + name + " does not exist");
            case SegmentIsTruncated t -> throw new IllegalArgumentException("segment " + name + " starts at "
                    + t.startOffset() + ": cannot read it at " + offset);
            case ErrorMessage e -> throw new IllegalArgumentException("cannot read segment " + name + ": "
                    + e.message());
            case Reply other -> throw unexpected("read", name, other);
        };
    }

    @Override
    public long attribute(String name, UUID attribute) {
        SegmentContainer c = container(name);
        CompletableFuture<Reply> answer = new CompletableFuture<>();
        c.query(ctx -> c.attribute(ctx, new GetSegmentAttribute(0, name, attribute, "")), answer::complete);
        return switch (answer.join()) {
            case SegmentAttribute a -> a.value();
            case NoSuchSegment n -> throw new NoSuchSegmentException("segment " + name + " does not exist");
            case Reply other -> throw unexpected("attribute", name, other);
        };
    }

    @Override
    public boolean compareAndSetAttribute(String name, UUID attribute, long expected, long newValue) {
        return switch (call(new UpdateSegmentAttribute(0, name, attribute, newValue, expected, ""))) {
            case SegmentAttributeUpdated u -> u.success();
            case NoSuchSegment n -> throw new NoSuchSegmentException("segment " + name + " does not exist");
            case Reply other -> throw unexpected("compareAndSetAttribute", name, other);
        };
    }

    @Override
    public Optional<SegmentInfo> segmentInfo(String name) {
        return info(name);
    }

    private Optional<SegmentInfo> info(String name) {
        return container(name).info(name);
    }

    /** @return how many containers the segments are spread over */
    public int containerCount() {
        return containers.length;
    }

    /** @return how many segments exist (stream, table and internal ones), counted container by container */
    public int segmentCount() {
        int n = 0;
        for (SegmentContainer c : containers) {
            n += c.segmentNames().size();
        }
        return n;
    }

    /** @return the names of every segment (for tests and tools) */
    public List<String> segmentNames() {
        List<String> names = new ArrayList<>();
        for (SegmentContainer c : containers) {
            names.addAll(c.segmentNames());
        }
        return names;
    }

    private static SluiceException unexpected(String op, String name, Reply reply) {
        String detail = reply instanceof ErrorMessage e ? e.message() : reply.type().toString();
        return new SluiceException(op + " of " + Objects.requireNonNull(name) + " failed: " + detail);
    }
}
