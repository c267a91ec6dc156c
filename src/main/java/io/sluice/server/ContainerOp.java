package io.sluice.server;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.UUID;

import io.sluice.wire.Bytes;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.Request;
import io.sluice.wire.WireInput;
import io.sluice.wire.WireOutput;

/**
 * One entry of a segment container's write log: a change, recorded before it is applied. Applying the entries
 * of a log in order, from the state of the snapshot before it, rebuilds the container exactly: every decision
 * (does the condition hold? is the event a duplicate?) is taken at apply time from the state alone, and the
 * wall-clock time is part of the entry.
 *
 * <pre>
 * entry   = tag u8 | timestampMillis i64 | body
 * tag 1   = a mutating wire request, as a whole frame (FrameCodec)
 * tag 2   = Append: segment UTF | writerId UUID | eventNumber i64 | eventCount i32 | expectedOffset i64
 *                   | requestId i64 | dataLength i32 | data
 * tag 3   = CreateTransient: name UTF | requestId i64
 * </pre>
 */
sealed interface ContainerOp {

    /** @return wall-clock time the change was made, recorded so replay reproduces it */
    long timestampMillis();

    /** @return the segment the change applies to (for routing to a container) */
    String segment();

    /**
     * A wire request that changes state: CreateSegment, CreateTableSegment, SealSegment, DeleteSegment,
     * TruncateSegment, UpdateSegmentPolicy, UpdateSegmentAttribute, MergeSegments, MergeSegmentsBatch,
     * DeleteTableSegment, UpdateTableEntries, RemoveTableKeys.
     */
    record Wire(long timestampMillis, Request request, String segment) implements ContainerOp {
        public Wire {
            Objects.requireNonNull(request, "request");
            Objects.requireNonNull(segment, "segment");
        }
    }

    /** Appended data of one writer (a whole append block, or a conditional append). */
    record Append(long timestampMillis, String segment, UUID writerId, long eventNumber, int eventCount,
                  long expectedOffset, long requestId, ByteBuffer data) implements ContainerOp {
        /** {@code expectedOffset} of an unconditional append. */
        static final long UNCONDITIONAL = Long.MIN_VALUE;

        public Append {
            Objects.requireNonNull(segment, "segment");
            Objects.requireNonNull(writerId, "writerId");
            data = Bytes.view(data, "data");
        }

        @Override
        public ByteBuffer data() {
            return data.duplicate();
        }

        @Override
        public String toString() {
            return "Append[" + segment + ", writer " + writerId + ", event " + eventNumber + ", " + Bytes.describe(data) + "]";
        }
    }

    /** A transient segment created for one connection (deleted when it closes, and at recovery). */
    record CreateTransient(long timestampMillis, String segment, long requestId) implements ContainerOp {
    }

    /** Bytes of an append's entry besides its segment name and data: type, time, writer, numbers, request id. */
    int APPEND_FIELD_BYTES = 1 + Long.BYTES + 16 + Long.BYTES + Integer.BYTES + Long.BYTES
            + Long.BYTES;

    /** @return the entry's bytes */
    static byte[] encode(ContainerOp op) {
        // an append is sized exactly, so its entry (as large as the data) is allocated once and not copied again
        WireOutput out = new WireOutput(op instanceof Append a ? APPEND_FIELD_BYTES + WireOutput.utfBytes(a.segment())
                + Integer.BYTES + a.data.remaining() : 64);
        switch (op) {
            case Wire w -> {
                out.writeByte(1);
                out.writeLong(w.timestampMillis());
                FrameCodec.encode(w.request(), out);
            }
            case Append a -> {
                out.writeByte(2);
                out.writeLong(a.timestampMillis());
                out.writeUtf(a.segment());
                out.writeUuid(a.writerId());
                out.writeLong(a.eventNumber());
                out.writeInt(a.eventCount());
                out.writeLong(a.expectedOffset());
                out.writeLong(a.requestId());
                out.writeBlob(a.data);
            }
            case CreateTransient t -> {
                out.writeByte(3);
                out.writeLong(t.timestampMillis());
                out.writeUtf(t.segment());
                out.writeLong(t.requestId());
            }
        }
        return out.detach();
    }

    /**
     * @param entry bytes written by {@link #encode}
     * @param segmentOf names the segment a wire request is about
     * @return the entry
     * @throws io.sluice.wire.InvalidWireCommandException if the bytes are not an entry
     */
    static ContainerOp decode(byte[] entry, java.util.function.Function<Request, String> segmentOf) {
        WireInput in = new WireInput(ByteBuffer.wrap(entry), "ContainerOp");
        byte tag = in.readByte("tag");
        long time = in.readLong("timestampMillis");
        return switch (tag) {
            case 1 -> {
                Request r = (Request) FrameCodec.decodeOne(in.readRest());
                yield new Wire(time, r, segmentOf.apply(r));
            }
            case 2 -> new Append(time, in.readUtf("segment"), in.readUuid("writerId"), in.readLong("eventNumber"),
                    in.readInt("eventCount"), in.readLong("expectedOffset"), in.readLong("requestId"), in.readBlob("data"));
            case 3 -> new CreateTransient(time, in.readUtf("segment"), in.readLong("requestId"));
            default -> throw in.invalid("tag", "unknown container log entry tag " + tag);
        };
    }
}
