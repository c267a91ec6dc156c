package io.sluice.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sluice.wire.ConditionalAttributeUpdate;
import io.sluice.wire.ConditionalCheckFailed;
import io.sluice.wire.CreateSegment;
import io.sluice.wire.CreateTableSegment;
import io.sluice.wire.DataAppended;
import io.sluice.wire.DeleteSegment;
import io.sluice.wire.DeleteTableSegment;
import io.sluice.wire.ErrorMessage;
import io.sluice.wire.MergeSegments;
import io.sluice.wire.MergeSegmentsBatch;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.RemoveTableKeys;
import io.sluice.wire.Reply;
import io.sluice.wire.Request;
import io.sluice.wire.SealSegment;
import io.sluice.wire.SegmentAlreadyExists;
import io.sluice.wire.SegmentAttributeUpdated;
import io.sluice.wire.SegmentCreated;
import io.sluice.wire.SegmentDeleted;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentIsTruncated;
import io.sluice.wire.SegmentPolicyUpdated;
import io.sluice.wire.SegmentSealed;
import io.sluice.wire.SegmentTruncated;
import io.sluice.wire.SegmentsBatchMerged;
import io.sluice.wire.SegmentsMerged;
import io.sluice.wire.TableSegmentNotEmpty;
import io.sluice.wire.TruncateSegment;
import io.sluice.wire.UpdateSegmentAttribute;
import io.sluice.wire.UpdateSegmentPolicy;
import io.sluice.wire.UpdateTableEntries;
import io.sluice.wire.WireProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The segment state machine of a {@link SegmentContainer}: applies one change (a {@link ContainerOp}) to the
 * segments, live once the log has it or during recovery's replay. Create, append (deduplicated by writer and event
 * number), seal, delete, truncate, merge, attributes and policies here; table changes in {@link TableSegments};
 * the parked reads a change answers in {@link TailReads}.
 *
 * <p>Every method runs under the container lock; effects (replies to parked reads) are collected for after it.
 */
final class ContainerChanges {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentContainer.class);
    /** Spacing of remembered append boundaries, for LocateOffset. */
    private static final long BOUNDARY_SPACING = 64 * 1024;

    private final ContainerState state;
    private final TailReads tails;
    private final TableSegments tables;

    ContainerChanges(ContainerState state, TailReads tails, TableSegments tables) {
        this.state = state;
        this.tails = tails;
        this.tables = tables;
    }

    /** Applies one change. Called under the lock; effects (replies to parked reads) run after unlocking. */
    Object apply(ContainerOp op, List<Runnable> effects) {
        try {
            return switch (op) {
                case ContainerOp.Append a -> applyAppend(a, effects);
                case ContainerOp.CreateTransient t -> create(t.segment(), Segment.Kind.TRANSIENT, 0, t.timestampMillis(),
                        t.requestId());
                case ContainerOp.Wire w -> applyWire(w.request(), w.timestampMillis(), effects);
            };
        } catch (RuntimeException e) {
            // a bug must not wedge the container: report it to the client and carry on with the next change
            LOG.error("segment container {}: applying {} failed", state.id, op, e);
            return new ErrorMessage(requestIdOf(op), op.segment(), "internal error: " + WireText.abbreviate(e.toString()),
                    ErrorMessage.ErrorCode.UNSPECIFIED);
        }
    }

    /** Applies a log entry during recovery, under the lock; replies are discarded. */
    void replay(ContainerOp op) {
        apply(op, new ArrayList<>());
    }

    static long requestIdOf(ContainerOp op) {
        return switch (op) {
            case ContainerOp.Append a -> a.requestId();
            case ContainerOp.CreateTransient t -> t.requestId();
            case ContainerOp.Wire w -> w.request().requestId();
        };
    }

    private Reply create(String name, Segment.Kind kind, int keyLength, long time, long requestId) {
        if (state.segments.containsKey(name)) {
            return new SegmentAlreadyExists(requestId, name, "");
        }
        Segment s = new Segment(name, ((long) state.id << 40) | state.nextSegmentId++, kind, keyLength);
        s.lastModifiedMillis = time;
        state.segments.put(name, s);
        return new SegmentCreated(requestId, name);
    }

    private SegmentContainer.AppendResult applyAppend(ContainerOp.Append a, List<Runnable> effects) {
        Segment s = state.segments.get(a.segment());
        if (s == null || s.isTable()) {
            return new SegmentContainer.AppendResult.Refused(new NoSuchSegment(a.requestId(), a.segment(), "", -1));
        }
        long last = s.attributes.getOrDefault(a.writerId(), WireProtocol.NULL_ATTRIBUTE_VALUE);
        if (last != WireProtocol.NULL_ATTRIBUTE_VALUE && a.eventNumber() <= last) {
            return new SegmentContainer.AppendResult.Duplicate(a.writerId(), a.eventNumber(), last, s.length());
        }
        if (s.sealed) {
            return new SegmentContainer.AppendResult.Refused(new SegmentIsSealed(a.requestId(), s.name, "", a.eventNumber()));
        }
        if (a.expectedOffset() != ContainerOp.Append.UNCONDITIONAL && a.expectedOffset() != s.length()) {
            return new SegmentContainer.AppendResult.Refused(
                    new ConditionalCheckFailed(a.writerId(), a.eventNumber(), a.requestId()));
        }
        long start = s.data.length();
        Map.Entry<Long, Boolean> lastBoundary = s.boundaries.lastEntry();
        if (lastBoundary == null || start - lastBoundary.getKey() >= BOUNDARY_SPACING) {
            s.boundaries.put(start, Boolean.TRUE);
        }
        s.data.append(a.data());
        s.attributes.put(a.writerId(), a.eventNumber());
        s.lastModifiedMillis = a.timestampMillis();
        tails.wake(s, effects);
        return new SegmentContainer.AppendResult.Appended(
                new DataAppended(a.requestId(), a.writerId(), a.eventNumber(), last, s.length()));
    }

    private Reply applyWire(Request request, long time, List<Runnable> effects) {
        return switch (request) {
            case CreateSegment c -> {
                Reply r = create(c.segment(), Segment.Kind.STREAM, 0, time, c.requestId());
                if (r instanceof SegmentCreated) {
                    Segment s = state.segments.get(c.segment());
                    s.scaleType = c.scaleType();
                    s.targetRate = c.targetRate();
                    s.rolloverSizeBytes = c.rolloverSizeBytes();
                }
                yield r;
            }
            case CreateTableSegment c -> create(c.segment(), Segment.Kind.TABLE, Math.max(0, c.keyLength()), time, c.requestId());
            case SealSegment c -> seal(c, time, effects);
            case DeleteSegment c -> delete(c.requestId(), c.segment(), false, effects);
            case DeleteTableSegment c -> delete(c.requestId(), c.segment(), c.mustBeEmpty(), effects);
            case TruncateSegment c -> truncate(c, time);
            case UpdateSegmentPolicy c -> {
                Segment s = state.segments.get(c.segment());
                if (s == null) {
                    yield new NoSuchSegment(c.requestId(), c.segment(), "", -1);
                }
                s.scaleType = c.scaleType();
                s.targetRate = c.targetRate();
                yield new SegmentPolicyUpdated(c.requestId(), c.segment());
            }
            case UpdateSegmentAttribute c -> updateAttribute(c, time);
            case MergeSegments c -> merge(c.requestId(), c.target(), c.source(), c.attributeUpdates(), time, effects);
            case MergeSegmentsBatch c -> mergeBatch(c, time, effects);
            case UpdateTableEntries c -> tables.update(c, time, effects);
            case RemoveTableKeys c -> tables.remove(c, time, effects);
            default -> new ErrorMessage(request.requestId(), "", request.type() + " does not change a segment",
                    ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
        };
    }

    private Reply seal(SealSegment c, long time, List<Runnable> effects) {
        Segment s = state.segments.get(c.segment());
        if (s == null) {
            return new NoSuchSegment(c.requestId(), c.segment(), "", -1);
        }
        if (s.sealed) {
            return new SegmentIsSealed(c.requestId(), c.segment(), "", -1);
        }
        s.sealed = true;
        s.lastModifiedMillis = time;
        tails.release(s, effects, true);
        return new SegmentSealed(c.requestId(), c.segment());
    }

    private Reply updateAttribute(UpdateSegmentAttribute c, long time) {
        Segment s = state.segments.get(c.segmentName());
        if (s == null) {
            return new NoSuchSegment(c.requestId(), c.segmentName(), "", -1);
        }
        if (s.sealed) {
            return new SegmentIsSealed(c.requestId(), c.segmentName(), "", -1);
        }
        long current = s.attributes.getOrDefault(c.attributeId(), WireProtocol.NULL_ATTRIBUTE_VALUE);
        boolean ok = current == c.expectedValue();
        if (ok) {
            if (c.newValue() == WireProtocol.NULL_ATTRIBUTE_VALUE) {
                s.attributes.remove(c.attributeId());
            } else {
                s.attributes.put(c.attributeId(), c.newValue());
            }
            s.lastModifiedMillis = time;
        }
        return new SegmentAttributeUpdated(c.requestId(), ok);
    }

    private Reply delete(long requestId, String name, boolean mustBeEmpty, List<Runnable> effects) {
        Segment s = state.segments.get(name);
        if (s == null) {
            return new NoSuchSegment(requestId, name, "", -1);
        }
        if (mustBeEmpty && s.isTable() && s.table.entryCount() > 0) {
            return new TableSegmentNotEmpty(requestId, name, "");
        }
        state.segments.remove(name);
        tails.release(s, effects, false);
        state.dropped(s);
        long bytes = s.length() - s.startOffset();
        if (bytes > 0) {
            // replay discards effects: only a live delete asks for a snapshot
            effects.add(() -> state.log.segmentDropped(bytes));
        }
        return new SegmentDeleted(requestId, name);
    }

    private Reply truncate(TruncateSegment c, long time) {
        Segment s = state.segments.get(c.segment());
        if (s == null) {
            return new NoSuchSegment(c.requestId(), c.segment(), "", c.truncationOffset());
        }
        long offset = c.truncationOffset();
        if (offset == s.startOffset()) {
            return new SegmentTruncated(c.requestId(), c.segment());
        }
        if (offset < s.startOffset() || offset > s.length() || s.isTable()) {
            return new SegmentIsTruncated(c.requestId(), c.segment(), s.startOffset(), "", offset);
        }
        s.data.truncate(offset);
        s.boundaries.headMap(offset).clear();
        s.lastModifiedMillis = time;
        return new SegmentTruncated(c.requestId(), c.segment());
    }

    private Reply merge(long requestId, String targetName, String sourceName,
                        List<ConditionalAttributeUpdate> attributeUpdates, long time, List<Runnable> effects) {
        Segment target = state.segments.get(targetName);
        Segment source = state.segments.get(sourceName);
        if (target == null) {
            // as a real segment store does: the error names the source
            return new NoSuchSegment(requestId, sourceName, "", -1);
        }
        if (source == null) {
            return new NoSuchSegment(requestId, sourceName, "", -1);
        }
        if (source == target) {
            return new ErrorMessage(requestId, targetName, "cannot merge a segment into itself",
                    ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
        }
        if (target.sealed) {
            return new SegmentIsSealed(requestId, sourceName, "", -1);
        }
        if (target.isTable() || source.isTable()) {
            return new ErrorMessage(requestId, targetName, "table segments cannot be merged",
                    ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
        }
        for (ConditionalAttributeUpdate u : attributeUpdates) {
            if (!attributeConditionHolds(target, u)) {
                return new ErrorMessage(requestId, targetName, "attribute " + u.attributeId() + " of " + targetName
                        + " fails the merge's condition (update type " + u.attributeUpdateType() + ", expected "
                        + u.oldValue() + "): nothing merged", ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
            }
        }
        // the merge and its attribute updates apply together (a large event's writer reads one to learn the other)
        for (ConditionalAttributeUpdate u : attributeUpdates) {
            long current = target.attributes.getOrDefault(u.attributeId(), WireProtocol.NULL_ATTRIBUTE_VALUE);
            long value = u.attributeUpdateType() == ConditionalAttributeUpdate.ACCUMULATE
                    && current != WireProtocol.NULL_ATTRIBUTE_VALUE ? current + u.newValue() : u.newValue();
            if (value == WireProtocol.NULL_ATTRIBUTE_VALUE) {
                target.attributes.remove(u.attributeId());
            } else {
                target.attributes.put(u.attributeId(), value);
            }
        }
        long start = target.data.length();
        target.boundaries.put(start, Boolean.TRUE);
        target.data.appendAll(source.data, state.chunks);
        target.lastModifiedMillis = time;
        state.segments.remove(sourceName);
        tails.release(source, effects, false);
        state.dropped(source);
        tails.wake(target, effects);
        return new SegmentsMerged(requestId, targetName, sourceName, target.length());
    }

    /** Whether {@code u}'s condition holds on {@code target} now (Pravega's attribute update types). */
    private static boolean attributeConditionHolds(Segment target, ConditionalAttributeUpdate u) {
        long current = target.attributes.getOrDefault(u.attributeId(), WireProtocol.NULL_ATTRIBUTE_VALUE);
        return switch (u.attributeUpdateType()) {
            case ConditionalAttributeUpdate.NONE -> current == WireProtocol.NULL_ATTRIBUTE_VALUE;
            case ConditionalAttributeUpdate.REPLACE_IF_GREATER -> current == WireProtocol.NULL_ATTRIBUTE_VALUE
                    || u.newValue() > current;
            case ConditionalAttributeUpdate.REPLACE_IF_EQUALS -> current == u.oldValue();
            default -> true;   // REPLACE, ACCUMULATE
        };
    }

    private Reply mergeBatch(MergeSegmentsBatch c, long time, List<Runnable> effects) {
        Segment target = state.segments.get(c.targetSegmentId());
        if (target == null) {
            return new NoSuchSegment(c.requestId(), c.targetSegmentId(), "", -1);
        }
        List<String> sources = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        for (String source : c.sourceSegmentIds()) {
            Reply r = merge(c.requestId(), c.targetSegmentId(), source, List.of(), time, effects);
            if (r instanceof SegmentsMerged m) {
                sources.add(source);
                offsets.add(m.newTargetWriteOffset());
            } else if (r instanceof NoSuchSegment) {
                // merged before (a retried commit): report the target's length, as the merge is done
                sources.add(source);
                offsets.add(target.length());
            } else {
                return r;
            }
        }
        return new SegmentsBatchMerged(c.requestId(), c.targetSegmentId(), sources, offsets);
    }
}
