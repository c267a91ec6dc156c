package io.sluice.wire;

import java.util.Objects;

/**
 * The table entries changed since a position, reply to {@link ReadTableEntriesDelta}. Wire type 87.
 *
 * <pre>
 * requestId i64 | segment UTF | entries TableEntries | shouldClear bool | reachedEnd bool | lastPosition i64
 * </pre>
 *
 * @param requestId the ReadTableEntriesDelta's request id
 * @param segment the table segment
 * @param entries the latest value of each key changed since {@code fromPosition} (removed keys are left out)
 * @param shouldClear the reader must drop what it cached before applying these entries (the requested position
 *     was truncated away)
 * @param reachedEnd the reply reaches the current end of the table segment
 * @param lastPosition the position to ask from next
 */
public record TableEntriesDeltaRead(long requestId, String segment, TableEntries entries, boolean shouldClear,
                                    boolean reachedEnd, long lastPosition) implements Reply {

    /** Checks that the name and entries are present. */
    public TableEntriesDeltaRead {
        Objects.requireNonNull(segment, "segment");
        Objects.requireNonNull(entries, "entries");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.TABLE_ENTRIES_DELTA_READ;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        entries.writeFields(out);
        out.writeBoolean(shouldClear);
        out.writeBoolean(reachedEnd);
        out.writeLong(lastPosition);
    }

    static TableEntriesDeltaRead readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        TableEntries entries = TableEntries.readFrom(in);
        boolean shouldClear = in.readBoolean("shouldClear");
        boolean reachedEnd = in.readBoolean("reachedEnd");
        long lastPosition = in.readLong("lastPosition");
        return new TableEntriesDeltaRead(requestId, segment, entries, shouldClear, reachedEnd, lastPosition);
    }
}
