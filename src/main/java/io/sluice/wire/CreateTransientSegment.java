package io.sluice.wire;

import java.util.Objects;
import java.util.UUID;

/**
 * Creates a transient segment next to a parent segment, to stage a large event before merging it. Wire type 40.
 *
 * <pre>
 * requestId i64 | writerId UUID | parentSegment UTF | delegationToken UTF
 * </pre>
 * Answered by {@link SegmentCreated} carrying the generated name
 * {@code <parent>#transient.<writerId as 32 hex>.<32 random hex>}.
 *
 * @param requestId echoed in the reply
 * @param writerId the writer that will append to the transient segment
 * @param parentSegment the segment the transient segment will be merged into
 * @param delegationToken the controller's token ("" when auth is off)
 */
public record CreateTransientSegment(long requestId, UUID writerId, String parentSegment, String delegationToken)
        implements Request {

    /** Checks the fields: writer and parent are required; a null token is sent as "". */
    public CreateTransientSegment {
        Objects.requireNonNull(writerId, "writerId");
        Objects.requireNonNull(parentSegment, "parentSegment");
        delegationToken = delegationToken == null ? "" : delegationToken;
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.CREATE_TRANSIENT_SEGMENT;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUuid(writerId);
        out.writeUtf(parentSegment);
        out.writeUtf(delegationToken);
    }

    static CreateTransientSegment readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        UUID writerId = in.readUuid("writerId");
        String parentSegment = in.readUtf("parentSegment");
        String token = in.readUtf("delegationToken");
        return new CreateTransientSegment(requestId, writerId, parentSegment, token);
    }

    @Override
    public String toString() {
        return "CreateTransientSegment[requestId=" + requestId + ", writerId=" + writerId + ", parentSegment="
                + parentSegment + "]";
    }
}
