package io.sluice.wire;

import java.util.Objects;

/**
 * Deletes a table segment. Wire type 71.
 *
 * <pre>
 * requestId i64 | segment UTF | mustBeEmpty bool | delegationToken UTF
 * </pre>
 * Answered by {@link SegmentDeleted}, {@link TableSegmentNotEmpty} (when {@code mustBeEmpty} and keys exist), or
 * {@link NoSuchSegment}.
 *
 * @param requestId echoed in the reply
 * @param segment the table segment to delete
 * @param mustBeEmpty delete only if the table holds no keys
 * @param delegationToken the controller's token ("" when auth is off)
 */
public record DeleteTableSegment(long requestId, String segment, boolean mustBeEmpty, String delegationToken)
        implements Request {

    /** Checks that the name is present; a null token is sent as "". */
    public DeleteTableSegment {
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.DELETE_TABLE_SEGMENT;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeBoolean(mustBeEmpty);
        out.writeUtf(delegationToken);
    }

    static DeleteTableSegment readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        boolean mustBeEmpty = in.readBoolean("mustBeEmpty");
        String token = in.readUtf("delegationToken");
        return new DeleteTableSegment(requestId, segment, mustBeEmpty, token);
    }

    @Override
    public String toString() {
        return "DeleteTableSegment[requestId=" + requestId + ", segment=" + segment + ", mustBeEmpty=" + mustBeEmpty
                + "]";
    }
}
