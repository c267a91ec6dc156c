package io.sluice.wire;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * One page of a table segment's entries, reply to {@link ReadTableEntries}. Wire type 86.
 *
 * <pre>
 * requestId i64 | segment UTF | entries TableEntries | continuationToken BYTES
 * </pre>
 * The iteration is over when a page comes back empty.
 *
 * @param requestId the ReadTableEntries' request id
 * @param segment the table segment
 * @param entries the keys with their current versions and values
 * @param continuationToken the opaque resume point to send in the next request (a read-only view)
 */
public record TableEntriesRead(long requestId, String segment, TableEntries entries, ByteBuffer continuationToken)
        implements Reply {

    /** Checks that the name and entries are present; the token is not copied. */
    public TableEntriesRead {
        Objects.requireNonNull(segment, "segment");
        Objects.requireNonNull(entries, "entries");
        continuationToken = Bytes.view(continuationToken, "continuationToken");
    }

    @Override
    public ByteBuffer continuationToken() {
        return continuationToken.duplicate();
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.TABLE_ENTRIES_READ;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        entries.writeFields(out);
        out.writeBlob(continuationToken);
    }

    static TableEntriesRead readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        TableEntries entries = TableEntries.readFrom(in);
        ByteBuffer continuationToken = in.readBlob("continuationToken");
        return new TableEntriesRead(requestId, segment, entries, continuationToken);
    }

    @Override
    public String toString() {
        return "TableEntriesRead[requestId=" + requestId + ", segment=" + segment + ", entries=" + entries
                + ", continuationToken=" + Bytes.describe(continuationToken) + "]";
    }
}
