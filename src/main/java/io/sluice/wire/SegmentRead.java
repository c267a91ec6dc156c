package io.sluice.wire;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Data read from a segment, reply to {@link ReadSegment}. Wire type 10.
 *
 * <pre>
 * segment UTF | offset i64 | atTail bool | endOfSegment bool | dataLength i32 | data[dataLength]
 *             | requestId i64 (opt, −1)
 * </pre>
 * The data is raw segment bytes: for event streams, {@link Event} frames that may be cut at either end.
 *
 * @param segment the segment
 * @param offset the segment offset of the first byte of {@code data}
 * @param atTail the read stopped at the current end of an unsealed segment
 * @param endOfSegment the segment is sealed and this read reached its end
 * @param data the bytes (a read-only view)
 * @param requestId the ReadSegment's request id
 */
public record SegmentRead(String segment, long offset, boolean atTail, boolean endOfSegment, ByteBuffer data,
                          long requestId) implements Reply {

    /** @param data not copied */
    public SegmentRead {
        Objects.requireNonNull(segment, "segment");
        data = Bytes.view(data, "data");
    }

    @Override
    public ByteBuffer data() {
        return data.duplicate();
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.SEGMENT_READ;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeUtf(segment);
        out.writeLong(offset);
        out.writeBoolean(atTail);
        out.writeBoolean(endOfSegment);
        out.writeBlob(data);
        out.writeLong(requestId);
    }

    static SegmentRead readFrom(WireInput in) {
        String segment = in.readUtf("segment");
        long offset = in.readLong("offset");
        boolean atTail = in.readBoolean("atTail");
        boolean endOfSegment = in.readBoolean("endOfSegment");
        ByteBuffer data = in.readBlob("data");
        long requestId = in.readLongOr("requestId", -1L);
        return new SegmentRead(segment, offset, atTail, endOfSegment, data, requestId);
    }

    @Override
    public String toString() {
        return "SegmentRead[segment=" + segment + ", offset=" + offset + ", atTail=" + atTail + ", endOfSegment="
                + endOfSegment + ", data=" + Bytes.describe(data) + ", requestId=" + requestId + "]";
    }
}
