package io.sluice.wire;

import java.util.Objects;
import java.util.UUID;

/**
 * Reply to a conditional append whose expected offset did not match the segment's length. Wire type 8.
 *
 * <pre>
 * writerId UUID | eventNumber i64 | requestId i64 (opt, −1)
 * </pre>
 *
 * @param writerId the writer
 * @param eventNumber the event number of the rejected append
 * @param requestId the request id of the rejected ConditionalAppend / ConditionalBlockEnd
 */
public record ConditionalCheckFailed(UUID writerId, long eventNumber, long requestId) implements Reply {

    /** Checks that the writer id is present. */
    public ConditionalCheckFailed {
        Objects.requireNonNull(writerId, "writerId");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.CONDITIONAL_CHECK_FAILED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeUuid(writerId);
        out.writeLong(eventNumber);
        out.writeLong(requestId);
    }

    static ConditionalCheckFailed readFrom(WireInput in) {
        UUID writerId = in.readUuid("writerId");
        long eventNumber = in.readLong("eventNumber");
        long requestId = in.readLongOr("requestId", -1L);
        return new ConditionalCheckFailed(writerId, eventNumber, requestId);
    }
}
