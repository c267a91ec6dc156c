package io.sluice.wire;

import java.util.Objects;
import java.util.UUID;

/**
 * Acknowledges a writer's appends up to and including {@code eventNumber}. Wire type 7.
 *
 * <pre>
 * writerId UUID | eventNumber i64 | previousEventNumber i64 (opt, −1) | requestId i64 (opt, −1)
 *              | currentSegmentWriteOffset i64 (opt, −1)
 * </pre>
 * The wire order is not Pravega's constructor order: {@code requestId} was added after {@code previousEventNumber}.
 *
 * @param requestId the request id of the AppendBlockEnd / ConditionalAppend / ConditionalBlockEnd that carried the append
 * @param writerId the writer
 * @param eventNumber the last event number now durable
 * @param previousEventNumber the event number acknowledged before this one ({@code Long.MIN_VALUE} for a writer's first ack)
 * @param currentSegmentWriteOffset the segment's length after the append
 */
public record DataAppended(long requestId, UUID writerId, long eventNumber, long previousEventNumber,
                           long currentSegmentWriteOffset) implements Reply {

    /** Checks that the writer id is present. */
    public DataAppended {
        Objects.requireNonNull(writerId, "writerId");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.DATA_APPENDED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeUuid(writerId);
        out.writeLong(eventNumber);
        out.writeLong(previousEventNumber);
        out.writeLong(requestId);
        out.writeLong(currentSegmentWriteOffset);
    }

    static DataAppended readFrom(WireInput in) {
        UUID writerId = in.readUuid("writerId");
        long eventNumber = in.readLong("eventNumber");
        long previous = in.readLongOr("previousEventNumber", -1L);
        long requestId = in.readLongOr("requestId", -1L);
        long offset = in.readLongOr("currentSegmentWriteOffset", -1L);
        return new DataAppended(requestId, writerId, eventNumber, previous, offset);
    }
}
