package io.sluice.wire;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.UUID;

/**
 * Appends one event only if the segment's length equals {@code expectedOffset}. Wire type 5.
 *
 * <pre>
 * writerId UUID | eventNumber i64 | expectedOffset i64 | event type i32 (= 0) | event length i32
 *              | event data[length] | requestId i64 (opt, −1)
 * </pre>
 * The event travels as a complete nested {@link Event} frame; any other nested type code is rejected. Answered by
 * {@link DataAppended}, or {@link ConditionalCheckFailed} when the segment length differs.
 *
 * @param writerId the writer, set up before with {@link SetupAppend}
 * @param eventNumber the event number of this append
 * @param expectedOffset the segment length the append requires
 * @param event the event to append
 * @param requestId echoed by the reply
 */
public record ConditionalAppend(UUID writerId, long eventNumber, long expectedOffset, Event event, long requestId)
        implements Request {

    /** Checks that the writer id and the event are present. */
    public ConditionalAppend {
        Objects.requireNonNull(writerId, "writerId");
        Objects.requireNonNull(event, "event");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.CONDITIONAL_APPEND;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeUuid(writerId);
        out.writeLong(eventNumber);
        out.writeLong(expectedOffset);
        event.writeFramed(out);
        out.writeLong(requestId);
    }

    static ConditionalAppend readFrom(WireInput in) {
        UUID writerId = in.readUuid("writerId");
        long eventNumber = in.readLong("eventNumber");
        long expectedOffset = in.readLong("expectedOffset");
        int nestedType = in.readInt("event.type");
        if (nestedType != WireCommandType.EVENT.code()) {
            throw in.invalid("event.type", "expected a nested EVENT frame (type " + WireCommandType.EVENT.code()
                    + ") but found type " + nestedType);
        }
        ByteBuffer data = in.readBlob("event");
        long requestId = in.readLongOr("requestId", -1L);
        return new ConditionalAppend(writerId, eventNumber, expectedOffset, new Event(data), requestId);
    }
}
