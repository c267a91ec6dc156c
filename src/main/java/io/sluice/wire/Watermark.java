package io.sluice.wire;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One watermark as the controller stores it in a {@code _MARK<stream>} segment (one event per watermark): Pravega
 * 0.13's {@code io.pravega.shared.watermarks.Watermark} in its {@code VersionedSerializer} layout, byte for byte. See
 * docs/watermarks.md for the layout and its meaning.
 *
 * <pre>
 * watermark        = 00 (format) | 00 (version) | 01 (revisions) | 00 (revision) | length i32 | body
 * body             = lowerTimeBound i64 | upperTimeBound i64 | count compact-int | count × (segment | offset i64)
 * segment          = 00 | 00 | 01 | 00 | length i32 (24) | segmentId i64 | rangeLow f64 | rangeHigh f64
 * compact-int      = 1 byte (0..0x7F) | 2 bytes, top bits 10 (..0x3FFF) | 4 bytes, top bits 11 (..2^30 - 1)
 * </pre>
 *
 * A reader skips bytes a later revision might add after the fields it knows (each length says where a revision
 * ends), as Pravega's deserializer does.
 *
 * @param lowerTimeBound the least time the active writers noted (greatest lower bound)
 * @param upperTimeBound the greatest time they noted
 * @param streamCut segment → offset: an upper bound on the writers' positions when they noted those times
 */
public record Watermark(long lowerTimeBound, long upperTimeBound, Map<SegmentWithRange, Long> streamCut) {

    /**
     * A segment with its key range, as watermarks name them.
     *
     * @param segmentId {@code (epoch << 32) | number}
     * @param rangeLow inclusive low end of its key range
     * @param rangeHigh exclusive high end
     */
    public record SegmentWithRange(long segmentId, double rangeLow, double rangeHigh) {
        /** Checks the values as Pravega does. */
        public SegmentWithRange {
            if (segmentId < 0 || !(rangeLow >= 0.0) || !(rangeHigh <= 1.0) || !(rangeLow < rangeHigh)) {
                throw new IllegalArgumentException("a watermark segment needs an id >= 0 and 0 <= low < high <= 1: "
                        + segmentId + " [" + rangeLow + ", " + rangeHigh + ")");
            }
        }

        /** @return whether the key ranges overlap */
        public boolean overlaps(SegmentWithRange other) {
            return other.rangeLow < rangeHigh && other.rangeHigh > rangeLow;
        }
    }

    private static final int SEGMENT_BODY = 24;
    private static final int COMPACT_INT_MAX = (1 << 30) - 1;

    /** Checks the bounds and freezes the stream cut (its order is kept: it is the order of the bytes). */
    public Watermark {
        if (upperTimeBound < lowerTimeBound) {
            throw new IllegalArgumentException("a watermark's upper time bound " + upperTimeBound
                    + " is below its lower bound " + lowerTimeBound);
        }
        streamCut = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(streamCut, "streamCut")));
    }

    /** @return the serialized watermark (the payload of one event of a {@code _MARK} segment) */
    public ByteBuffer encode() {
        WireOutput out = new WireOutput(32 + streamCut.size() * 40);
        header(out);
        int lengthAt = out.position();
        out.writeInt(0);
        out.writeLong(lowerTimeBound);
        out.writeLong(upperTimeBound);
        writeCompactInt(out, streamCut.size());
        for (Map.Entry<SegmentWithRange, Long> e : streamCut.entrySet()) {
            header(out);
            out.writeInt(SEGMENT_BODY);
            out.writeLong(e.getKey().segmentId());
            out.writeLong(Double.doubleToLongBits(e.getKey().rangeLow()));
            out.writeLong(Double.doubleToLongBits(e.getKey().rangeHigh()));
            out.writeLong(e.getValue());
        }
        out.putInt(lengthAt, out.position() - lengthAt - Integer.BYTES);
        return ByteBuffer.wrap(out.toByteArray());
    }

    /**
     * @param data one serialized watermark (its position does not move)
     * @return the watermark
     * @throws InvalidWireCommandException if the bytes are not a watermark of format 0, version 0
     */
    public static Watermark decode(ByteBuffer data) {
        WireInput in = new WireInput(data.duplicate(), "Watermark");
        int length = header(in, "watermark");
        int end = in.remaining() - length;
        long lower = in.readLong("lowerTimeBound");
        long upper = in.readLong("upperTimeBound");
        int count = readCompactInt(in);
        Map<SegmentWithRange, Long> cut = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            int segmentLength = header(in, "segment");
            int segmentEnd = in.remaining() - segmentLength;
            long id = in.readLong("segmentId");
            double low = Double.longBitsToDouble(in.readLong("rangeLow"));
            double high = Double.longBitsToDouble(in.readLong("rangeHigh"));
            skipTo(in, segmentEnd, "segment");
            SegmentWithRange segment;
            try {
                segment = new SegmentWithRange(id, low, high);
            } catch (IllegalArgumentException e) {
                throw in.invalid("segment", e.getMessage());
            }
            cut.put(segment, in.readLong("offset"));
        }
        skipTo(in, end, "watermark");
        if (upper < lower) {
            throw in.invalid("upperTimeBound", "upper time bound " + upper + " is below the lower bound " + lower);
        }
        return new Watermark(lower, upper, cut);
    }

    private static void header(WireOutput out) {
        out.writeByte(0);  // serializer format
        out.writeByte(0);  // version
        out.writeByte(1);  // one revision
        out.writeByte(0);  // revision 0
    }

    /** Reads format, version, revision count and revision id; @return the revision's length */
    private static int header(WireInput in, String what) {
        byte format = in.readByte(what + " format");
        byte version = in.readByte(what + " version");
        byte revisions = in.readByte(what + " revision count");
        byte revision = in.readByte(what + " revision");
        if (format != 0 || version != 0 || revisions < 1 || revision != 0) {
            throw in.invalid(what, "expected format 0, version 0, revision 0; got format " + format + ", version "
                    + version + ", " + revisions + " revision(s) starting with " + revision);
        }
        int length = in.readInt(what + " length");
        if (length < 0 || length > in.remaining()) {
            throw in.invalid(what + " length", "revision length " + length + " but " + in.remaining()
                    + " bytes are left");
        }
        return length;
    }

    private static void skipTo(WireInput in, int remainingAtEnd, String what) {
        int extra = in.remaining() - remainingAtEnd;
        if (extra < 0) {
            throw in.invalid(what, "fields run " + -extra + " bytes past the revision's length");
        }
        in.skip(extra, what);
    }

    static void writeCompactInt(WireOutput out, int v) {
        if (v < 0 || v > COMPACT_INT_MAX) {
            throw new IllegalArgumentException("a compact int is between 0 and 2^30 - 1: " + v);
        }
        if (v > 0x3FFF) {
            out.writeInt(v | 0xC000_0000);
        } else if (v > 0x7F) {
            out.writeByte((v >>> 8) | 0x80);
            out.writeByte(v);
        } else {
            out.writeByte(v);
        }
    }

    static int readCompactInt(WireInput in) {
        int first = in.readByte("count") & 0xFF;
        return switch (first >>> 6) {
            case 0, 1 -> first;
            case 2 -> ((first & 0x3F) << 8) | (in.readByte("count") & 0xFF);
            default -> ((first & 0x3F) << 24) | ((in.readByte("count") & 0xFF) << 16)
                    | ((in.readByte("count") & 0xFF) << 8) | (in.readByte("count") & 0xFF);
        };
    }
}
