package io.sluice.wire;

import java.util.Objects;

/**
 * A segment's metadata, reply to {@link GetStreamSegmentInfo}. Wire type 12.
 *
 * <pre>
 * requestId i64 | segmentName UTF | exists bool | isSealed bool | isDeleted bool | lastModified i64
 *               | writeOffset i64 | startOffset i64 (opt, 0)
 * </pre>
 *
 * @param requestId the request's id
 * @param segmentName the segment
 * @param exists whether the segment exists
 * @param isSealed whether the segment is sealed
 * @param isDeleted whether the segment is deleted
 * @param lastModified the last modification time, epoch milliseconds
 * @param writeOffset the segment's length
 * @param startOffset the first readable offset (above 0 after a truncation)
 */
public record StreamSegmentInfo(long requestId, String segmentName, boolean exists, boolean isSealed,
                                boolean isDeleted, long lastModified, long writeOffset, long startOffset)
        implements Reply {

    /** Checks that the name is present. */
    public StreamSegmentInfo {
        Objects.requireNonNull(segmentName, "segmentName");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.STREAM_SEGMENT_INFO;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segmentName);
        out.writeBoolean(exists);
        out.writeBoolean(isSealed);
        out.writeBoolean(isDeleted);
        out.writeLong(lastModified);
        out.writeLong(writeOffset);
        out.writeLong(startOffset);
    }

    static StreamSegmentInfo readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segmentName = in.readUtf("segmentName");
        boolean exists = in.readBoolean("exists");
        boolean sealed = in.readBoolean("isSealed");
        boolean deleted = in.readBoolean("isDeleted");
        long lastModified = in.readLong("lastModified");
        long writeOffset = in.readLong("writeOffset");
        long startOffset = in.readLongOr("startOffset", 0L);
        return new StreamSegmentInfo(requestId, segmentName, exists, sealed, deleted, lastModified, writeOffset,
                startOffset);
    }
}
