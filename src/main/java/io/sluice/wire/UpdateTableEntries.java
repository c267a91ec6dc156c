package io.sluice.wire;

import java.util.Objects;

/**
 * Inserts or updates table entries, atomically as a batch. Wire type 74.
 *
 * <pre>
 * requestId i64 | segment UTF | delegationToken UTF | tableEntries TableEntries | tableSegmentOffset i64 (opt, −1)
 * </pre>
 * If any key's version is not {@link TableKey#NO_VERSION} the whole batch is conditional; if
 * {@code tableSegmentOffset} is not {@link #NULL_TABLE_SEGMENT_OFFSET} it is also conditional on the table
 * segment's length (a mismatch is answered with {@link SegmentIsTruncated}). Answered by {@link TableEntriesUpdated},
 * {@link TableKeyDoesNotExist}, {@link TableKeyBadVersion}, or {@link NoSuchSegment}.
 *
 * @param requestId echoed in the reply
 * @param segment the table segment
 * @param delegationToken the controller's token ("" when auth is off)
 * @param tableEntries the entries, each key with its expected version
 * @param tableSegmentOffset the table segment length the update requires, or {@link #NULL_TABLE_SEGMENT_OFFSET}
 */
public record UpdateTableEntries(long requestId, String segment, String delegationToken, TableEntries tableEntries,
                                 long tableSegmentOffset) implements Request {
    /** {@code tableSegmentOffset} meaning "no condition on the table segment's length". */
    public static final long NULL_TABLE_SEGMENT_OFFSET = -1L;

    /** Checks that the name and entries are present; a null token is sent as "". */
    public UpdateTableEntries {
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
        Objects.requireNonNull(tableEntries, "tableEntries");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.UPDATE_TABLE_ENTRIES;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeUtf(delegationToken);
        tableEntries.writeFields(out);
        out.writeLong(tableSegmentOffset);
    }

    static UpdateTableEntries readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        String token = in.readUtf("delegationToken");
        TableEntries entries = TableEntries.readFrom(in);
        long offset = in.readLongOr("tableSegmentOffset", NULL_TABLE_SEGMENT_OFFSET);
        return new UpdateTableEntries(requestId, segment, token, entries, offset);
    }

    @Override
    public String toString() {
        return "UpdateTableEntries[requestId=" + requestId + ", segment=" + segment + ", tableEntries=" + tableEntries
                + ", tableSegmentOffset=" + tableSegmentOffset + "]";
    }
}
