package io.sluice.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.Consumer;

import io.sluice.wire.InvalidWireCommandException.Problem;

/**
 * Events as they are stored in a segment and carried in append data: {@code [i32 0][i32 n][n bytes]} each.
 * Stateless and thread-safe.
 */
public final class EventFrames {

    private EventFrames() {
    }

    /** @return the framed size of an event of {@code n} bytes */
    public static int framedSize(int n) {
        return Event.HEADER_SIZE + n;
    }

    /**
     * Hands every complete event in {@code data} to {@code sink}, in order, without copying or allocating per event:
     * the sink receives one reused read-only view whose position and limit frame the current event. The view is
     * valid only during the call; use {@code slice()} (no copy) or copy the bytes to keep an event.
     * A trailing incomplete event is left alone: the return value says where it starts.
     *
     * @param data segment bytes starting at an event boundary (its position does not move)
     * @param sink receives each event's bytes
     * @return the number of bytes of {@code data} consumed by complete events
     * @throws InvalidWireCommandException if a frame header is not an EVENT header or has a negative length
     */
    public static int forEach(ByteBuffer data, Consumer<ByteBuffer> sink) {
        return scan(data, sink, true);
    }

    /**
     * Like {@link #forEach} (same reused view), but stops quietly at the first frame that is not an EVENT (e.g. the PADDING or
     * PARTIAL_EVENT that ends an append block) instead of rejecting it.
     *
     * @return the number of bytes consumed by the leading complete events
     * @throws InvalidWireCommandException if an EVENT header has a negative length
     */
    public static int forEachLeading(ByteBuffer data, Consumer<ByteBuffer> sink) {
        return scan(data, sink, false);
    }

    private static int scan(ByteBuffer data, Consumer<ByteBuffer> sink, boolean strict) {
        ByteBuffer b = data.duplicate().order(ByteOrder.BIG_ENDIAN);
        ByteBuffer view = data.isReadOnly() ? data.duplicate() : data.asReadOnlyBuffer();
        int start = b.position();
        int p = start;
        int end = b.limit();
        while (end - p >= Event.HEADER_SIZE) {
            int type = b.getInt(p);
            int len = b.getInt(p + Integer.BYTES);
            if (type != WireCommandType.EVENT.code()) {
                if (!strict) {
                    break;
                }
                throw new InvalidWireCommandException(Problem.INVALID_FIELD, "expected an EVENT frame at byte "
                        + (p - start) + " but found type code " + type);
            }
            if (len < 0) {
                throw new InvalidWireCommandException(Problem.NEGATIVE_LENGTH, "EVENT frame at byte " + (p - start)
                        + " has negative length " + len);
            }
            if ((long) end - p - Event.HEADER_SIZE < len) {
                break;
            }
            view.limit(p + Event.HEADER_SIZE + len).position(p + Event.HEADER_SIZE);
            sink.accept(view);
            p += Event.HEADER_SIZE + len;
        }
        return p - start;
    }

    /**
     * Counts the complete events in {@code data}.
     *
     * @return the number of complete events
     */
    public static int count(ByteBuffer data) {
        int[] n = new int[1];
        forEach(data, e -> n[0]++);
        return n[0];
    }
}
