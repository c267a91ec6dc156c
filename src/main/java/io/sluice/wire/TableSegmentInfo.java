package io.sluice.wire;

import java.util.Objects;

/**
 * A table segment's size and entry count, reply to {@link GetTableSegmentInfo}. Wire type 69.
 *
 * <pre>
 * requestId i64 | segmentName UTF | startOffset i64 | length i64 | entryCount i64 | keyLength i32
 * </pre>
 * A real 0.13 server maintains {@code entryCount} asynchronously and it can be wrong, even negative.
 *
 * @param requestId the GetTableSegmentInfo's request id
 * @param segmentName the table segment
 * @param startOffset the segment's start offset
 * @param length the segment's length in bytes
 * @param entryCount the number of live keys
 * @param keyLength the fixed key length, 0 for variable-length keys
 */
public record TableSegmentInfo(long requestId, String segmentName, long startOffset, long length, long entryCount,
                               int keyLength) implements Reply {

    /** Checks that the name is present. */
    public TableSegmentInfo {
        Objects.requireNonNull(segmentName, "segmentName");
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.TABLE_SEGMENT_INFO;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeUtf(segmentName);
        out.writeLong(startOffset);
        out.writeLong(length);
        out.writeLong(entryCount);
        out.writeInt(keyLength);
    }

    static TableSegmentInfo readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        String segmentName = in.readUtf("segmentName");
        long startOffset = in.readLong("startOffset");
        long length = in.readLong("length");
        long entryCount = in.readLong("entryCount");
        int keyLength = in.readInt("keyLength");
        return new TableSegmentInfo(requestId, segmentName, startOffset, length, entryCount, keyLength);
    }
}
