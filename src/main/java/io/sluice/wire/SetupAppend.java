package io.sluice.wire;

import java.util.Objects;
import java.util.UUID;

/**
 * Opens (or re-opens, after a reconnect) an append session of one writer on one segment. Wire type 1.
 *
 * <pre>
 * requestId i64 | writerId UUID | segment UTF | delegationToken UTF
 * </pre>
 * Answered by {@link AppendSetup}, whose {@code lastEventNumber} tells the writer what the segment already has.
 *
 * @param requestId echoed in the reply
 * @param writerId the writer session; the same id after a reconnect is what makes appends exactly-once
 * @param segment the qualified segment name
 * @param delegationToken the controller's token ("" when auth is off)
 */
public record SetupAppend(long requestId, UUID writerId, String segment, String delegationToken) implements Request {

    /** Checks the fields: ids and names are required; a null token is sent as "". */
    public SetupAppend {
        Objects.requireNonNull(writerId, "writerId");
        Objects.requireNonNull(segment, "segment");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.SETUP_APPEND;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUuid(writerId);
        out.writeUtf(segment);
        out.writeUtf(delegationToken);
    }

    static SetupAppend readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        UUID writerId = in.readUuid("writerId");
        String segment = in.readUtf("segment");
        String token = in.readUtf("delegationToken");
        return new SetupAppend(requestId, writerId, segment, token);
    }

    @Override
    public String toString() {
        return "SetupAppend[requestId=" + requestId + ", writerId=" + writerId + ", segment=" + segment + "]";
    }
}
