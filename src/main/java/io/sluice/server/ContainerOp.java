package io.sluice.server;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

import io.sluice.wire.Bytes;
import io.sluice.wire.ConditionalAttributeUpdate;
import io.sluice.wire.CreateSegment;
import io.sluice.wire.CreateTableSegment;
import io.sluice.wire.DeleteSegment;
import io.sluice.wire.DeleteTableSegment;
import io.sluice.wire.MergeSegments;
import io.sluice.wire.MergeSegmentsBatch;
import io.sluice.wire.RemoveTableKeys;
import io.sluice.wire.Request;
import io.sluice.wire.SealSegment;
import io.sluice.wire.TableEntries;
import io.sluice.wire.TableEntry;
import io.sluice.wire.TableKey;
import io.sluice.wire.TableValue;
import io.sluice.wire.TruncateSegment;
import io.sluice.wire.UpdateSegmentAttribute;
import io.sluice.wire.UpdateSegmentPolicy;
import io.sluice.wire.UpdateTableEntries;
import io.sluice.wire.WireInput;
import io.sluice.wire.WireOutput;

/**
 * One entry of a segment container's write log: a change, recorded before it is applied. Applying the entries
 * of a log in order, from the state of the snapshot before it, rebuilds the container exactly: every decision
 * (does the condition hold? is the event a duplicate?) is taken at apply time from the state alone, and the
 * wall-clock time is part of the entry.
 *
 * <p>An entry is a record of the log's own ({@link #FORMAT_VERSION}), not a wire frame: it holds what applying the
 * change reads and nothing that only matters on the wire (no delegation token, no request id, no deprecated
 * flag). {@link #decode} rebuilds a wire request with an empty token and request id 0; replay discards replies, so
 * nothing reads either. Written with {@link WireOutput}'s primitives (big-endian integers, {@code UTF} = u16 length
 * + modified UTF-8, {@code blob} = i32 length + bytes, {@code UUID} = msb i64 + lsb i64):
 *
 * <pre>
 * entry  = kind u8 | timestampMillis i64 | body
 * kind 1  CreateSegment          segment UTF | scaleType u8 | targetRate i32 | rolloverSizeBytes i64
 * kind 2  CreateTableSegment     segment UTF | keyLength i32 | rolloverSizeBytes i64
 * kind 3  SealSegment            segment UTF
 * kind 4  DeleteSegment          segment UTF
 * kind 5  TruncateSegment        segment UTF | truncationOffset i64
 * kind 6  UpdateSegmentPolicy    segment UTF | scaleType u8 | targetRate i32
 * kind 7  UpdateSegmentAttribute segment UTF | attributeId UUID | newValue i64 | expectedValue i64
 * kind 8  MergeSegments          target UTF | source UTF | count i32
 *                                | (attributeId UUID | updateType u8 | newValue i64 | oldValue i64) × count
 * kind 9  MergeSegmentsBatch     target UTF | count i32 | source UTF × count
 * kind 10 DeleteTableSegment     segment UTF | mustBeEmpty bool
 * kind 11 UpdateTableEntries     segment UTF | tableSegmentOffset i64 | count i32
 *                                | (key blob | keyVersion i64 | value blob) × count
 * kind 12 RemoveTableKeys        segment UTF | tableSegmentOffset i64 | count i32 | (key blob | keyVersion i64) × count
 * kind 13 Append                 segment UTF | writerId UUID | eventNumber i64 | eventCount i32 | expectedOffset i64
 *                                | data blob
 * kind 14 CreateTransient        segment UTF
 * </pre>
 *
 * Kinds are stable: never renumber or change one; a new layout is a new kind, or a new {@link #FORMAT_VERSION}.
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


    /**
     * The version of the record format: of these entries and of the container snapshot ({@link ContainerImage}).
     * Version 1 was the unversioned format that stored mutating requests as whole wire frames.
     */
    int FORMAT_VERSION = 2;

    /** Kind of a CreateSegment entry. */
    byte CREATE_SEGMENT = 1;
    /** Kind of a CreateTableSegment entry. */
    byte CREATE_TABLE_SEGMENT = 2;
    /** Kind of a SealSegment entry. */
    byte SEAL_SEGMENT = 3;
    /** Kind of a DeleteSegment entry. */
    byte DELETE_SEGMENT = 4;
    /** Kind of a TruncateSegment entry. */
    byte TRUNCATE_SEGMENT = 5;
    /** Kind of an UpdateSegmentPolicy entry. */
    byte UPDATE_SEGMENT_POLICY = 6;
    /** Kind of an UpdateSegmentAttribute entry. */
    byte UPDATE_SEGMENT_ATTRIBUTE = 7;
    /** Kind of a MergeSegments entry. */
    byte MERGE_SEGMENTS = 8;
    /** Kind of a MergeSegmentsBatch entry. */
    byte MERGE_SEGMENTS_BATCH = 9;
    /** Kind of a DeleteTableSegment entry. */
    byte DELETE_TABLE_SEGMENT = 10;
    /** Kind of an UpdateTableEntries entry. */
    byte UPDATE_TABLE_ENTRIES = 11;
    /** Kind of a RemoveTableKeys entry. */
    byte REMOVE_TABLE_KEYS = 12;
    /** Kind of an Append entry. */
    byte APPEND = 13;
    /** Kind of a CreateTransient entry. */
    byte CREATE_TRANSIENT = 14;

    /** Bytes of an append's entry besides its segment name and data: kind, time, writer, numbers, data length. */
    int APPEND_FIELD_BYTES = 1 + Long.BYTES + 16 + Long.BYTES + Integer.BYTES + Long.BYTES + Integer.BYTES;
    /** The smallest encoding of one table key (empty key blob, version). */
    int MIN_KEY_BYTES = Integer.BYTES + Long.BYTES;
    /** Bytes of one attribute update of a merge. */
    int ATTRIBUTE_UPDATE_BYTES = 16 + 1 + Long.BYTES + Long.BYTES;

    /**
     * @return the entry's bytes
     * @throws IllegalArgumentException if {@code op} is a {@link Wire} whose request does not change a segment
     */
    static byte[] encode(ContainerOp op) {
        // an append is sized exactly, so its entry (as large as the data) is allocated once and not copied again
        WireOutput out = new WireOutput(op instanceof Append a ? APPEND_FIELD_BYTES + WireOutput.utfBytes(a.segment())
                + a.data.remaining() : 64);
        switch (op) {
            case Wire w -> encodeRequest(w.timestampMillis(), w.request(), out);
            case Append a -> {
                out.writeByte(APPEND);
                out.writeLong(a.timestampMillis());
                out.writeUtf(a.segment());
                out.writeUuid(a.writerId());
                out.writeLong(a.eventNumber());
                out.writeInt(a.eventCount());
                out.writeLong(a.expectedOffset());
                out.writeBlob(a.data);
            }
            case CreateTransient t -> {
                out.writeByte(CREATE_TRANSIENT);
                out.writeLong(t.timestampMillis());
                out.writeUtf(t.segment());
            }
        }
        return out.detach();
    }

    private static void encodeRequest(long time, Request request, WireOutput out) {
        switch (request) {
            case CreateSegment c -> {
                head(out, CREATE_SEGMENT, time, c.segment());
                out.writeByte(c.scaleType());
                out.writeInt(c.targetRate());
                out.writeLong(c.rolloverSizeBytes());
            }
            case CreateTableSegment c -> {
                head(out, CREATE_TABLE_SEGMENT, time, c.segment());
                out.writeInt(c.keyLength());
                out.writeLong(c.rolloverSizeBytes());
            }
            case SealSegment c -> head(out, SEAL_SEGMENT, time, c.segment());
            case DeleteSegment c -> head(out, DELETE_SEGMENT, time, c.segment());
            case TruncateSegment c -> {
                head(out, TRUNCATE_SEGMENT, time, c.segment());
                out.writeLong(c.truncationOffset());
            }
            case UpdateSegmentPolicy c -> {
                head(out, UPDATE_SEGMENT_POLICY, time, c.segment());
                out.writeByte(c.scaleType());
                out.writeInt(c.targetRate());
            }
            case UpdateSegmentAttribute c -> {
                head(out, UPDATE_SEGMENT_ATTRIBUTE, time, c.segmentName());
                out.writeUuid(c.attributeId());
                out.writeLong(c.newValue());
                out.writeLong(c.expectedValue());
            }
            case MergeSegments c -> {
                head(out, MERGE_SEGMENTS, time, c.target());
                out.writeUtf(c.source());
                out.writeInt(c.attributeUpdates().size());
                for (ConditionalAttributeUpdate u : c.attributeUpdates()) {
                    out.writeUuid(u.attributeId());
                    out.writeByte(u.attributeUpdateType());
                    out.writeLong(u.newValue());
                    out.writeLong(u.oldValue());
                }
            }
            case MergeSegmentsBatch c -> {
                head(out, MERGE_SEGMENTS_BATCH, time, c.targetSegmentId());
                out.writeInt(c.sourceSegmentIds().size());
                for (String source : c.sourceSegmentIds()) {
                    out.writeUtf(source);
                }
            }
            case DeleteTableSegment c -> {
                head(out, DELETE_TABLE_SEGMENT, time, c.segment());
                out.writeBoolean(c.mustBeEmpty());
            }
            case UpdateTableEntries c -> {
                head(out, UPDATE_TABLE_ENTRIES, time, c.segment());
                out.writeLong(c.tableSegmentOffset());
                out.writeInt(c.tableEntries().entries().size());
                for (TableEntry e : c.tableEntries().entries()) {
                    writeKey(out, e.key());
                    out.writeBlob(e.value().data());
                }
            }
            case RemoveTableKeys c -> {
                head(out, REMOVE_TABLE_KEYS, time, c.segment());
                out.writeLong(c.tableSegmentOffset());
                out.writeInt(c.keys().size());
                for (TableKey k : c.keys()) {
                    writeKey(out, k);
                }
            }
            default -> throw new IllegalArgumentException(request.type() + " does not change a segment: it has no "
                    + "write log record");
        }
    }

    private static void head(WireOutput out, byte kind, long time, String segment) {
        out.writeByte(kind);
        out.writeLong(time);
        out.writeUtf(segment);
    }

    private static void writeKey(WireOutput out, TableKey key) {
        out.writeBlob(key.data());
        out.writeLong(key.keyVersion());
    }

    /**
     * @param entry bytes written by {@link #encode}
     * @return the entry; a wire request is rebuilt with request id 0 and an empty delegation token
     * @throws io.sluice.wire.InvalidWireCommandException if the bytes are not an entry of this format
     */
    static ContainerOp decode(byte[] entry) {
        WireInput in = new WireInput(ByteBuffer.wrap(entry), "ContainerOp");
        byte kind = in.readByte("kind");
        long time = in.readLong("timestampMillis");
        String segment = in.readUtf("segment");
        ContainerOp op = switch (kind) {
            case APPEND -> new Append(time, segment, in.readUuid("writerId"), in.readLong("eventNumber"),
                    in.readInt("eventCount"), in.readLong("expectedOffset"), 0, in.readBlob("data"));
            case CREATE_TRANSIENT -> new CreateTransient(time, segment, 0);
            default -> new Wire(time, decodeRequest(kind, segment, in), segment);
        };
        if (in.remaining() != 0) {
            throw in.invalid("end", in.remaining() + " bytes after the end of a kind " + kind + " entry");
        }
        return op;
    }

    private static Request decodeRequest(byte kind, String segment, WireInput in) {
        return switch (kind) {
            case CREATE_SEGMENT -> new CreateSegment(0, segment, in.readByte("scaleType"), in.readInt("targetRate"), "",
                    in.readLong("rolloverSizeBytes"));
            case CREATE_TABLE_SEGMENT -> new CreateTableSegment(0, segment, false, in.readInt("keyLength"), "",
                    in.readLong("rolloverSizeBytes"));
            case SEAL_SEGMENT -> new SealSegment(0, segment, "");
            case DELETE_SEGMENT -> new DeleteSegment(0, segment, "");
            case TRUNCATE_SEGMENT -> new TruncateSegment(0, segment, in.readLong("truncationOffset"), "");
            case UPDATE_SEGMENT_POLICY -> new UpdateSegmentPolicy(0, segment, in.readByte("scaleType"),
                    in.readInt("targetRate"), "");
            case UPDATE_SEGMENT_ATTRIBUTE -> new UpdateSegmentAttribute(0, segment, in.readUuid("attributeId"),
                    in.readLong("newValue"), in.readLong("expectedValue"), "");
            case MERGE_SEGMENTS -> {
                String source = in.readUtf("source");
                int count = in.readCount("attributeUpdates.count", ATTRIBUTE_UPDATE_BYTES);
                List<ConditionalAttributeUpdate> updates = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    updates.add(new ConditionalAttributeUpdate(in.readUuid("attributeId"), in.readByte("updateType"),
                            in.readLong("newValue"), in.readLong("oldValue")));
                }
                yield new MergeSegments(0, segment, source, "", updates);
            }
            case MERGE_SEGMENTS_BATCH -> {
                int count = in.readCount("sources.count", 2);
                List<String> sources = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    sources.add(in.readUtf("source"));
                }
                yield new MergeSegmentsBatch(0, segment, sources, "");
            }
            case DELETE_TABLE_SEGMENT -> new DeleteTableSegment(0, segment, in.readBoolean("mustBeEmpty"), "");
            case UPDATE_TABLE_ENTRIES -> {
                long offset = in.readLong("tableSegmentOffset");
                int count = in.readCount("entries.count", MIN_KEY_BYTES + Integer.BYTES);
                List<TableEntry> entries = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    entries.add(new TableEntry(readKey(in), new TableValue(in.readBlob("value"))));
                }
                yield new UpdateTableEntries(0, segment, "", new TableEntries(entries), offset);
            }
            case REMOVE_TABLE_KEYS -> {
                long offset = in.readLong("tableSegmentOffset");
                int count = in.readCount("keys.count", MIN_KEY_BYTES);
                List<TableKey> keys = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    keys.add(readKey(in));
                }
                yield new RemoveTableKeys(0, segment, "", keys, offset);
            }
            default -> throw in.invalid("kind", "unknown write log record kind " + kind + " (record format "
                    + FORMAT_VERSION + ")");
        };
    }

    private static TableKey readKey(WireInput in) {
        return new TableKey(in.readBlob("key"), in.readLong("keyVersion"));
    }
}
