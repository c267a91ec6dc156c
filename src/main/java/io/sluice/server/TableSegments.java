package io.sluice.server;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import io.sluice.wire.Bytes;
import io.sluice.wire.ErrorMessage;
import io.sluice.wire.GetTableSegmentInfo;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.OperationUnsupported;
import io.sluice.wire.ReadTable;
import io.sluice.wire.ReadTableEntries;
import io.sluice.wire.ReadTableEntriesDelta;
import io.sluice.wire.ReadTableKeys;
import io.sluice.wire.RemoveTableKeys;
import io.sluice.wire.Reply;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentIsTruncated;
import io.sluice.wire.TableEntries;
import io.sluice.wire.TableEntriesDeltaRead;
import io.sluice.wire.TableEntriesRead;
import io.sluice.wire.TableEntriesUpdated;
import io.sluice.wire.TableEntry;
import io.sluice.wire.TableIteratorArgs;
import io.sluice.wire.TableKey;
import io.sluice.wire.TableKeyBadVersion;
import io.sluice.wire.TableKeyDoesNotExist;
import io.sluice.wire.TableKeysRead;
import io.sluice.wire.TableKeysRemoved;
import io.sluice.wire.TableRead;
import io.sluice.wire.TableSegmentInfo;
import io.sluice.wire.TableValue;
import io.sluice.wire.UpdateTableEntries;

/**
 * Table segments of a {@link SegmentContainer}: their changes (updates and removals, applied by
 * {@link ContainerChanges}) and their queries (reads, key and entry iteration, the delta iterator, info). The entries
 * themselves live in each segment's {@link TableState}.
 *
 * <p>Every method runs under the container lock.
 */
final class TableSegments {
    private static final int MAX_TABLE_REPLY_BYTES = 2 * 1024 * 1024;

    private final ContainerState state;
    private final TailReads tails;

    TableSegments(ContainerState state, TailReads tails) {
        this.state = state;
        this.tails = tails;
    }

    // ---------------------------------------------------------------- changes

    Reply update(UpdateTableEntries c, long time, List<Runnable> effects) {
        Segment s = state.segments.get(c.segment());
        Reply missing = missingTable(s, c.requestId(), c.segment());
        if (missing != null) {
            return missing;
        }
        if (s.sealed) {
            return new SegmentIsSealed(c.requestId(), c.segment(), "", -1);
        }
        List<TableEntry> batch = c.tableEntries().entries();
        TableState.Refusal tooLong = TableState.checkSizes(batch);
        Reply refused = tooLong != null ? refusal(c.requestId(), s, tooLong, c.tableSegmentOffset())
                : refusal(c.requestId(), s, batch.stream().map(TableEntry::key).toList(), c.tableSegmentOffset());
        if (refused != null) {
            return refused;
        }
        List<Long> versions = s.table.update(batch);
        s.lastModifiedMillis = time;
        tails.wake(s, effects);
        return new TableEntriesUpdated(c.requestId(), versions);
    }

    Reply remove(RemoveTableKeys c, long time, List<Runnable> effects) {
        Segment s = state.segments.get(c.segment());
        Reply missing = missingTable(s, c.requestId(), c.segment());
        if (missing != null) {
            return missing;
        }
        if (s.sealed) {
            return new SegmentIsSealed(c.requestId(), c.segment(), "", -1);
        }
        Reply refused = refusal(c.requestId(), s, c.keys(), c.tableSegmentOffset());
        if (refused != null) {
            return refused;
        }
        s.table.remove(c.keys());
        s.lastModifiedMillis = time;
        tails.wake(s, effects);
        return new TableKeysRemoved(c.requestId(), c.segment());
    }

    private static Reply refusal(long requestId, Segment s, List<TableKey> keys, long tableSegmentOffset) {
        TableState.Refusal why = s.table.check(keys, tableSegmentOffset);
        return why == null ? null : refusal(requestId, s, why, tableSegmentOffset);
    }

    private static Reply refusal(long requestId, Segment s, TableState.Refusal why, long tableSegmentOffset) {
        return switch (why) {
            case KEY_DOES_NOT_EXIST -> new TableKeyDoesNotExist(requestId, s.name, "");
            case BAD_KEY_VERSION -> new TableKeyBadVersion(requestId, s.name, "");
            // a real segment store maps the wrong-length condition (BadOffsetException) this way
            case WRONG_TABLE_OFFSET -> new SegmentIsTruncated(requestId, s.name, s.table.length(), "", tableSegmentOffset);
            case BAD_KEY_LENGTH -> badKeyLength(requestId, s);
            // a real segment store's messages for these
            case KEY_TOO_LONG -> new ErrorMessage(requestId, s.name, "Key too large.",
                    ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
            case ENTRY_TOO_LONG -> new ErrorMessage(requestId, s.name, "Key+Value serialization too large.",
                    ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
        };
    }

    private static Reply badKeyLength(long requestId, Segment s) {
        return new ErrorMessage(requestId, s.name, "keys of table segment " + WireText.abbreviate(s.name) + " must be "
                + s.table.keyLength() + " bytes long", ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
    }

    /** @return the reply for a table request on {@code s} when it is no table segment, or null when it is one */
    private static Reply missingTable(Segment s, long requestId, String name) {
        if (s == null) {
            return new NoSuchSegment(requestId, name, "", -1);
        }
        return s.isTable() ? null : notATable(requestId, name);
    }

    private static Reply notATable(long requestId, String name) {
        return new ErrorMessage(requestId, name, WireText.abbreviate(name) + " is not a table segment",
                ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
    }

    // ---------------------------------------------------------------- queries

    Reply info(SegmentContainer.QueryContext ctx, GetTableSegmentInfo r) {
        Segment s = ctx.segment(r.segmentName()).orElse(null);
        Reply missing = missingTable(s, r.requestId(), r.segmentName());
        if (missing != null) {
            return missing;
        }
        return new TableSegmentInfo(r.requestId(), r.segmentName(), 0, s.table.length(), s.table.entryCount(),
                s.table.keyLength());
    }

    Reply read(SegmentContainer.QueryContext ctx, ReadTable r) {
        Segment s = ctx.segment(r.segment()).orElse(null);
        Reply missing = missingTable(s, r.requestId(), r.segment());
        if (missing != null) {
            return missing;
        }
        for (TableKey k : r.keys()) {
            if (s.table.checkKeyLength(k.data()) != null) {
                return badKeyLength(r.requestId(), s);
            }
        }
        return new TableRead(r.requestId(), r.segment(), new TableEntries(s.table.read(r.keys())));
    }

    Reply readKeys(SegmentContainer.QueryContext ctx, ReadTableKeys r) {
        Segment s = ctx.segment(r.segment()).orElse(null);
        Reply missing = missingTable(s, r.requestId(), r.segment());
        if (missing != null) {
            return missing;
        }
        Reply bad = badRange(r.requestId(), r.segment(), r.args());
        if (bad != null) {
            return bad;
        }
        var page = scan(s, r.args(), r.suggestedKeyCount());
        List<TableKey> keys = page.stream().map(e -> new TableKey(e.getKey().buffer(), e.getValue().version())).toList();
        return new TableKeysRead(r.requestId(), r.segment(), keys, continuation(page, r.args().continuationToken()));
    }

    Reply readEntries(SegmentContainer.QueryContext ctx, ReadTableEntries r) {
        Segment s = ctx.segment(r.segment()).orElse(null);
        Reply missing = missingTable(s, r.requestId(), r.segment());
        if (missing != null) {
            return missing;
        }
        Reply bad = badRange(r.requestId(), r.segment(), r.args());
        if (bad != null) {
            return bad;
        }
        var page = scan(s, r.args(), r.suggestedEntryCount());
        return new TableEntriesRead(r.requestId(), r.segment(), new TableEntries(entries(page)),
                continuation(page, r.args().continuationToken()));
    }

    Reply readDelta(SegmentContainer.QueryContext ctx, ReadTableEntriesDelta r) {
        Segment s = ctx.segment(r.segment()).orElse(null);
        Reply missing = missingTable(s, r.requestId(), r.segment());
        if (missing != null) {
            return missing;
        }
        if (s.table.keyLength() > 0) {
            // as a real segment store: its tables with fixed-length keys have no delta iterator
            return new OperationUnsupported(r.requestId(), "readTableEntriesDelta", "");
        }
        if (r.fromPosition() < 0 || r.fromPosition() > s.table.length()) {
            return new ErrorMessage(r.requestId(), r.segment(), "fromPosition (" + r.fromPosition() + ") must be at "
                    + "least 0 and can not exceed the length (" + s.table.length() + ") of the TableSegment.",
                    ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
        }
        int max = Math.clamp(r.suggestedEntryCount(), 1, Integer.MAX_VALUE - 1); // a suggestion; max + 1 must fit
        var page = s.table.since(r.fromPosition(), max + 1);
        boolean reachedEnd = page.size() <= max;
        if (!reachedEnd) {
            page = page.subList(0, max);
        }
        long last = page.isEmpty() ? Math.max(r.fromPosition(), 0)
                : page.get(page.size() - 1).getValue().version() + TableState.entrySize(page.get(page.size() - 1));
        if (reachedEnd) {
            last = Math.max(last, s.table.length());
        }
        return new TableEntriesDeltaRead(r.requestId(), r.segment(), new TableEntries(entries(page)), false, reachedEnd,
                last);
    }

    private static List<TableEntry> entries(List<Map.Entry<TableState.Key, TableState.Value>> page) {
        return page.stream().map(e -> new TableEntry(new TableKey(e.getKey().buffer(), e.getValue().version()),
                new TableValue(Bytes.wrap(e.getValue().bytes())))).toList();
    }

    /** @return the error for an iteration whose fromKey lies after its toKey, or null if the range is sound */
    private static Reply badRange(long requestId, String segment, TableIteratorArgs args) {
        if (args.fromKey().hasRemaining() && args.toKey().hasRemaining()
                && TableState.Key.of(args.fromKey()).compareTo(TableState.Key.of(args.toKey())) > 0) {
            return new ErrorMessage(requestId, segment, "the iteration's fromKey is after its toKey",
                    ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
        }
        return null;
    }

    /** Iteration: the continuation token is the last key returned; an empty page means the end. */
    private static List<Map.Entry<TableState.Key, TableState.Value>> scan(Segment s, TableIteratorArgs args, int suggested) {
        TableState.Key after = args.continuationToken().hasRemaining() ? TableState.Key.of(args.continuationToken()) : null;
        TableState.Key from = args.fromKey().hasRemaining() ? TableState.Key.of(args.fromKey()) : null;
        TableState.Key to = args.toKey().hasRemaining() ? TableState.Key.of(args.toKey()) : null;
        return s.table.scan(after, from, to, Math.max(1, suggested), MAX_TABLE_REPLY_BYTES);
    }

    private static ByteBuffer continuation(List<Map.Entry<TableState.Key, TableState.Value>> page, ByteBuffer previous) {
        return page.isEmpty() ? previous : page.get(page.size() - 1).getKey().buffer();
    }
}
