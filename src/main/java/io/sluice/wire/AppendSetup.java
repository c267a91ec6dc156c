package io.sluice.wire;

import java.util.Objects;
import java.util.UUID;

/**
 * Reply to {@link SetupAppend}: the session is open. Wire type 2.
 *
 * <pre>
 * requestId i64 | segment UTF | writerId UUID | lastEventNumber i64
 * </pre>
 *
 * @param requestId the SetupAppend's request id
 * @param segment the segment
 * @param writerId the writer
 * @param lastEventNumber the last event number of this writer the segment holds durably;
 *     {@link WireProtocol#NULL_ATTRIBUTE_VALUE} ({@code Long.MIN_VALUE}) if it never appended
 */
public record AppendSetup(long requestId, String segment, UUID writerId, long lastEventNumber) implements Reply {

    /** Checks that the names are present. */
    public AppendSetup {
        Objects.requireNonNull(segment, "segment");
        Objects.requireNonNull(writerId, "writerId");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.APPEND_SETUP;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segment);
        out.writeUuid(writerId);
        out.writeLong(lastEventNumber);
    }

    static AppendSetup readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segment = in.readUtf("segment");
        UUID writerId = in.readUuid("writerId");
        long last = in.readLong("lastEventNumber");
        return new AppendSetup(requestId, segment, writerId, last);
    }
}
