package io.sluice.wire;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.UUID;

/**
 * Appends raw bytes only if the segment's length equals {@code expectedOffset}. Wire type 89.
 *
 * <pre>
 * writerId UUID | eventNumber i64 | expectedOffset i64 | dataLength i32 | data[dataLength] | requestId i64
 * </pre>
 * The data is appended as it is (it may hold several framed events); {@code requestId} is mandatory. Used for
 * large events and by the Rust client's conditional writes.
 *
 * @param writerId the writer, set up before with {@link SetupAppend}
 * @param eventNumber the event number of this append
 * @param expectedOffset the segment length the append requires
 * @param data the bytes to append (a read-only view)
 * @param requestId echoed by the reply
 */
public record ConditionalBlockEnd(UUID writerId, long eventNumber, long expectedOffset, ByteBuffer data,
                                  long requestId) implements Request {

    /** @param data not copied */
    public ConditionalBlockEnd {
        Objects.requireNonNull(writerId, "writerId");
        data = Bytes.view(data, "data");
    }

    @Override
    public ByteBuffer data() {
        return data.duplicate();
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.CONDITIONAL_BLOCK_END;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeUuid(writerId);
        out.writeLong(eventNumber);
        out.writeLong(expectedOffset);
        out.writeBlob(data);
        out.writeLong(requestId);
    }

    static ConditionalBlockEnd readFrom(WireInput in) {
        UUID writerId = in.readUuid("writerId");
        long eventNumber = in.readLong("eventNumber");
        long expectedOffset = in.readLong("expectedOffset");
        ByteBuffer data = in.readBlob("data");
        long requestId = in.readLong("requestId");
        return new ConditionalBlockEnd(writerId, eventNumber, expectedOffset, data, requestId);
    }

    @Override
    public String toString() {
        return "ConditionalBlockEnd[writerId=" + writerId + ", eventNumber=" + eventNumber + ", expectedOffset="
                + expectedOffset + ", data=" + Bytes.describe(data) + ", requestId=" + requestId + "]";
    }
}
