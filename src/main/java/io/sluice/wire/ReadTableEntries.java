package io.sluice.wire;

import java.util.Objects;

/**
 * Iterates over a table segment's entries (keys with values), one page per request. Wire type 85.
 *
 * <pre>
 * requestId i64 | segment UTF | delegationToken UTF | suggestedEntryCount i32 | args TableIteratorArgs
 * </pre>
 * Answered by {@link TableEntriesRead}, or {@link NoSuchSegment}.
 *
 * @param requestId echoed in the reply
 * @param segment the table segment
 * @param delegationToken the controller's token ("" when auth is off)
 * @param suggestedEntryCount the most entries the reply should hold
 * @param args where to resume and which key range to cover
 */
public record ReadTableEntries(long requestId, String segment, String delegationToken, int suggestedEntryCount,
                               TableIteratorArgs args) implements Request {

    /** Checks that the name and arguments are present; a null token is sent as "". */
    public ReadTableEntries {
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
        Objects.requireNonNull(args, "args");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.READ_TABLE_ENTRIES;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeUtf(delegationToken);
        out.writeInt(suggestedEntryCount);
        args.writeFields(out);
    }

    static ReadTableEntries readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        String token = in.readUtf("delegationToken");
        int suggestedEntryCount = in.readInt("suggestedEntryCount");
        TableIteratorArgs args = TableIteratorArgs.readFrom(in);
        return new ReadTableEntries(requestId, segment, token, suggestedEntryCount, args);
    }

    @Override
    public String toString() {
        return "ReadTableEntries[requestId=" + requestId + ", segment=" + segment + ", suggestedEntryCount="
                + suggestedEntryCount + ", args=" + args + "]";
    }
}
