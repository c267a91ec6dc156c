package io.sluice.wire;

import java.util.Objects;

/**
 * The entries of the keys asked for, reply to {@link ReadTable}. Wire type 79.
 *
 * <pre>
 * requestId i64 | segment UTF | entries TableEntries
 * </pre>
 * One entry per requested key, in the request's order; a missing key comes back with version
 * {@link TableKey#NOT_EXISTS} and an empty value.
 *
 * @param requestId the ReadTable's request id
 * @param segment the table segment
 * @param entries the keys with their current versions and values
 */
public record TableRead(long requestId, String segment, TableEntries entries) implements Reply {

    /** Checks that the name and entries are present. */
    public TableRead {
        Objects.requireNonNull(segment, "segment");
        Objects.requireNonNull(entries, "entries");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.TABLE_READ;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        entries.writeFields(out);
    }

    static TableRead readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        TableEntries entries = TableEntries.readFrom(in);
        return new TableRead(requestId, segment, entries);
    }
}
