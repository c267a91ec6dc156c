package io.sluice.wire;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.UUID;

/**
 * Completes an append: closes the writer's open {@link AppendBlock}, or — sent alone — carries a whole batch in
 * its own data. Wire type 4.
 *
 * <pre>
 * writerId UUID | sizeOfWholeEvents i32 | dataLength i32 | data[dataLength] | numEvents i32
 *              | lastEventNumber i64 | requestId i64 (opt, −1)
 * </pre>
 * With a block: appended bytes = {@code block[0, sizeOfWholeEvents) ++ partialEvent ++ data}. Alone: {@code data}.
 *
 * @param writerId the writer
 * @param sizeOfWholeEvents bytes of whole (framed) events in the preceding block
 * @param data the rest of a split event, or the whole batch when there was no block (a read-only view)
 * @param numEvents events this append completes (must be positive)
 * @param lastEventNumber the event number of the append's last event
 * @param requestId echoed by the {@link DataAppended} that acknowledges it
 */
public record AppendBlockEnd(UUID writerId, int sizeOfWholeEvents, ByteBuffer data, int numEvents,
                             long lastEventNumber, long requestId) implements Request {

    /** @param data not copied */
    public AppendBlockEnd {
        Objects.requireNonNull(writerId, "writerId");
        data = Bytes.view(data, "data");
    }

    @Override
    public ByteBuffer data() {
        return data.duplicate();
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.APPEND_BLOCK_END;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeUuid(writerId);
        out.writeInt(sizeOfWholeEvents);
        out.writeBlob(data);
        out.writeInt(numEvents);
        out.writeLong(lastEventNumber);
        out.writeLong(requestId);
    }

    static AppendBlockEnd readFrom(WireInput in) {
        UUID writerId = in.readUuid("writerId");
        int sizeOfWholeEvents = in.readInt("sizeOfWholeEvents");
        ByteBuffer data = in.readBlob("data");
        int numEvents = in.readInt("numEvents");
        long lastEventNumber = in.readLong("lastEventNumber");
        long requestId = in.readLongOr("requestId", -1L);
        return new AppendBlockEnd(writerId, sizeOfWholeEvents, data, numEvents, lastEventNumber, requestId);
    }

    @Override
    public String toString() {
        return "AppendBlockEnd[writerId=" + writerId + ", sizeOfWholeEvents=" + sizeOfWholeEvents + ", data="
                + Bytes.describe(data) + ", numEvents=" + numEvents + ", lastEventNumber=" + lastEventNumber
                + ", requestId=" + requestId + "]";
    }
}
