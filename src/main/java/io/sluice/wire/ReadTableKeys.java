package io.sluice.wire;

import java.util.Objects;

/**
 * Iterates over a table segment's keys, one page per request. Wire type 83.
 *
 * <pre>
 * requestId i64 | segment UTF | delegationToken UTF | suggestedKeyCount i32 | args TableIteratorArgs
 * </pre>
 * Answered by {@link TableKeysRead}, or {@link NoSuchSegment}.
 *
 * @param requestId echoed in the reply
 * @param segment the table segment
 * @param delegationToken the controller's token ("" when auth is off)
 * @param suggestedKeyCount the most keys the reply should hold
 * @param args where to resume and which key range to cover
 */
public record ReadTableKeys(long requestId, String segment, String delegationToken, int suggestedKeyCount,
                            TableIteratorArgs args) implements Request {

    /** Checks that the name and arguments are present; a null token is sent as "". */
    public ReadTableKeys {
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
        Objects.requireNonNull(args, "args");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.READ_TABLE_KEYS;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeUtf(delegationToken);
        out.writeInt(suggestedKeyCount);
        args.writeFields(out);
    }

    static ReadTableKeys readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        String token = in.readUtf("delegationToken");
        int suggestedKeyCount = in.readInt("suggestedKeyCount");
        TableIteratorArgs args = TableIteratorArgs.readFrom(in);
        return new ReadTableKeys(requestId, segment, token, suggestedKeyCount, args);
    }

    @Override
    public String toString() {
        return "ReadTableKeys[requestId=" + requestId + ", segment=" + segment + ", suggestedKeyCount="
                + suggestedKeyCount + ", args=" + args + "]";
    }
}
